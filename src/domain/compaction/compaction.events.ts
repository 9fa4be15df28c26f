import type { Event, Instant } from '../kernel/decider.ts';

/** One abandoned staging ref a compaction pass removed from a marketplace's quarantine repository. */
export type SweptStagingRef = Readonly<{ marketplaceId: number; ref: string; sha: string; createdAt: Instant }>;

/**
 * Abandoned staging references (left by an ingest cut off mid-fetch) are removed when no
 * live snapshot row names their commit and they have been observed longer than staging-ref-max-age.
 * One fact per compaction pass that removed any.
 */
export type StagingRefsSwept = Event<
  'staging-refs-swept',
  { refs: readonly SweptStagingRef[]; maxAgeMs: number; sweptAt: Instant }
>;

/**
 * Webhook deliveries delivered or failed and last updated before `before` (30 days before the
 * pass) are swept; pending ones never. The deliveries reactor deletes them when it applies this fact;
 * `count` is how many the pass saw. One fact per compaction pass that found any.
 */
export type WebhookDeliveriesSwept = Event<'webhook-deliveries-swept', { before: Instant; count: number }>;

/**
 * Caches of external plugin repositories (`<git root>/external-cache/<id>.git`, the id the SHA-256 of the
 * repository's URL) that no live snapshot's marketplace file names and that were last used more than
 * `maxAgeMs` before the pass are removed: they are caches, what quarantine needs was copied out of them.
 * One fact per compaction pass that removed any.
 */
export type ExternalCachesPruned = Event<
  'external-caches-pruned',
  { caches: readonly string[]; maxAgeMs: number; prunedAt: Instant }
>;

export type CompactionEvent = StagingRefsSwept | WebhookDeliveriesSwept | ExternalCachesPruned;

/** The ledger entry's detail of a staging-ref sweep: how many, and which (marketplace id, ref, commit). */
export function stagingSweepDetail(d: StagingRefsSwept['data']): string {
  const shown = d.refs.slice(0, 20).map((r) => `${r.marketplaceId}:${r.ref}@${r.sha.slice(0, 12)}`);
  const more = d.refs.length > shown.length ? ` and ${d.refs.length - shown.length} more` : '';
  return `${d.refs.length} abandoned staging refs removed: ${shown.join(', ')}${more}`;
}

/** The ledger entry's detail of a delivery sweep. */
export const deliverySweepDetail = (d: WebhookDeliveriesSwept['data']): string =>
  `${d.count} delivered or failed webhook deliveries last updated before ${d.before} removed`;

/** The ledger entry's detail of an external-cache prune: how many, and which (their ids, shortened). */
export function externalCachesDetail(d: ExternalCachesPruned['data']): string {
  const shown = d.caches.slice(0, 20).map((id) => id.slice(0, 12));
  const more = d.caches.length > shown.length ? ` and ${d.caches.length - shown.length} more` : '';
  return `${d.caches.length} external repository caches no live snapshot names, unused for ${Math.round(d.maxAgeMs / 1000)} s or more, removed: ${shown.join(', ')}${more}`;
}
