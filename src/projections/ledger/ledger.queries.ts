import { z } from 'zod';
import { sql, type CommonQueryMethods } from '../../adapters/postgres/pool.ts';

const LedgerRow = z.object({
  id: z.bigint(),
  ts: z.string(),
  source: z.string(),
  principal: z.string(),
  actor_type: z.string(),
  marketplace: z.string(),
  marketplace_id: z.bigint().nullable(),
  event: z.string(),
  ref: z.string().nullable(),
  sha: z.string().nullable(),
  detail: z.string().nullable(),
  token_id: z.bigint().nullable(),
  credential_kind: z.string().nullable(),
});

export type LedgerEntry = Readonly<{
  id: number; ts: string; source: string; principal: string; actorType: string; marketplace: string;
  marketplaceId: number | null; event: string; ref: string | null; sha: string | null; detail: string | null;
  tokenId: number | null; credential_kind: string | null;
}>;

const toEntry = (row: z.infer<typeof LedgerRow>): LedgerEntry => ({
  id: Number(row.id),
  ts: row.ts,
  source: row.source,
  principal: row.principal,
  actorType: row.actor_type,
  marketplace: row.marketplace,
  marketplaceId: row.marketplace_id === null ? null : Number(row.marketplace_id),
  event: row.event,
  ref: row.ref,
  sha: row.sha,
  detail: row.detail,
  tokenId: row.token_id === null ? null : Number(row.token_id),
  credential_kind: row.credential_kind,
});

/** Entries in ledger order after `after` (the export's cursor form). */
export async function ledgerAfter(db: CommonQueryMethods, after: number, limit: number): Promise<LedgerEntry[]> {
  const rows = await db.any(sql.type(LedgerRow)`
    select id, ts, source, principal, actor_type, marketplace, marketplace_id, event, ref, sha, detail, token_id, credential_kind
    from ledger_entries where id > ${after} order by id limit ${limit}`);
  return rows.map(toEntry);
}
