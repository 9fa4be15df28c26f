// The marketplace list as every page of this section reads it: GET /api/v1/marketplaces answers all live
// marketplaces with their snapshots (spec: "no per-marketplace endpoint exists"), so the detail page picks
// its marketplace out of the same cached answer.
import { api, data, type Body } from '../../api/client';

export type Marketplace = Body<'/api/v1/marketplaces', 'get'>[number];
export type Snapshot = Marketplace['snapshots'][number];
export type SyncMode = Marketplace['syncMode'];

export const marketplacesKey = ['marketplaces'] as const;

export const marketplacesQuery = () => ({
  queryKey: marketplacesKey,
  queryFn: () => data(api.GET('/api/v1/marketplaces')),
});

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
