import { z } from 'zod';
import { sql, type CommonQueryMethods } from '../../adapters/postgres/pool.ts';
import type { LastAttempt } from '../../domain/mirror/mirror-drift.ts';

const TargetRow = z.object({
  name: z.string(),
  marketplace_id: z.bigint().nullable(),
  attempted_at: z.string(),
  outcome: z.enum(['ok', 'failed']),
  error: z.string().nullable(),
});

export type FollowedTarget = Readonly<{ name: string; marketplaceId: number | null; last: LastAttempt }>;

/** Every name the mirror follows (it pushed to it and has not retired it), with its last attempt. */
export async function followedTargets(db: CommonQueryMethods): Promise<FollowedTarget[]> {
  const rows = await db.any(
    sql.type(TargetRow)`select name, marketplace_id, attempted_at, outcome, error from mirror_targets order by name`,
  );
  return rows.map((row) => ({
    name: row.name,
    marketplaceId: row.marketplace_id === null ? null : Number(row.marketplace_id),
    last: { at: row.attempted_at, outcome: row.outcome, error: row.error },
  }));
}

/** Whether a pass has answered the reconcile request `requestId`. */
export async function requestAnswered(db: CommonQueryMethods, requestId: string): Promise<boolean> {
  return db.exists(sql.unsafe`select 1 from mirror_requests where request_id = ${requestId}`);
}
