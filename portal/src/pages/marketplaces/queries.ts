// What the marketplace pages derive from the one marketplace list (api/marketplaces.ts): the detail page
// picks its marketplace out of the same cached answer.
import { ingestRejection, liveSnapshots, type Marketplace } from '../../api/marketplaces';

export {
  ingestRejection,
  liveSnapshots,
  marketplacesKey,
  marketplacesQuery,
  rejectedAtIngest,
  type Marketplace,
  type Snapshot,
} from '../../api/marketplaces';

export type SyncMode = Marketplace['syncMode'];

/** Upstream (read from a clone URL) or hosted (publishers push to /publish/{name}). */
export const originOf = (m: Marketplace): 'upstream' | 'hosted' => (m.url === null ? 'hosted' : 'upstream');

export const heldCount = (m: Marketplace): number =>
  m.snapshots.reduce((n, s) => (s.state === 'held' && !s.deleted_at ? n + 1 : n), 0);

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
