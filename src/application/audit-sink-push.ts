import { ledgerAfter, type LedgerEntry } from '../projections/ledger/ledger.queries.ts';
import type { LeaderDuty } from '../projections/runner/leader.ts';
import { idleSinks, offerBatch, type IdleSink } from '../projections/webhooks/sinks.queries.ts';
import { periodicDuty } from './periodic-duty.ts';
import type { Ports } from './ports.ts';

/** gateway.audit-export.* as the push uses them. */
export type AuditPushSettings = Readonly<{
  enabled: boolean;
  pollIntervalMs: number;
  lagMs: number;
  batchSize: number;
}>;

export type AuditPushPorts = Pick<Ports, 'pool' | 'clock' | 'logger'>;

/** spec, Ledger entry: the export's form (snake case, no credential_kind), for the pull export and sink batches. */
export const exportEntry = (e: LedgerEntry) => ({
  id: e.id,
  ts: e.ts,
  source: e.source,
  principal: e.principal,
  actor_type: e.actorType,
  marketplace: e.marketplace,
  marketplace_id: e.marketplaceId,
  event: e.event,
  ref: e.ref,
  sha: e.sha,
  detail: e.detail,
  token_id: e.tokenId,
});

async function offerTo(deps: AuditPushPorts, settings: AuditPushSettings, sink: IdleSink): Promise<boolean> {
  const now = deps.clock.now();
  // spec, Audit: the push withholds entries younger than the commit-settling lag, like the pull export.
  const cutoff = new Date(now.getTime() - settings.lagMs).toISOString();
  const entries = await ledgerAfter(deps.pool, sink.cursor, settings.batchSize, cutoff);
  const last = entries.at(-1);
  if (!last) return false;
  const at = now.toISOString();
  const data = { sink: sink.name, from: sink.cursor, to: last.id, entries: entries.map(exportEntry) };
  const body = JSON.stringify({ type: 'audit.batch', timestamp: at, data });
  return deps.pool.transaction((tx) => offerBatch(tx, { sinkId: sink.id, from: sink.cursor, to: last.id, body, at }));
}

/**
 * One offer pass: each enabled sink with no batch in flight gets the next batch after its cursor (up to
 * batch-size settled entries) as a pending delivery of kind audit.batch; the webhook dispatcher sends it and
 * moves the cursor once it is delivered. Returns the batches offered.
 */
export async function auditPushPass(deps: AuditPushPorts, settings: AuditPushSettings): Promise<number> {
  let offered = 0;
  for (const sink of await idleSinks(deps.pool)) if (await offerTo(deps, settings, sink)) offered += 1;
  return offered;
}

/** The leader's audit push: a pass every poll-interval, never two at once; nothing when push is disabled. */
export function auditPushDuty(deps: AuditPushPorts, settings: AuditPushSettings): LeaderDuty {
  return periodicDuty({
    log: deps.logger.child({ component: 'audit-push' }),
    intervalMs: settings.pollIntervalMs,
    disabled: settings.enabled ? null : 'gateway.audit-export.enabled is false: audit sinks are not pushed',
    failure: 'audit push pass failed',
    pass: () => auditPushPass(deps, settings),
  });
}
