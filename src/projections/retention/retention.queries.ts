// What a retention pass reads: the snapshot rows (snapshots and marketplaces read models, removed marketplaces
// included: their withdrawn rows are reclaimable) and the facade's fetch recency (the adoption read model,
// never the ledger). Two queries per pass, whatever the estate's size.
import { z } from 'zod';
import { sql, type CommonQueryMethods } from '../../adapters/postgres/pool.ts';
import type { RetentionSubject } from '../../domain/retention/retention-criteria.ts';

const SubjectRow = z.object({
  id: z.bigint(),
  marketplace_id: z.bigint(),
  marketplace: z.string(),
  sha: z.string(),
  state: z.enum(['held', 'approved', 'rejected', 'revoked']),
  created_at: z.string(),
  administrative: z.boolean(),
  deleted: z.boolean(),
});

/**
 * Every snapshot row, of every marketplace (live or removed) or of those named `name`, in capture order:
 * whole marketplaces, so "a later approved snapshot of the same marketplace" is always among them.
 */
export async function retentionSubjects(db: CommonQueryMethods, name: string | null): Promise<RetentionSubject[]> {
  const rows = await db.any(sql.type(SubjectRow)`
    select s.id, s.marketplace_id, m.name as marketplace, s.sha, s.state, s.created_at, s.administrative,
      s.deleted_at is not null as deleted
    from snapshots s join marketplaces m on m.id = s.marketplace_id
    ${name === null ? sql.fragment`` : sql.fragment`where m.name = ${name}`}
    order by s.id`);
  return rows.map((r) => ({
    snapshotId: Number(r.id),
    marketplaceId: Number(r.marketplace_id),
    marketplace: r.marketplace,
    sha: r.sha,
    state: r.state,
    capturedAt: r.created_at,
    withdrawn: r.administrative,
    deleted: r.deleted,
  }));
}

/** Whether any marketplace, live or removed, was ever registered under `name`. */
export async function marketplaceNameKnown(db: CommonQueryMethods, name: string): Promise<boolean> {
  return db.exists(sql.unsafe`select 1 from marketplaces where name = ${name}`);
}

const FetchRow = z.object({ marketplace: z.string(), sha: z.string(), last_fetch: z.string() });

/**
 * The latest facade fetch (upload-pack) of each (marketplace name, sha) pair asked for, keyed `name\nsha`; a pair
 * never fetched has no key. One probe of adoption_daily's primary key per pair.
 */
export async function lastFetches(
  db: CommonQueryMethods,
  pairs: ReadonlyArray<Readonly<{ marketplace: string; sha: string }>>,
): Promise<Map<string, string>> {
  if (pairs.length === 0) return new Map();
  const json = JSON.stringify(pairs.map(({ marketplace, sha }) => ({ marketplace, sha })));
  const rows = await db.any(sql.type(FetchRow)`
    select p.marketplace, p.sha, max(d.last_fetch) as last_fetch
    from (select distinct marketplace, sha from jsonb_to_recordset(${json}::jsonb) as x(marketplace text, sha text)) p
    join adoption_daily d on d.marketplace = p.marketplace and d.sha = p.sha
    group by p.marketplace, p.sha`);
  return new Map(rows.map((r) => [`${r.marketplace}\n${r.sha}`, r.last_fetch]));
}
