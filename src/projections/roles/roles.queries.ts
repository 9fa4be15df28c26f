import { z } from 'zod';
import { sql, type CommonQueryMethods } from '../../adapters/postgres/pool.ts';
import type { Grant } from '../../domain/role/role.decider.ts';

const GrantRow = z.object({
  id: z.bigint(),
  principal: z.string(),
  role: z.enum(['admin', 'approver', 'auditor']),
  marketplace: z.string().nullable(),
  marketplace_id: z.bigint().nullable(),
  granted_by: z.string(),
  granted_at: z.string(),
});

export type GrantRecord = Grant & Readonly<{ grantedBy: string; grantedAt: string }>;

const toRecord = (row: z.infer<typeof GrantRow>): GrantRecord => ({
  grantId: Number(row.id),
  principal: row.principal,
  role: row.role,
  marketplace: row.marketplace,
  marketplaceId: row.marketplace_id === null ? null : Number(row.marketplace_id),
  grantedBy: row.granted_by,
  grantedAt: row.granted_at,
});

export async function allGrants(db: CommonQueryMethods): Promise<GrantRecord[]> {
  return (await db.any(sql.type(GrantRow)`select * from role_grants order by id`)).map(toRecord);
}

/**
 * A principal's grants that still mean something: a grant on a marketplace that was removed gives
 * nothing (a re-registered name inherits no grant), so it cannot shadow a role on its successor.
 */
export async function grantsOf(db: CommonQueryMethods, principal: string): Promise<GrantRecord[]> {
  return (
    await db.any(sql.type(GrantRow)`
    select g.* from role_grants g
    where g.principal = ${principal}
      and (g.marketplace_id is null or exists (select 1 from marketplaces m where m.id = g.marketplace_id and m.removed_at is null))
    order by g.id`)
  ).map(toRecord);
}
