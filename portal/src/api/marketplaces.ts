// The marketplace list, as every section reads it: GET /api/v1/marketplaces answers all live marketplaces with
// their snapshots (there is no per-marketplace read), so one cached answer under one key serves the
// list, a marketplace's page, the overview, the review queue, token scopes and the policy playground.
// Queries and what is derived from their answers live here, in api/, once more than one section reads
// them; a section's own stay in its queries.ts.
import { api, data, type Body } from './client';

export type Marketplace = Body<'/api/v1/marketplaces', 'get'>[number];
export type Snapshot = Marketplace['snapshots'][number];

export const marketplacesKey = ['marketplaces'] as const;

export const marketplacesQuery = () => ({
  queryKey: marketplacesKey,
  queryFn: () => data(api.GET('/api/v1/marketplaces')),
});

/** Where git and Claude Code fetch a marketplace through the gateway: every copyable client URL ends in `.git`. */
export const cloneUrl = (origin: string, marketplace: string): string => `${origin}/git/${marketplace}.git`;

/** Live snapshots (soft-deleted ones left out), newest first. */
export const liveSnapshots = (m: Marketplace): Snapshot[] =>
  m.snapshots.filter((s) => !s.deleted_at).sort((a, b) => b.id - a.id);

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

/** The marketplaces whose newest snapshot the ingest rejected, with that snapshot, newest first. */
export const ingestRejections = (
  marketplaces: readonly Marketplace[],
): Array<Readonly<{ marketplace: Marketplace; snapshot: Snapshot }>> =>
  marketplaces
    .flatMap((marketplace) => {
      const snapshot = ingestRejection(marketplace);
      return snapshot ? [{ marketplace, snapshot }] : [];
    })
    .sort((a, b) => b.snapshot.id - a.snapshot.id);
