import { z } from 'zod';
import { sql, type CommonQueryMethods } from '../../adapters/postgres/pool.ts';
import type { UnresolvedSource } from '../../domain/plugin/manifest-policy.ts';
import type { LeftOut } from '../../domain/snapshot/selection.ts';
import type { SnapshotState } from '../../domain/kernel/snapshot-state.ts';
import { maybeRecord } from '../rows.ts';

const SnapshotRow = z.object({
  id: z.bigint(),
  marketplace_id: z.bigint(),
  sha: z.string(),
  upstream_sha: z.string(),
  state: z.enum(['held', 'approved', 'rejected', 'revoked']),
  violation: z.string().nullable(),
  created_at: z.string(),
  ingested_by: z.string().nullable(),
  decided_by: z.string().nullable(),
  decided_at: z.string().nullable(),
  decision_reason: z.string().nullable(),
  approved_at: z.string().nullable(),
  revoked_by: z.string().nullable(),
  revoked_at: z.string().nullable(),
  administrative: z.boolean(),
  deleted_at: z.string().nullable(),
  deleted_reason: z.string().nullable(),
  purge_after: z.string().nullable(),
  unresolved: z.unknown(),
  left_out: z.unknown(),
});

export type SnapshotRecord = Readonly<{
  id: number;
  marketplaceId: number;
  sha: string;
  upstreamSha: string;
  state: SnapshotState;
  violation: string | null;
  createdAt: string;
  ingestedBy: string | null;
  decidedBy: string | null;
  decidedAt: string | null;
  /** The reviewer's reason for a rejection, or the administrator's for approving over a blocked outcome. */
  decisionReason: string | null;
  approvedAt: string | null;
  revokedBy: string | null;
  revokedAt: string | null;
  administrative: boolean;
  deletedAt: string | null;
  deletedReason: string | null;
  purgeAfter: string | null;
  /** Plugins withheld from this snapshot: their external source could not be read. */
  unresolved: readonly UnresolvedSource[];
  /** Plugins the marketplace's selection left out of this snapshot (curation). */
  leftOut: readonly LeftOut[];
}>;

const columns = sql.fragment`id, marketplace_id, sha, upstream_sha, state, violation, created_at, ingested_by, decided_by, decided_at,
  decision_reason, approved_at, revoked_by, revoked_at, administrative, deleted_at, deleted_reason, purge_after, unresolved, left_out`;

// jsonb may come back parsed or as text, depending on the driver's parsers: accept both.
const json = <T>(value: unknown): T => (typeof value === 'string' ? JSON.parse(value) : value) as T;

const toRecord = (r: z.infer<typeof SnapshotRow>): SnapshotRecord => ({
  id: Number(r.id),
  marketplaceId: Number(r.marketplace_id),
  sha: r.sha,
  upstreamSha: r.upstream_sha,
  state: r.state,
  violation: r.violation,
  createdAt: r.created_at,
  ingestedBy: r.ingested_by,
  decidedBy: r.decided_by,
  decidedAt: r.decided_at,
  decisionReason: r.decision_reason,
  approvedAt: r.approved_at,
  revokedBy: r.revoked_by,
  revokedAt: r.revoked_at,
  administrative: r.administrative,
  deletedAt: r.deleted_at,
  deletedReason: r.deleted_reason,
  purgeAfter: r.purge_after,
  unresolved: json<UnresolvedSource[]>(r.unresolved),
  leftOut: json<LeftOut[]>(r.left_out),
});

export async function snapshotById(db: CommonQueryMethods, id: number): Promise<SnapshotRecord | null> {
  return maybeRecord(db, sql.type(SnapshotRow)`select ${columns} from snapshots where id = ${id}`, toRecord);
}

/** A purged snapshot's trace (its row is gone): where it was, and when it left. */
export async function purgedSnapshotById(
  db: CommonQueryMethods,
  id: number,
): Promise<Readonly<{ id: number; marketplaceId: number; sha: string; purgedAt: string }> | null> {
  const row = await db.maybeOne(
    sql.type(
      z.object({ id: z.bigint(), marketplace_id: z.bigint(), sha: z.string(), purged_at: z.string() }),
    )`select id, marketplace_id, sha, purged_at from purged_snapshots where id = ${id}`,
  );
  return row
    ? { id: Number(row.id), marketplaceId: Number(row.marketplace_id), sha: row.sha, purgedAt: row.purged_at }
    : null;
}

export async function snapshotsOf(
  db: CommonQueryMethods,
  marketplaceIds: readonly number[],
): Promise<SnapshotRecord[]> {
  if (marketplaceIds.length === 0) return [];
  const rows = await db.any(sql.type(SnapshotRow)`
    select ${columns} from snapshots where marketplace_id = any(${sql.array([...marketplaceIds], 'int8')}) order by id`);
  return rows.map(toRecord);
}

/** What publication converges a marketplace to: its approved commits and the tip it means to serve. */
export async function publicationTarget(
  db: CommonQueryMethods,
  marketplaceId: number,
): Promise<{ approved: string[]; tip: string | null }> {
  const approved = await db.anyFirst(sql.type(z.object({ sha: z.string() }))`
    select distinct sha from snapshots where marketplace_id = ${marketplaceId} and state = 'approved' order by sha`);
  const tip = await db.maybeOneFirst(sql.type(z.object({ sha: z.string() }))`
    select s.sha from served_tips t join snapshots s on s.id = t.snapshot_id
    where t.marketplace_id = ${marketplaceId} and s.state = 'approved'`);
  return { approved: [...approved], tip };
}

/**
 * Commits withdrawn administratively under a marketplace name (the approve gate refuses them): a
 * removed marketplace takes no more decisions, so the rule bites when the name is registered again.
 */
export async function withdrawnShas(db: CommonQueryMethods, marketplace: string): Promise<string[]> {
  return [
    ...(await db.anyFirst(sql.type(z.object({ sha: z.string() }))`
    select distinct s.sha from snapshots s join marketplaces m on m.id = s.marketplace_id
    where m.name = ${marketplace} and s.administrative`)),
  ];
}

const HoldingRow = z.object({
  marketplace: z.string(),
  sha: z.string(),
  state: z.enum(['held', 'approved', 'rejected', 'revoked']),
  revoked_at: z.string().nullable(),
  was_revoked: z.boolean(),
  live: z.boolean(),
});

/**
 * Every capture of each (marketplace name, commit) pair, live or removed (administrative
 * withdrawals stay answerable after removal), for the holdings check: one query however many pairs,
 * each row naming the pair it answers; a pair nothing matches has no row. The planner cannot
 * estimate the unnest and would scan every snapshot; `sha = any(...)` lets it probe snapshots_sha.
 */
export async function capturesOfPairs(
  db: CommonQueryMethods,
  pairs: ReadonlyArray<Readonly<{ marketplace: string; sha: string }>>,
) {
  if (pairs.length === 0) return [];
  const names = sql.array(
    pairs.map((p) => p.marketplace),
    'text',
  );
  const shas = sql.array(
    pairs.map((p) => p.sha),
    'text',
  );
  return db.any(sql.type(HoldingRow)`
    select h.marketplace, h.sha, s.state, s.revoked_at, s.was_revoked, m.removed_at is null as live
    from unnest(${names}, ${shas}) as h(marketplace, sha)
    join marketplaces m on m.name = h.marketplace
    join snapshots s on s.marketplace_id = m.id and s.sha = h.sha
    where s.sha = any(${shas})`);
}
