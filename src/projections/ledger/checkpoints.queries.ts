import { z } from 'zod';
import { sql, type CommonQueryMethods } from '../../adapters/postgres/pool.ts';
import { maybeRecord } from '../rows.ts';

const CheckpointRow = z.object({
  entry_id: z.bigint(),
  hash: z.string(),
  signed_at: z.string(),
  kid: z.string(),
  jws: z.string(),
});

/** A signed head of the ledger (docs/audit.md): the entry, its hash, when, by which key, and the compact JWS. */
export type LedgerCheckpoint = Readonly<{ entryId: number; hash: string; signedAt: string; kid: string; jws: string }>;

const toCheckpoint = (row: z.infer<typeof CheckpointRow>): LedgerCheckpoint => ({
  entryId: Number(row.entry_id),
  hash: row.hash,
  signedAt: row.signed_at,
  kid: row.kid,
  jws: row.jws,
});

/** Checkpoints newest first, of entries before `before` (0: from the newest). */
export async function checkpointsPage(
  db: CommonQueryMethods,
  before: number,
  limit: number,
): Promise<LedgerCheckpoint[]> {
  const rows = await db.any(sql.type(CheckpointRow)`
    select entry_id, hash, signed_at, kid, jws from audit_checkpoints
    where true ${before > 0 ? sql.fragment`and entry_id < ${before}` : sql.fragment``}
    order by position desc limit ${limit}`);
  return rows.map(toCheckpoint);
}

/**
 * The newest checkpoint, or, with `bound`, the newest recorded before the store position `before` and signed at or
 * before `notAfter` (a bound that, once the ledger has applied `before`, always answers the same); null when there
 * is none.
 */
export async function latestCheckpoint(
  db: CommonQueryMethods,
  bound?: Readonly<{ notAfter: string; before: bigint }>,
): Promise<LedgerCheckpoint | null> {
  return maybeRecord(
    db,
    sql.type(CheckpointRow)`
    select entry_id, hash, signed_at, kid, jws from audit_checkpoints
    where true ${
      bound === undefined
        ? sql.fragment``
        : sql.fragment`and position < ${bound.before} and signed_at <= ${bound.notAfter}::timestamptz`
    }
    order by position desc limit 1`,
    toCheckpoint,
  );
}

/** The newest entry's id and hash, or null on an empty ledger. */
export async function ledgerHead(db: CommonQueryMethods): Promise<{ entryId: number; hash: string } | null> {
  const row = await db.maybeOne(sql.type(z.object({ id: z.bigint(), hash: z.string() }))`
    select id, hash from ledger_entries order by id desc limit 1`);
  return row ? { entryId: Number(row.id), hash: row.hash } : null;
}
