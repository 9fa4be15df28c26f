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

export const syncModes: ReadonlyArray<{ mode: SyncMode; label: string }> = [
  { mode: 'on-demand', label: 'On demand (ingest now only)' },
  { mode: 'scheduled', label: 'Scheduled (gateway.sync.schedule)' },
  { mode: 'webhook', label: 'Webhook (the forge calls the gateway)' },
];
