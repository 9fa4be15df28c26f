// What the review pages read. GET /api/v1/marketplaces answers every live marketplace with its snapshots
// (there is no per-marketplace read), so the queue and a snapshot's marketplace both come from
// that one cached answer (the same query key as the marketplace pages); every other read is per snapshot.
import { api, ApiError, data, type Body } from '../../api/client';
import type { Marketplace, Snapshot } from '../../api/marketplaces';

export { marketplacesKey, marketplacesQuery, type Marketplace, type Snapshot } from '../../api/marketplaces';

export type VettingReport = Body<'/api/v1/snapshots/{id}/vetting', 'get'>;
export type Verdict = NonNullable<VettingReport['run']>['verdicts'][number];
export type Finding = Verdict['findings'][number];
export type Waiver = VettingReport['waivers'][number];
export type Inventory = Body<'/api/v1/snapshots/{id}/content', 'get'>;
export type Plugin = Inventory['plugins'][number];
export type ContentDiff = Body<'/api/v1/snapshots/{id}/content-diff', 'get'>;
export type FileDiff = Body<'/api/v1/snapshots/{id}/diff', 'get'>;

/**
 * A held snapshot waits for a decision (approve and reject start from held or revoked: docs/marketplaces.md, States).
 */
export const awaitsReview = (s: Snapshot): boolean => s.state === 'held' && !s.deleted_at;

export type Located = Readonly<{ marketplace: Marketplace; snapshot: Snapshot }>;

/** The snapshot with this id and its marketplace, from the marketplace list. */
export function locate(marketplaces: readonly Marketplace[], id: number): Located | null {
  for (const marketplace of marketplaces) {
    const snapshot = marketplace.snapshots.find((s) => s.id === id);
    if (snapshot) return { marketplace, snapshot };
  }
  return null;
}

const path = (id: number) => ({ params: { path: { id } } });

export const snapshotKey = (id: number, what: string) => ['snapshot', id, what] as const;

/** What a snapshot answers at GET /api/v1/snapshots/{id}/<what>, each cached under its own name. */
export type SnapshotRead =
  | 'vetting'
  | 'content'
  | 'content-diff'
  | 'diff'
  | 'licenses'
  | 'provenance'
  | 'release-age'
  | 'four-eyes'
  | 'name-collisions';

export type SnapshotAnswer<W extends SnapshotRead> = Body<`/api/v1/snapshots/{id}/${W}`, 'get'>;

export const snapshotQuery = <W extends SnapshotRead>(id: number, what: W) => ({
  queryKey: snapshotKey(id, what),
  // Every such read takes the snapshot's id alone, so the request is the same whichever `what` it is.
  queryFn: () =>
    data(api.GET(`/api/v1/snapshots/{id}/${what as SnapshotRead}`, path(id))) as Promise<SnapshotAnswer<W>>,
});

/** Read again on every visit: the outcome is recomputed from the waivers active at that instant (docs/vetting.md). */
export const vettingQuery = (id: number) => ({ ...snapshotQuery(id, 'vetting'), refetchOnMount: 'always' as const });

export const fileQuery = (id: number, file: string) => ({
  queryKey: snapshotKey(id, `file:${file}`),
  queryFn: () => data(api.GET('/api/v1/snapshots/{id}/file', { params: { path: { id }, query: { path: file } } })),
});

/** A preview read refused for want of standing (previews need the approver of the marketplace, or an admin). */
export const forbidden = (error: unknown): boolean => error instanceof ApiError && error.problem.status === 403;

/** `path:line` of a finding, split; the line is absent when the location names none. */
export function splitLocation(location: string): { path: string; line: number | null } {
  const match = /^(.*):(\d+)$/.exec(location);
  if (!match) return { path: location, line: null };
  return { path: match[1]!, line: Number(match[2]) };
}

/** The file preview of a location, inside the review section: /<id>/file?path=<path>#L<line>. */
export function fileHref(id: number, location: string): string {
  const { path: file, line } = splitLocation(location);
  return `/${String(id)}/file?path=${encodeURIComponent(file)}${line ? `#L${String(line)}` : ''}`;
}

export const severityRank: Readonly<Record<string, number>> = { CRITICAL: 0, HIGH: 1, MEDIUM: 2, LOW: 3, INFO: 4 };
