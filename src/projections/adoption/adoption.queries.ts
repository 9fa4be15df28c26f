import { z } from 'zod';
import { sql, type CommonQueryMethods } from '../../adapters/postgres/pool.ts';

export type SnapshotAdoptionRow = Readonly<{
  marketplace: string;
  sha: string;
  fetches: number;
  identities: number;
  lastFetch: string;
}>;

const SnapshotRow = z.object({
  marketplace: z.string(),
  sha: z.string(),
  fetches: z.bigint(),
  identities: z.bigint(),
  last_fetch: z.string(),
});

/** `since` is a UTC day (YYYY-MM-DD): fetches on it or later are in the window. */
export async function snapshotAdoption(db: CommonQueryMethods, since: string): Promise<SnapshotAdoptionRow[]> {
  const rows = await db.any(sql.type(SnapshotRow)`
    with f as (
      select marketplace, sha, sum(fetches)::bigint as fetches, max(last_fetch) as last_fetch
      from adoption_daily where day >= ${since}::date group by marketplace, sha
    ), i as (
      select marketplace, sha, sum(identities)::bigint as identities from adoption_identity_days
      where day >= ${since}::date group by marketplace, sha
    )
    select f.marketplace, f.sha, f.fetches, coalesce(i.identities, 0)::bigint as identities, f.last_fetch
    from f left join i using (marketplace, sha)
    order by f.marketplace, f.last_fetch desc, f.sha`);
  return rows.map((r) => ({
    marketplace: r.marketplace,
    sha: r.sha,
    fetches: Number(r.fetches),
    identities: Number(r.identities),
    lastFetch: r.last_fetch,
  }));
}

const IdentitiesRow = z.object({ marketplace: z.string(), identities: z.bigint() });

/** Distinct principals per marketplace whose latest fetch of it is in the window. */
export async function marketplaceIdentities(db: CommonQueryMethods, since: string): Promise<Map<string, number>> {
  const rows = await db.any(sql.type(IdentitiesRow)`
    select marketplace, count(*)::bigint as identities from adoption_latest
    where last_fetch >= (${since}::date)::timestamp at time zone 'UTC' group by marketplace`);
  return new Map(rows.map((r) => [r.marketplace, Number(r.identities)]));
}

export type LatestFetchRow = Readonly<{ principal: string; marketplace: string; sha: string; lastFetch: string }>;

const LatestRow = z.object({ principal: z.string(), marketplace: z.string(), sha: z.string(), last_fetch: z.string() });

/**
 * Each principal's latest content-transferring fetch of a marketplace that did not take `served` (the
 * marketplace's served tip; a marketplace absent from it serves nothing, so every fetch of it is stale).
 */
export async function staleFetches(
  db: CommonQueryMethods,
  served: ReadonlyMap<string, string>,
): Promise<LatestFetchRow[]> {
  const tips = JSON.stringify([...served].map(([marketplace, sha]) => ({ marketplace, sha })));
  const rows = await db.any(sql.type(LatestRow)`
    select l.principal, l.marketplace, l.shas[1] as sha, l.last_fetch
    from adoption_latest l
    left join jsonb_to_recordset(${tips}::jsonb) as s(marketplace text, sha text) using (marketplace)
    where s.sha is null or not (s.sha = any(l.shas))
    order by l.marketplace, l.principal`);
  return rows.map((r) => ({ principal: r.principal, marketplace: r.marketplace, sha: r.sha, lastFetch: r.last_fetch }));
}
