import type { Position } from '../../adapters/eventstore/port.ts';
import type { SendResult, WebhookTransport } from '../../adapters/webhooks/transport.ts';
import { fact } from '../../domain/events.ts';
import { streams } from '../../domain/kernel/streams.ts';
import { attemptRecord } from '../../domain/webhook/signed-endpoint.ts';
import { dueDeliveries, type DueDelivery } from '../../projections/webhooks/deliveries.queries.ts';
import type { BatchBodies } from './batch-bodies.ts';
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
 * but a delivered audit batch frees its sink as soon as it is answered, its id kept in `applying` (which no pass
 * takes as due) until the reactor has applied it. `recording` is each receiver's last attempt being recorded;
 * `sends` are the sends and waits not yet ended.
 */
type Dispatching = Readonly<{
  inFlight: Set<string>;
  applying: Set<number>;
  recording: Map<string, Promise<Position>>;
  sends: Set<Promise<void>>;
}>;

/**
 * What a send tells its duty: `wake` runs another pass; `sinkBatchDelivered` when an audit batch was answered as
 * delivered, and again once its attempt is applied (the push offers what the sink has room for each time).
 */
type Settled = Readonly<{ wake: () => void; sinkBatchDelivered: () => void }>;

/** What every send of one dispatcher shares. */
type SendContext = Readonly<{
  settings: WebhookSettings;
  transport: WebhookTransport;
  bodies: BatchBodies;
  state: Dispatching;
  settled: Settled;
}>;

/**
 * One dispatch pass: starts the oldest due delivery of each receiver that has none on its way (an audit sink's
 * oldest pending batch, once due: its batches go in order), up to `batchSize` on their way in all, and answers
 * how many it started without waiting for them. Each is sent once and its attempt recorded as an event
 * (webhook-delivery-attempted) that the deliveries reactor applies; an attempt is recorded only after the
 * answer (at least once: a gateway stopped mid-send sends it again); a failed one is retried after
 * base * 2^(n-1), capped, until `maxAttempts` (the first included), then failed. A receiver that is slow or
 * never answers holds only its own deliveries.
 */
async function dispatchPass(deps: DispatchPorts, context: SendContext): Promise<number> {
  const { settings, state } = context;
  const free = settings.batchSize - state.inFlight.size;
  if (free <= 0) return 0;
  const due = await dueDeliveries(deps.pool, deps.clock.instant(), free, [...state.inFlight], [...state.applying]);
  for (const delivery of due) {
    state.inFlight.add(delivery.endpoint);
    const done = send(deps, context, delivery);
    state.sends.add(done);
    void done.finally(() => state.sends.delete(done));
  }
  return due.length;
}

/**
 * Sends one delivery and waits for the reactor to apply its attempt; its receiver is then free and another pass
 * runs for what waits behind it. A delivered audit batch frees its sink as soon as it is answered instead, so
 * the batch ready behind it is sent while this attempt is recorded and applied; the attempts of one receiver
 * are recorded in the order they were sent (`recording`), so the reactor applies them in that order. The push
 * is told at once and again once this one is applied, and offers what the sink has room for.
 */
async function send(deps: DispatchPorts, context: SendContext, delivery: DueDelivery): Promise<void> {
  const { state, settled } = context;
  let held = true;
  try {
    const result = await deliver(deps, context, delivery);
    const sinkBatchDelivered = delivery.batch !== null && result.ok;
    if (sinkBatchDelivered) {
      state.applying.add(delivery.id);
      state.inFlight.delete(delivery.endpoint);
      held = false;
      settled.wake();
      settled.sinkBatchDelivered();
    }
    const position = await inOrder(state, delivery.endpoint, () => record(deps, context.settings, delivery, result));
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

/**
 * Runs `step` after every step queued before it for `endpoint` has ended; when one of those failed, this one
 * fails without running (an attempt is not recorded over an earlier one that was not: both are sent again).
 */
function inOrder(state: Dispatching, endpoint: string, step: () => Promise<Position>): Promise<Position> {
  const mine = (state.recording.get(endpoint) ?? Promise.resolve()).then(step);
  state.recording.set(endpoint, mine);
  const forget = () => {
    if (state.recording.get(endpoint) === mine) state.recording.delete(endpoint);
  };
  mine.then(forget, forget);
  return mine;
}

function deliver(deps: DispatchPorts, context: SendContext, delivery: DueDelivery): Promise<SendResult> {
  const body =
    delivery.body ??
    (delivery.batch === null
      ? Promise.reject(new Error(`delivery ${delivery.id} has neither a body nor a batch`))
      : context.bodies.take(delivery.batch));
  return Promise.resolve(body).then((text) =>
    context.transport({
      url: delivery.url,
      id: String(delivery.id),
      timestamp: Math.floor(Date.parse(deps.clock.instant()) / 1000),
      body: text,
      secret: deps.secrets.open(delivery.sealedSecret),
      timeoutMs: context.settings.timeoutMs,
    }),
  );
}

/** Records the attempt as webhook-delivery-attempted; returns its position. */
async function record(
  deps: DispatchPorts,
  settings: WebhookSettings,
  delivery: DueDelivery,
  result: SendResult,
): Promise<Position> {
  const at = deps.clock.instant();
  const attempted = fact('webhook-delivery-attempted', attemptRecord(delivery, result, settings, at));
  deps.metrics.deliveries.inc({
    kind: delivery.batch === null ? 'webhook' : 'audit-batch',
    outcome: attempted.data.outcome,
  });
  return recordOutbound(deps, 'webhook-dispatch', streams.delivery(delivery.id), attempted, at);
}

/**
 * The leader's dispatcher: a pass every poll-interval, and another whenever a receiver is free again;
 * nothing when dispatch is disabled. `wake` runs a pass now (the audit push calls it when it offers a batch);
 * `onSinkBatchDelivered` is told when an audit batch was delivered (and again once that is applied), so the push
 * offers the batches after those ready without waiting for its own interval. An audit batch's body is taken from
 * `bodies`, where the push prepared it. Stopping waits for the deliveries on their way.
 */
export function webhookDispatchDuty(
  deps: DispatchPorts,
  settings: WebhookSettings,
  transport: WebhookTransport,
  bodies: BatchBodies,
  onSinkBatchDelivered: () => void = () => {},
): WakeableDuty {
  const state: Dispatching = { inFlight: new Set(), applying: new Set(), recording: new Map(), sends: new Set() };
  // A pass sends what waits behind a receiver once it is free (for an audit sink, the batch already offered
  // behind the one delivered) while the push, told of the delivered batch, prepares the one after that.
  const settled: Settled = { wake: () => duty.wake(), sinkBatchDelivered: onSinkBatchDelivered };
  const duty = outboundDuty(
    deps,
    dispatch,
    settings,
    async () => {
      await dispatchPass(deps, { settings, transport, bodies, state, settled });
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
