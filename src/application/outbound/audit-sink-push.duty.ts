import { fact } from '../../domain/events.ts';
import { streams } from '../../domain/kernel/streams.ts';
import { ledgerSpanAfter, type LedgerEntry } from '../../projections/ledger/ledger.queries.ts';
import { offerableSinks, type OfferableSink } from '../../projections/webhooks/sinks.queries.ts';
import type { WakeableDuty } from '../kernel/periodic-duty.ts';
import type { BatchBodies } from './batch-bodies.ts';
import type { Ports } from '../kernel/ports.ts';
import { outboundDuty, recordOutbound } from './signed-endpoint.ts';

/** gateway.audit-export.* as the push uses them. */
export type AuditPushSettings = Readonly<{
  enabled: boolean;
  pollIntervalMs: number;
  lagMs: number;
  batchSize: number;
}>;

const auditPush = {
  component: 'audit-push',
  disabled: 'gateway.audit-export.enabled is false: audit sinks are not pushed',
};

export type AuditPushPorts = Pick<Ports, 'pool' | 'clock' | 'logger' | 'store' | 'waiter'>;

/** docs/audit.md, Entries: the export's form (snake case, no credential_kind), for the pull export and sink batches. */
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
  hash: e.hash,
  prev_hash: e.prevHash,
});

/**
 * Offers a sink its next batch, after `from` (where its offered span ends), recorded as audit-batch-offered;
 * returns the position appended and where the batch ends, or null when no settled entry follows.
 */
async function offerTo(
  deps: AuditPushPorts,
  settings: AuditPushSettings,
  sink: OfferableSink,
  from: number,
  bodies: BatchBodies | null,
): Promise<{ position: bigint; to: number } | null> {
  const now = deps.clock.now();
  // The push withholds entries younger than the commit-settling lag, like the pull export.
  const cutoff = new Date(now.getTime() - settings.lagMs).toISOString();
  const span = await ledgerSpanAfter(deps.pool, from, sink.batchSize ?? settings.batchSize, cutoff);
  if (!span) return null;
  const at = now.toISOString();
  const offered = fact('audit-batch-offered', {
    sinkId: sink.id,
    name: sink.name,
    from,
    to: span.to,
    count: span.count,
    at,
  });
  const position = await recordOutbound(deps, 'audit-push', streams.sinkBatches(sink.id), offered, at);
  bodies?.prepare({ sink: sink.name, from, to: span.to, at, position });
  return { position, to: span.to };
}

/**
 * One offer pass: each enabled sink with room is offered the batches that follow its offered span (up to its
 * batch size of settled entries each) until it holds `maxOffered` (eight): one on its way, the others ready behind
 * it. The deliveries reactor makes each a pending delivery of kind audit.batch, which the webhook dispatcher sends
 * in order, moving the cursor over each once it is delivered. The pass ends when the reactor has applied its
 * offers. Returns the batches offered.
 */
export async function auditPushPass(
  deps: AuditPushPorts,
  settings: AuditPushSettings,
  bodies: BatchBodies | null = null,
): Promise<number> {
  let last = 0n;
  let offered = 0;
  for (const sink of await offerableSinks(deps.pool)) {
    let from = sink.offeredTo;
    for (let room = sink.room; room > 0; room -= 1) {
      const batch = await offerTo(deps, settings, sink, from, bodies);
      if (batch === null) break;
      offered += 1;
      last = batch.position;
      from = batch.to;
    }
  }
  if (offered > 0) await deps.waiter.waitFor(last, ['webhook-deliveries']);
  return offered;
}

/**
 * The leader's audit push: a pass every poll-interval, never two at once; nothing when push is disabled.
 * `onOffered` is told when a pass offered batches (the dispatcher sends them at once); `wake` runs a pass now.
 * Each batch offered has its body prepared in `bodies`, which the dispatcher takes it from.
 */
export function auditPushDuty(
  deps: AuditPushPorts,
  settings: AuditPushSettings,
  onOffered: () => void = () => {},
  bodies: BatchBodies | null = null,
): WakeableDuty {
  return outboundDuty(deps, auditPush, settings, () => auditPushPass(deps, settings, bodies), onOffered);
}
