import type { Position } from '../../adapters/eventstore/port.ts';
import type { WebhookTransport } from '../../adapters/webhooks/transport.ts';
import { fact } from '../../domain/events.ts';
import { streams } from '../../domain/kernel/streams.ts';
import { attemptRecord } from '../../domain/webhook/signed-endpoint.ts';
import { dueDeliveries, type DueDelivery } from '../../projections/webhooks/deliveries.queries.ts';
import { auditBatchBody } from './audit-sink-push.duty.ts';
import type { WakeableDuty } from '../kernel/periodic-duty.ts';
import type { Ports } from '../kernel/ports.ts';
import { outboundDuty, recordOutbound } from './signed-endpoint.ts';

/** gateway.webhooks.* */
export type WebhookSettings = Readonly<{
  enabled: boolean;
  pollIntervalMs: number;
  baseBackoffMs: number;
  maxBackoffMs: number;
  maxAttempts: number;
  timeoutMs: number;
  batchSize: number;
}>;

const dispatch = {
  component: 'webhook-dispatch',
  disabled: 'gateway.webhooks.enabled is false: deliveries are recorded, not sent',
};

export type DispatchPorts = Pick<Ports, 'pool' | 'clock' | 'secrets' | 'logger' | 'store' | 'waiter' | 'metrics'>;

/** The reactor that applies what the dispatcher records (src/projections/webhooks/deliveries.reactor.ts). */
const deliveriesReactor = ['webhook-deliveries'];

export type DispatchResult = Readonly<{ sent: number; sinkBatchesDelivered: number }>;

/**
 * One dispatch pass: at most `batchSize` due deliveries, each sent once and its attempt recorded as an
 * event (webhook-delivery-attempted) that the deliveries reactor applies. An attempt is recorded only after
 * the answer (at least once: a gateway stopped mid-send sends it again); a failed one is retried after
 * base * 2^(n-1), capped, until `maxAttempts` (the first included), then failed. The pass ends when the
 * reactor has applied what it recorded, so the next pass never sees a delivered row as due.
 */
export async function dispatchPass(
  deps: DispatchPorts,
  settings: WebhookSettings,
  transport: WebhookTransport,
): Promise<DispatchResult> {
  const due = await dueDeliveries(deps.pool, deps.clock.instant(), settings.batchSize);
  // The batch goes out at once: one slow or dead receiver costs the pass one timeout, not one per row.
  const recorded = await Promise.all(due.map((delivery) => attempt(deps, settings, transport, delivery)));
  const last = recorded.reduce<Position>((max, r) => (r.position > max ? r.position : max), 0n);
  if (last > 0n) await deps.waiter.waitFor(last, deliveriesReactor);
  return { sent: due.length, sinkBatchesDelivered: recorded.filter((r) => r.sinkBatchDelivered).length };
}

async function bodyOf(deps: DispatchPorts, delivery: DueDelivery): Promise<string> {
  if (delivery.body !== null) return delivery.body;
  if (delivery.batch === null) throw new Error(`delivery ${delivery.id} has neither a body nor a batch`);
  return auditBatchBody(deps, delivery.batch);
}

async function attempt(
  deps: DispatchPorts,
  settings: WebhookSettings,
  transport: WebhookTransport,
  delivery: DueDelivery,
): Promise<{ position: Position; sinkBatchDelivered: boolean }> {
  const result = await transport({
    url: delivery.url,
    id: String(delivery.id),
    timestamp: Math.floor(Date.parse(deps.clock.instant()) / 1000),
    body: await bodyOf(deps, delivery),
    secret: deps.secrets.open(delivery.sealedSecret),
    timeoutMs: settings.timeoutMs,
  });
  const at = deps.clock.instant();
  const attempted = fact('webhook-delivery-attempted', attemptRecord(delivery, result, settings, at));
  const { outcome } = attempted.data;
  deps.metrics.deliveries.inc({ kind: delivery.batch === null ? 'webhook' : 'audit-batch', outcome });
  const position = await recordOutbound(deps, 'webhook-dispatch', streams.delivery(delivery.id), attempted, at);
  return { position, sinkBatchDelivered: delivery.batch !== null && outcome === 'delivered' };
}

/**
 * The leader's dispatcher: a pass every poll-interval, never two at once; nothing when dispatch is disabled.
 * `wake` runs a pass now (the audit push calls it when it offers a batch); `onSinkBatchDelivered` is told when a
 * pass delivered an audit batch, so the push offers the next one without waiting for its own interval.
 */
export function webhookDispatchDuty(
  deps: DispatchPorts,
  settings: WebhookSettings,
  transport: WebhookTransport,
  onSinkBatchDelivered: () => void = () => {},
): WakeableDuty {
  const pass = async () => (await dispatchPass(deps, settings, transport)).sinkBatchesDelivered;
  return outboundDuty(deps, dispatch, settings, pass, onSinkBatchDelivered);
}
