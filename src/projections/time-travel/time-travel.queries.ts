import { z } from 'zod';
import { sql, type CommonQueryMethods } from '../../adapters/postgres/pool.ts';

/** What a marketplace served at refs/heads/main at an instant, and since when (null: nothing). */
export type ServedAt = Readonly<{
  marketplace: string;
  marketplaceId: number;
  sha: string | null;
  snapshotId: number | null;
  since: string | null;
}>;
export type CatalogServedAt = Readonly<{ name: string; sha: string | null; since: string }>;

const ServedRow = z.object({
  marketplace: z.string(),
  marketplace_id: z.coerce.number(),
  sha: z.string().nullable(),
  snapshot_id: z.coerce.number().nullable(),
  since: z.string().nullable(),
});

/**
 * Every marketplace registered by `at` and not removed by then, with the last change of its served
 * commit recorded by `at` (none: it served nothing yet), in name order.
 */
export async function servedAt(db: CommonQueryMethods, at: string): Promise<ServedAt[]> {
  const rows = await db.any(sql.type(ServedRow)`
    select m.name as marketplace, m.marketplace_id, s.sha, s.snapshot_id, s.ts as since
    from time_travel_marketplaces m
    left join lateral (
      select sha, snapshot_id, ts from time_travel_served
      where marketplace_id = m.marketplace_id and ts <= ${at}::timestamptz order by position desc limit 1
    ) s on true
    where m.registered_at <= ${at}::timestamptz and (m.removed_at is null or m.removed_at > ${at}::timestamptz)
    order by m.name, m.marketplace_id`);
  return rows.map((r) => ({
    marketplace: r.marketplace,
    marketplaceId: r.marketplace_id,
    sha: r.sha,
    snapshotId: r.sha === null ? null : r.snapshot_id,
    since: r.since,
  }));
}

const CatalogRow = z.object({ marketplace: z.string(), sha: z.string().nullable(), since: z.string() });

/** The catalog's last revision recorded by `at` (sha null: withdrawn); null when none was built by then. */
export async function catalogServedAt(db: CommonQueryMethods, at: string): Promise<CatalogServedAt | null> {
  const row = await db.maybeOne(sql.type(CatalogRow)`
    select marketplace, sha, ts as since from time_travel_served
    where marketplace_id is null and ts <= ${at}::timestamptz order by position desc limit 1`);
  return row === null ? null : { name: row.marketplace, sha: row.sha, since: row.since };
}

export type TimeTravelSnapshot = Readonly<{ id: number; marketplaceId: number; marketplace: string; sha: string }>;

const SnapshotRow = z.object({
  snapshot_id: z.coerce.number(),
  marketplace_id: z.coerce.number(),
  marketplace: z.string(),
  sha: z.string(),
});

/** A snapshot as its capture recorded it (kept after a purge: the history outlives the row). */
export async function capturedSnapshot(db: CommonQueryMethods, id: number): Promise<TimeTravelSnapshot | null> {
  const row = await db.maybeOne(sql.type(SnapshotRow)`
    select snapshot_id, marketplace_id, marketplace, sha from time_travel_snapshots where snapshot_id = ${id}`);
  return row && { id: row.snapshot_id, marketplaceId: row.marketplace_id, marketplace: row.marketplace, sha: row.sha };
}

export const holderRoutes = ['marketplace', 'catalog'] as const;
export type HolderRoute = (typeof holderRoutes)[number];

export type Holder = Readonly<{
  principal: string;
  firstFetch: string;
  lastFetch: string;
  fetches: number;
  credentialKinds: string[];
  via: HolderRoute[];
}>;

const HolderRow = z.object({
  principal: z.string(),
  first_fetch: z.string(),
  last_fetch: z.string(),
  fetches: z.coerce.number(),
  credential_kinds: z.array(z.string()),
  via: z.array(z.enum(holderRoutes)),
});

/**
 * Who had fetched a snapshot's commit by `at`: upload-pack wants of that commit from its own marketplace,
 * and wants of a catalog revision built from it (its catalog-rebuilt constituents name the marketplace,
 * live under that name then, and the commit). One row per principal, in principal order.
 */
export async function holdersAt(db: CommonQueryMethods, snapshot: TimeTravelSnapshot, at: string): Promise<Holder[]> {
  const rows = await db.any(sql.type(HolderRow)`
    with fetched as (
      select principal, ts, credential_kind, 'marketplace' as via from time_travel_fetches
      where sha = ${snapshot.sha} and marketplace = ${snapshot.marketplace}
        and marketplace_id = ${snapshot.marketplaceId} and ts <= ${at}::timestamptz
      union all
      select f.principal, f.ts, f.credential_kind, 'catalog' as via from time_travel_fetches f
      join time_travel_catalog_constituents c on c.catalog_sha = f.sha and f.marketplace_id is null
      where c.marketplace_id = ${snapshot.marketplaceId} and c.sha = ${snapshot.sha} and f.ts <= ${at}::timestamptz
    )
    select principal, min(ts) as first_fetch, max(ts) as last_fetch, count(*) as fetches,
      array_agg(distinct credential_kind order by credential_kind) as credential_kinds,
      array_agg(distinct via order by via desc) as via
    from fetched group by principal order by principal`);
  return rows.map((r) => ({
    principal: r.principal,
    firstFetch: r.first_fetch,
    lastFetch: r.last_fetch,
    fetches: r.fetches,
    credentialKinds: r.credential_kinds,
    via: r.via,
  }));
}
