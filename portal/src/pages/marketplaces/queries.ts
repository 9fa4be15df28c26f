// What the marketplace pages derive from the one marketplace list (api/marketplaces.ts): the detail page
// picks its marketplace out of the same cached answer.
import type { Marketplace, Snapshot } from '../../api/marketplaces';

export { marketplacesKey, marketplacesQuery, type Marketplace, type Snapshot } from '../../api/marketplaces';

export type SyncMode = Marketplace['syncMode'];

/** Upstream (read from a clone URL) or hosted (publishers push to /publish/{name}). */
export const originOf = (m: Marketplace): 'upstream' | 'hosted' => (m.url === null ? 'hosted' : 'upstream');

/** Live snapshots (soft-deleted ones left out), newest first. */
export const liveSnapshots = (m: Marketplace): Snapshot[] =>
  m.snapshots.filter((s) => !s.deleted_at).sort((a, b) => b.id - a.id);

export const heldCount = (m: Marketplace): number =>
  m.snapshots.reduce((n, s) => (s.state === 'held' && !s.deleted_at ? n + 1 : n), 0);

/** The snapshot whose commit is served now, when one is. */
export const servedSnapshot = (m: Marketplace): Snapshot | undefined =>
  m.servedSha ? m.snapshots.find((s) => s.sha === m.servedSha && s.state === 'approved') : undefined;

/**
 * A snapshot the ingest itself captured as rejected (its marketplace.json broke the manifest rules: not valid
 * JSON, no plugins array, a source outside the repository…): rejected with its violation and never decided
 * by anyone. A reviewer's rejection carries decidedBy and decidedAt.
 */
export const rejectedAtIngest = (s: Snapshot): boolean => s.state === 'rejected' && s.decidedAt === null;

/** The newest live snapshot: what the last ingest that captured a commit made of it. */
export const newestSnapshot = (m: Marketplace): Snapshot | undefined => liveSnapshots(m)[0];

/** The newest live snapshot when the ingest rejected it, and the last ingest did not fail since. */
export const ingestRejection = (m: Marketplace): Snapshot | undefined => {
  const newest = newestSnapshot(m);
  return newest && rejectedAtIngest(newest) && m.lastIngestOutcome !== 'failed' ? newest : undefined;
};

export const marketplaceStatuses = [
  'ingest-failed',
  'ingest-rejected',
  'awaiting-review',
  'served',
  'not-served',
  'never-ingested',
] as const;
export type MarketplaceStatus = (typeof marketplaceStatuses)[number];

/**
 * What the marketplace amounts to now, from the list answer alone, the first that holds: the last ingest
 * failed; the newest snapshot was rejected at ingest; a snapshot waits for review; a commit is served;
 * snapshots exist but none is served or waiting (all rejected or revoked); nothing was ever ingested.
 */
export function marketplaceStatus(m: Marketplace): MarketplaceStatus {
  if (m.lastIngestOutcome === 'failed') return 'ingest-failed';
  if (ingestRejection(m)) return 'ingest-rejected';
  if (heldCount(m) > 0) return 'awaiting-review';
  if (m.servedSha) return 'served';
  return liveSnapshots(m).length > 0 || m.lastIngestAt ? 'not-served' : 'never-ingested';
}

export const syncModes: ReadonlyArray<{ mode: SyncMode; label: string }> = [
  { mode: 'on-demand', label: 'On demand (ingest now only)' },
  { mode: 'scheduled', label: 'Scheduled (gateway.sync.schedule)' },
  { mode: 'webhook', label: 'Webhook (the forge calls the gateway)' },
];
