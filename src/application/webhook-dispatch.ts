import type { WebhookTransport } from '../adapters/webhooks/transport.ts';
import { backoffAfter } from '../domain/webhook/outbound.ts';
import type { LeaderDuty } from '../projections/runner/leader.ts';
import { dueDeliveries, recordAttempt, type DueDelivery } from '../projections/webhooks/deliveries.queries.ts';
import { periodicDuty } from './periodic-duty.ts';
import type { Ports } from './ports.ts';

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

export type DispatchPorts = Pick<Ports, 'pool' | 'clock' | 'secrets' | 'logger'>;

/**
 * One dispatch pass: at most `batchSize` due deliveries, each sent once. A row is marked delivered only
 * after its 2xx (at least once: a gateway stopped mid-send sends it again); a failed attempt is retried
 * after base * 2^(n-1), capped, until `maxAttempts` (the first included), then failed. Returns the rows sent.
 */
export async function dispatchPass(
  deps: DispatchPorts,
  settings: WebhookSettings,
  transport: WebhookTransport,
): Promise<number> {
  const due = await dueDeliveries(deps.pool, deps.clock.instant(), settings.batchSize);
  // The batch goes out at once: one slow or dead receiver costs the pass one timeout, not one per row.
  await Promise.all(due.map((delivery) => attempt(deps, settings, transport, delivery)));
  return due.length;
}

async function attempt(
  deps: DispatchPorts,
  settings: WebhookSettings,
  transport: WebhookTransport,
  delivery: DueDelivery,
): Promise<void> {
  const result = await transport({
    url: delivery.url,
    id: String(delivery.id),
    timestamp: Math.floor(Date.parse(deps.clock.instant()) / 1000),
    body: delivery.body,
    secret: deps.secrets.open(delivery.sealedSecret),
    timeoutMs: settings.timeoutMs,
  });
  const attempts = delivery.attempts + 1;
  const at = deps.clock.instant();
  const state = result.ok ? 'delivered' : attempts >= settings.maxAttempts ? 'failed' : 'pending';
  const delay = state === 'pending' ? backoffAfter(attempts, settings.baseBackoffMs, settings.maxBackoffMs) : 0;
  await recordAttempt(deps.pool, delivery.id, {
    state,
    status: result.status,
    error: result.error,
    nextAttemptAt: new Date(Date.parse(at) + delay).toISOString(),
    at,
  });
}

/** The leader's dispatcher: a pass every poll-interval, never two at once; nothing when dispatch is disabled. */
export function webhookDispatchDuty(
  deps: DispatchPorts,
  settings: WebhookSettings,
  transport: WebhookTransport,
): LeaderDuty {
  return periodicDuty({
    log: deps.logger.child({ component: 'webhook-dispatch' }),
    intervalMs: settings.pollIntervalMs,
    disabled: settings.enabled ? null : 'gateway.webhooks.enabled is false: deliveries are recorded, not sent',
    failure: 'webhook dispatch pass failed',
    pass: () => dispatchPass(deps, settings, transport),
  });
}
