import { z } from 'zod';
import { sql, type CommonQueryMethods } from '../../adapters/postgres/pool.ts';

/** A soft-deleted snapshot whose purgeAfter has passed: what compaction purges. */
export type PurgeCandidate = Readonly<{ id: number; marketplaceId: number; sha: string; upstreamSha: string }>;

const CandidateRow = z.object({
  id: z.bigint(),
  marketplace_id: z.bigint(),
  sha: z.string(),
  upstream_sha: z.string(),
});

/**
 * Deletion (docs/retention.md): SoftDeleted → Purged on a compaction pass once purgeAfter has elapsed. A withdrawn row
 * stays after its purge; its trace in purged_snapshots keeps it from being selected again.
 */
export async function purgeCandidates(db: CommonQueryMethods, at: string): Promise<PurgeCandidate[]> {
  const rows = await db.any(sql.type(CandidateRow)`
    select s.id, s.marketplace_id, s.sha, s.upstream_sha from snapshots s
    where s.deleted_at is not null and s.purge_after <= ${at}::timestamptz
      and not exists (select 1 from purged_snapshots p where p.id = s.id)
    order by s.marketplace_id, s.id`);
  return rows.map((r) => ({
    id: Number(r.id),
    marketplaceId: Number(r.marketplace_id),
    sha: r.sha,
    upstreamSha: r.upstream_sha,
  }));
}

/**
 * The commits the live snapshot rows of a marketplace name (captured or upstream), leaving out the ids in
 * `except` (those a pass is purging) and purged withdrawn rows: a quarantine or staging ref naming one stays.
 */
export async function namedCommits(
  db: CommonQueryMethods,
  marketplaceId: number,
  except: readonly number[] = [],
): Promise<Set<string>> {
  const rows = await db.any(sql.type(z.object({ sha: z.string(), upstream_sha: z.string() }))`
    select s.sha, s.upstream_sha from snapshots s
    where s.marketplace_id = ${marketplaceId} and s.id <> all(${sql.array([...except], 'int8')})
      and not exists (select 1 from purged_snapshots p where p.id = s.id)`);
  return new Set(rows.flatMap((r) => [r.sha, r.upstream_sha]));
}

/** The upstream commit of every snapshot row not purged, by marketplace (the commits whose marketplace files still count). */
export async function liveUpstreamCommits(db: CommonQueryMethods): Promise<Map<number, string[]>> {
  const rows = await db.any(sql.type(z.object({ marketplace_id: z.bigint(), upstream_sha: z.string() }))`
    select distinct s.marketplace_id, s.upstream_sha from snapshots s
    where not exists (select 1 from purged_snapshots p where p.id = s.id)
    order by s.marketplace_id, s.upstream_sha`);
  const byMarketplace = new Map<number, string[]>();
  for (const row of rows) {
    const id = Number(row.marketplace_id);
    byMarketplace.set(id, [...(byMarketplace.get(id) ?? []), row.upstream_sha]);
  }
  return byMarketplace;
}
