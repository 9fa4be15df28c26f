// What the overview reads besides the marketplace list: the vetting outcome of the newest held snapshots
// (to tell the blocked ones from those waiting for a decision), the newest ledger entries and adoption
// (auditor or admin only: docs/access.md, Roles).
import { api, data, type Body } from '../../api/client';

export type Vetting = Body<'/api/v1/snapshots/{id}/vetting', 'get'>;
export type Adoption = Body<'/api/v1/adoption', 'get'>[number];

/** How many held snapshots the overview asks the vetting outcome of (one request each). */
export const vettingLookups = 25;
export const recentEntries = 8;
export const adoptionRows = 8;

export const vettingQuery = (id: number) => ({
  queryKey: ['overview', 'vetting', id],
  queryFn: () => data(api.GET('/api/v1/snapshots/{id}/vetting', { params: { path: { id } } })),
});

/**
 * Recent activity: enough of the newest entries to fill its rows with acts rather than entries (one ingest
 * alone writes a verdict per connector), in one request.
 */
export const recentActivityEntries = 100;
export const recentActivityQuery = () => ({
  queryKey: ['audit', 'recent', recentActivityEntries],
  queryFn: () => data(api.GET('/api/v1/audit', { params: { query: { limit: recentActivityEntries } } })),
});

export const adoptionQuery = () => ({
  queryKey: ['overview', 'adoption'],
  queryFn: () => data(api.GET('/api/v1/adoption')),
});
