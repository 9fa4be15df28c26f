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
 * The dispatcher's deliveries on their way: their receivers (endpoints), at most one delivery each and at most
 * `batchSize` in all, held until the reactor has applied the attempt, so no pass sees it as due again meanwhile;
 * but a delivered audit batch frees its sink as soon as its attempt is recorded, its id kept in `applying` (which
 * no pass takes as due) until the reactor has applied it. `sends` are the sends and waits not yet ended.
 */
type Dispatching = Readonly<{ inFlight: Set<string>; applying: Set<number>; sends: Set<Promise<void>> }>;

/** What a send tells its duty: `wake` runs another pass; `sinkBatchDelivered` once a delivered batch is applied. */
type Settled = Readonly<{ wake: () => void; sinkBatchDelivered: () => void }>;

/**
 * One dispatch pass: starts the oldest due delivery of each receiver that has none on its way (an audit sink's
 * oldest pending batch, once due: its batches go in order), up to `batchSize` on their way in all, and answers
 * how many it started without waiting for them. Each is sent once and its attempt recorded as an event
 * (webhook-delivery-attempted) that the deliveries reactor applies; an attempt is recorded only after the
 * answer (at least once: a gateway stopped mid-send sends it again); a failed one is retried after
 * base * 2^(n-1), capped, until `maxAttempts` (the first included), then failed. A receiver that is slow or
 * never answers holds only its own deliveries.
 */
async function dispatchPass(
  deps: DispatchPorts,
  settings: WebhookSettings,
  transport: WebhookTransport,
  state: Dispatching,
  settled: Settled,
): Promise<number> {
  const free = settings.batchSize - state.inFlight.size;
  if (free <= 0) return 0;
  const due = await dueDeliveries(deps.pool, deps.clock.instant(), free, [...state.inFlight], [...state.applying]);
  for (const delivery of due) {
    state.inFlight.add(delivery.endpoint);
    const done = send(deps, settings, transport, state, delivery, settled);
    state.sends.add(done);
    void done.finally(() => state.sends.delete(done));
  }
  return due.length;
}

/**
 * Sends one delivery and waits for the reactor to apply its attempt; its receiver is then free and another pass
 * runs for what waits behind it. A delivered audit batch frees its sink at once instead, so the batch ready
 * behind it is sent while the reactor applies this one (recorded after it, so applied after it); the push is
 * told once it is applied, and offers the batch after that.
 */
async function send(
  deps: DispatchPorts,
  settings: WebhookSettings,
  transport: WebhookTransport,
  state: Dispatching,
  delivery: DueDelivery,
  settled: Settled,
): Promise<void> {
  let held = true;
  try {
    const { position, sinkBatchDelivered } = await attempt(deps, settings, transport, delivery);
    if (sinkBatchDelivered) {
      state.applying.add(delivery.id);
      state.inFlight.delete(delivery.endpoint);
      held = false;
      settled.wake();
    }
    await deps.waiter.waitFor(position, deliveriesReactor);
    if (held) state.inFlight.delete(delivery.endpoint);
    held = false;
    if (sinkBatchDelivered) settled.sinkBatchDelivered();
    else settled.wake();
  } catch (error) {
    deps.logger.error({ err: error, deliveryId: delivery.id }, 'webhook delivery attempt failed; retried');
  } finally {
    if (held) state.inFlight.delete(delivery.endpoint);
    state.applying.delete(delivery.id);
  }
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
 * The leader's dispatcher: a pass every poll-interval, and another whenever a receiver is free again;
 * nothing when dispatch is disabled. `wake` runs a pass now (the audit push calls it when it offers a batch);
 * `onSinkBatchDelivered` is told when an audit batch was delivered, so the push offers the one after the batch
 * ready behind it without waiting for its own interval. Stopping waits for the deliveries on their way.
 */
export function webhookDispatchDuty(
  deps: DispatchPorts,
  settings: WebhookSettings,
  transport: WebhookTransport,
  onSinkBatchDelivered: () => void = () => {},
): WakeableDuty {
  const state: Dispatching = { inFlight: new Set(), applying: new Set(), sends: new Set() };
  // A pass sends what waits behind a receiver once it is free (for an audit sink, the batch already offered
  // behind the one delivered) while the push, told of the delivered batch, prepares the one after that.
  const settled: Settled = { wake: () => duty.wake(), sinkBatchDelivered: onSinkBatchDelivered };
  const duty = outboundDuty(
    deps,
    dispatch,
    settings,
    async () => {
      await dispatchPass(deps, settings, transport, state, settled);
      return 0;
    },
    () => {},
  );
  return {
    ...duty,
    async stop() {
      await duty.stop();
      while (state.sends.size > 0) await Promise.allSettled([...state.sends]);
    },
  };
}
