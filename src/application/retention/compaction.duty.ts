import { appendFacts } from '../../adapters/eventstore/append-facts.ts';
import { metadataOf } from '../kernel/run-command.ts';
import {
  deleteRefs,
  pruneQuarantine,
  quarantineIds,
  refsUnder,
  stagingRefCreatedAt,
  unusedExternalPins,
} from '../../adapters/git/quarantine-refs.ts';
import type { SweptStagingRef } from '../../domain/compaction/compaction.events.ts';
import { fact } from '../../domain/events.ts';
import type { CommandMeta } from '../../domain/kernel/decider.ts';
import { streams } from '../../domain/kernel/streams.ts';
import { namedCommits, purgeCandidates, type PurgeCandidate } from '../../projections/snapshots/purge.queries.ts';
import { sweepableDeliveries } from '../../projections/webhooks/deliveries-sweep.queries.ts';
import type { Actor, Ports } from '../kernel/ports.ts';
import { Rejected } from '../kernel/rejected.ts';
import { recordPurge } from '../snapshots/deletion.use-case.ts';
import { pruneExternalCaches } from './external-caches.ts';
import { requireAdminRole } from '../access/standing.ts';

export type CompactionPorts = Pick<
  Ports,
  | 'store'
  | 'waiter'
  | 'pool'
  | 'clock'
  | 'logger'
  | 'gitStore'
  | 'quarantineLocks'
  | 'access'
  | 'retention'
  | 'housekeeping'
  | 'metrics'
>;

/** Delivered or failed deliveries last updated more than 30 days ago are swept (docs/retention.md). */
export const deliveryRetentionMs = 30 * 86_400_000;

/**
 * What one pass did: `selected` soft-deleted snapshots past purgeAfter, `acted` of them purged (the
 * answer {selected, acted}); `swept`, what the housekeeping sweeps removed (staging refs, deliveries,
 * external repository caches).
 */
export type CompactionResult = Readonly<{
  selected: number;
  acted: number;
  swept: Readonly<{ stagingRefs: number; deliveries: number; externalCaches: number }>;
}>;

/** POST /api/v1/retention/compact: one pass now, by an admin, whatever the schedule's state. */
export async function compactNow(deps: CompactionPorts, actor: Actor, meta: CommandMeta): Promise<CompactionResult> {
  await requireAdminRole(deps, actor);
  return compactionPass(deps, meta);
}

/**
 * One compaction pass. Per quarantine repository, under its exclusive lock (a repository an ingest is
 * writing is skipped and retried on the next pass): the quarantine refs of the snapshots to purge, the
 * abandoned staging refs and the external pins nothing remaining uses are removed, then `git gc
 * --prune=now` drops the objects no other ref reaches, and only then is each purge recorded
 * (snapshot-purged). Every step can be run again: a pass cut off anywhere leaves the snapshot
 * soft-deleted past its window, so the next pass selects it and finishes.
 */
export async function compactionPass(deps: CompactionPorts, meta: CommandMeta): Promise<CompactionResult> {
  const log = deps.logger.child({ component: 'compaction' });
  // The selection reads the snapshots read model: made current first, so a restore recorded before the
  // pass began is seen (after purgeAfter none can be recorded: the decision refuses it).
  await deps.waiter.waitFor(await deps.store.head(), ['snapshots']);
  const candidates = await purgeCandidates(deps.pool, deps.clock.instant());
  const byMarketplace = groupBy(candidates, (c) => c.marketplaceId);
  const stale = staleStagingRefs(deps);
  const repos = new Set([...byMarketplace.keys(), ...quarantineIds(deps.gitStore.root)]);
  let acted = 0;
  const swept: SweptStagingRef[] = [];
  const busy: number[] = [];
  for (const marketplaceId of [...repos].sort((a, b) => a - b)) {
    const purging = byMarketplace.get(marketplaceId) ?? [];
    try {
      const cleared = await clearRepository(deps, marketplaceId, purging, stale);
      if (cleared.busy) {
        // Nothing removed, nothing recorded: its snapshots stay due and the next pass selects them again.
        busy.push(marketplaceId);
        log.info({ marketplaceId }, 'quarantine repository busy (an ingest holds it): skipped, retried next pass');
        continue;
      }
      swept.push(...cleared.staging);
    } catch (error) {
      // Nothing is recorded for this repository: the next pass does it again.
      log.error({ err: error, marketplaceId }, 'compaction of a quarantine repository failed; the pass goes on');
      continue;
    }
    acted += await recordPurges(deps, purging, meta, log);
  }
  if (swept.length > 0) await recordStagingSweep(deps, swept, meta);
  const deliveries = await sweepDeliveries(deps, meta);
  const externalCaches = await pruneExternalCaches(deps, meta);
  const result = {
    selected: candidates.length,
    acted,
    swept: { stagingRefs: swept.length, deliveries, externalCaches },
  };
  deps.metrics.retentionPasses.inc({
    kind: 'compaction',
    trigger: meta.actorType === 'system' ? 'scheduled' : 'on-demand',
  });
  deps.metrics.retentionSnapshots.inc({ action: 'purged' }, acted);
  if (candidates.length + swept.length + deliveries + externalCaches + busy.length > 0)
    log.info({ ...result, busy }, 'compaction pass');
  return result;
}

/** Which staging refs are old enough to sweep: null when the sweep is disabled (staging-ref-max-age <= 0). */
function staleStagingRefs(deps: CompactionPorts): ((ref: string) => Date | null) | null {
  const maxAgeMs = deps.retention.stagingRefMaxAgeMs;
  if (maxAgeMs <= 0) return null;
  const now = deps.clock.now().getTime();
  return (ref) => {
    const createdAt = stagingRefCreatedAt(ref);
    return createdAt !== null && now - createdAt.getTime() > maxAgeMs ? createdAt : null;
  };
}

/** What compaction did to one quarantine repository, or that an ingest held it (skipped this pass). */
type Cleared = Readonly<{ busy: boolean; staging: SweptStagingRef[] }>;

/**
 * Removes from one quarantine repository the refs of the snapshots being purged, the stale staging refs
 * and the external plugin pins whose commit or tree no remaining snapshot row uses, then prunes what
 * nothing reaches any more. All of it under the repository's exclusive lock, taken without waiting: an
 * ingest holds it shared from its first object until its capture is recorded, so nothing it wrote or
 * relies on is pruned under it; a busy repository is left to the next pass. Under the lock the snapshots
 * read model is made current first, so every capture an ingest finished is among the named commits.
 */
async function clearRepository(
  deps: CompactionPorts,
  marketplaceId: number,
  purging: readonly PurgeCandidate[],
  stale: ((ref: string) => Date | null) | null,
): Promise<Cleared> {
  const repo = deps.gitStore.quarantinePath(marketplaceId);
  const old =
    stale === null
      ? []
      : (await refsUnder(repo, 'refs/staging/')).flatMap(({ ref, sha }) => {
          const createdAt = stale(ref);
          return createdAt === null ? [] : [{ marketplaceId, ref, sha, createdAt: createdAt.toISOString() }];
        });
  if (purging.length === 0 && old.length === 0) return { busy: false, staging: [] };
  const locked = await deps.quarantineLocks.tryExclusive(marketplaceId, async () => {
    await deps.waiter.waitFor(await deps.store.head(), ['snapshots']);
    const except = purging.map((c) => c.id);
    const named = await namedCommits(deps.pool, marketplaceId, except);
    const pins = new Set<string>();
    for (const c of purging)
      for (const sha of [c.sha, c.upstreamSha]) if (!named.has(sha)) pins.add(`refs/quarantine/${sha}`);
    const staging = old.filter((s) => !named.has(s.sha));
    if (pins.size === 0 && staging.length === 0) return [];
    const externals = await unusedExternalPins(repo, named);
    await deleteRefs(repo, [...pins, ...staging.map((s) => s.ref), ...externals]);
    await pruneQuarantine(repo);
    await deps.gitStore.quarantineChanged(marketplaceId);
    return staging;
  });
  return locked.acquired ? { busy: false, staging: locked.value } : { busy: true, staging: [] };
}

/** Records each purge (A's decision: only a snapshot soft-deleted past its purgeAfter); counts those recorded. */
async function recordPurges(
  deps: CompactionPorts,
  purging: readonly PurgeCandidate[],
  meta: CommandMeta,
  log: Ports['logger'],
): Promise<number> {
  let acted = 0;
  for (const candidate of purging) {
    try {
      if ((await recordPurge(deps, candidate.id, { ...meta, at: deps.clock.instant() })) !== null) acted += 1;
    } catch (error) {
      if (!(error instanceof Rejected)) throw error;
      log.warn({ snapshotId: candidate.id, problem: error.rejection.code }, 'purge refused; the snapshot is kept');
    }
  }
  return acted;
}

async function recordStagingSweep(
  deps: CompactionPorts,
  refs: readonly SweptStagingRef[],
  meta: CommandMeta,
): Promise<void> {
  const swept = fact('staging-refs-swept', {
    refs,
    maxAgeMs: deps.retention.stagingRefMaxAgeMs,
    sweptAt: deps.clock.instant(),
  });
  const { position } = await appendFacts(deps.store, streams.compaction(), [swept], metadataOf(meta), 'any');
  await deps.waiter.waitFor(position, ['ledger']);
}

/**
 * Deliveries delivered or failed and last updated more than 30 days ago are swept; pending
 * ones never. Recorded as webhook-deliveries-swept, which the deliveries reactor (their only writer) applies.
 */
async function sweepDeliveries(deps: CompactionPorts, meta: CommandMeta): Promise<number> {
  const before = new Date(deps.clock.now().getTime() - deliveryRetentionMs).toISOString();
  await deps.waiter.waitFor(await deps.store.head(), ['webhook-deliveries']);
  const count = await sweepableDeliveries(deps.pool, before);
  if (count === 0) return 0;
  const swept = fact('webhook-deliveries-swept', { before, count });
  const { position } = await appendFacts(deps.store, streams.compaction(), [swept], metadataOf(meta), 'any');
  await deps.waiter.waitFor(position, ['webhook-deliveries', 'ledger']);
  return count;
}

function groupBy<T, K>(items: readonly T[], key: (item: T) => K): Map<K, T[]> {
  const groups = new Map<K, T[]>();
  for (const item of items) groups.set(key(item), [...(groups.get(key(item)) ?? []), item]);
  return groups;
}
