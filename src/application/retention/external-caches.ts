// Compaction's prune of the external plugin caches (docs/retention.md, Compaction). A cache holds the
// commits and plugin trees of one external repository an ingest resolved; what quarantine needs is copied
// out of it, so it only speeds up the next ingest. One that no live snapshot's marketplace file names and
// that nothing used for gateway.housekeeping.external-cache-max-age is removed.
import { appendFacts } from '../../adapters/eventstore/append-facts.ts';
import {
  externalCachePath,
  externalCaches,
  removeExternalCache,
  type ExternalCacheEntry,
} from '../../adapters/git/external-cache.ts';
import { fact } from '../../domain/events.ts';
import type { CommandMeta } from '../../domain/kernel/decider.ts';
import { streams } from '../../domain/kernel/streams.ts';
import { manifestPath, readManifest } from '../../domain/plugin/manifest-policy.ts';
import { liveUpstreamCommits } from '../../projections/snapshots/purge.queries.ts';
import type { Ports } from '../kernel/ports.ts';
import { metadataOf } from '../kernel/run-command.ts';

export type ExternalCachePorts = Pick<Ports, 'store' | 'waiter' | 'pool' | 'clock' | 'gitStore' | 'housekeeping'>;

/** A marketplace file larger than this names nothing here (the ingest refuses larger ones anyway). */
const maxManifestBytes = 16 * 1024 * 1024;

/**
 * The caches the marketplace files of the live snapshots name, as paths: one read of the file per distinct
 * upstream commit. A commit whose file cannot be read names nothing (its cache, if any, is only a cache).
 */
async function namedCaches(deps: ExternalCachePorts): Promise<Set<string>> {
  const named = new Set<string>();
  for (const [marketplaceId, commits] of await liveUpstreamCommits(deps.pool)) {
    const repo = deps.gitStore.quarantinePath(marketplaceId);
    for (const commit of commits) {
      const bytes = await deps.gitStore.readFile(repo, commit, manifestPath, maxManifestBytes);
      const reading = readManifest(bytes === null ? null : bytes.toString('utf8'));
      if (reading.ok)
        for (const external of reading.externals) named.add(externalCachePath(deps.gitStore.root, external.url));
    }
  }
  return named;
}

/** Removes the stale caches no live snapshot names and records them (external-caches-pruned); answers how many. */
export async function pruneExternalCaches(deps: ExternalCachePorts, meta: CommandMeta): Promise<number> {
  const maxAgeMs = deps.housekeeping.externalCacheMaxAgeMs;
  if (maxAgeMs <= 0) return 0;
  const before = deps.clock.now().getTime() - maxAgeMs;
  const stale = (await externalCaches(deps.gitStore.root)).filter((c) => c.lastUsed.getTime() < before);
  if (stale.length === 0) return 0;
  await deps.waiter.waitFor(await deps.store.head(), ['snapshots']);
  const named = await namedCaches(deps);
  const removed: ExternalCacheEntry[] = [];
  for (const cache of stale.filter((c) => !named.has(c.path)))
    if (await removeExternalCache(cache)) removed.push(cache);
  if (removed.length === 0) return 0;
  const caches = removed.map((c) => /([0-9a-f]{64})\.git$/.exec(c.path)![1]!);
  const pruned = fact('external-caches-pruned', { caches, maxAgeMs, prunedAt: deps.clock.instant() });
  const { position } = await appendFacts(deps.store, streams.compaction(), [pruned], metadataOf(meta), 'any');
  await deps.waiter.waitFor(position, ['ledger']);
  return removed.length;
}
