import { z } from 'zod';
import { sql, type CommonQueryMethods } from '../../adapters/postgres/pool.ts';

const MarketplaceRow = z.object({
  id: z.bigint(),
  name: z.string(),
  origin: z.string(),
  url: z.string().nullable(),
  push_policy: z.string().nullable(),
  created_at: z.string(),
  registered_by: z.string().nullable(),
});

export type MarketplaceRecord = Readonly<{
  id: number; name: string; origin: string; url: string | null; pushPolicy: string | null;
  createdAt: string; registeredBy: string | null;
}>;

const toRecord = (row: z.infer<typeof MarketplaceRow>): MarketplaceRecord => ({
  id: Number(row.id),
  name: row.name,
  origin: row.origin,
  url: row.url,
  pushPolicy: row.push_policy,
  createdAt: row.created_at,
  registeredBy: row.registered_by,
});

export async function liveMarketplaces(db: CommonQueryMethods): Promise<MarketplaceRecord[]> {
  const rows = await db.any(sql.type(MarketplaceRow)`
    select id, name, origin, url, push_policy, created_at, registered_by
    from marketplaces where removed_at is null order by name`);
  return rows.map(toRecord);
}

export async function liveMarketplaceByName(db: CommonQueryMethods, name: string): Promise<MarketplaceRecord | null> {
  const row = await db.maybeOne(sql.type(MarketplaceRow)`
    select id, name, origin, url, push_policy, created_at, registered_by
    from marketplaces where removed_at is null and name = ${name}`);
  return row ? toRecord(row) : null;
}
