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

/**
 * The dispatcher's deliveries on their way, by endpoint: at most one per receiver, at most `batchSize` in all.
 * A delivery stays here until the reactor has applied its attempt, so no pass sees it as due again meanwhile.
 */
type InFlight = Map<string, Promise<void>>;

/**
 * One dispatch pass: starts the oldest due delivery of each receiver that has none on its way, up to
 * `batchSize` on their way in all, and answers how many it started without waiting for them. Each is sent
 * once and its attempt recorded as an event (webhook-delivery-attempted) that the deliveries reactor
 * applies; an attempt is recorded only after the answer (at least once: a gateway stopped mid-send sends it
 * again); a failed one is retried after base * 2^(n-1), capped, until `maxAttempts` (the first included),
 * then failed. A receiver that is slow or never answers holds only its own deliveries: when an attempt is
 * applied, `settled` is told (the duty then runs another pass for what was waiting behind it).
 */
async function dispatchPass(
  deps: DispatchPorts,
  settings: WebhookSettings,
  transport: WebhookTransport,
  inFlight: InFlight,
  settled: (sinkBatchDelivered: boolean) => void,
): Promise<number> {
  const free = settings.batchSize - inFlight.size;
  if (free <= 0) return 0;
  const due = await dueDeliveries(deps.pool, deps.clock.instant(), free, [...inFlight.keys()]);
  for (const delivery of due) {
    const sent = attempt(deps, settings, transport, delivery).then(async ({ position, sinkBatchDelivered }) => {
      await deps.waiter.waitFor(position, deliveriesReactor);
      return sinkBatchDelivered;
    });
    const done = sent.then(
      (sinkBatchDelivered) => {
        inFlight.delete(delivery.endpoint);
        settled(sinkBatchDelivered);
      },
      (error: unknown) => {
        inFlight.delete(delivery.endpoint);
        deps.logger.error({ err: error, deliveryId: delivery.id }, 'webhook delivery attempt failed; retried');
      },
    );
    inFlight.set(delivery.endpoint, done);
  }
  return due.length;
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
 * The leader's dispatcher: a pass every poll-interval, and another whenever an attempt has been applied;
 * nothing when dispatch is disabled. `wake` runs a pass now (the audit push calls it when it offers a batch);
 * `onSinkBatchDelivered` is told when an audit batch was delivered, so the push offers the next one without
 * waiting for its own interval. Stopping waits for the deliveries on their way.
 */
export function webhookDispatchDuty(
  deps: DispatchPorts,
  settings: WebhookSettings,
  transport: WebhookTransport,
  onSinkBatchDelivered: () => void = () => {},
): WakeableDuty {
  const inFlight: InFlight = new Map();
  // A delivered audit batch wakes the push, whose offer of the next batch wakes the dispatcher in turn.
  const settled = (sinkBatchDelivered: boolean) => (sinkBatchDelivered ? onSinkBatchDelivered() : duty.wake());
  const duty = outboundDuty(
    deps,
    dispatch,
    settings,
    async () => {
      await dispatchPass(deps, settings, transport, inFlight, settled);
      return 0;
    },
    () => {},
  );
  return {
    ...duty,
    async stop() {
      await duty.stop();
      while (inFlight.size > 0) await Promise.allSettled([...inFlight.values()]);
    },
  };
}
