import { z } from 'zod';
import { sql, type CommonQueryMethods, type DatabasePool } from '../../adapters/postgres/pool.ts';
import type { LedgerEntry } from './ledger.fields.ts';

export type { LedgerEntry } from './ledger.fields.ts';

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
  hash: z.string(),
  prev_hash: z.string(),
});

const columns = sql.fragment`id, ts, source, principal, actor_type, marketplace, marketplace_id, event, ref, sha, detail, token_id, credential_kind, hash, prev_hash`;

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
  hash: row.hash,
  prevHash: row.prev_hash,
});

/** Entries in ledger order after `after`, none younger than `notAfter` (the export's cursor form). */
export async function ledgerAfter(
  db: CommonQueryMethods,
  after: number,
  limit: number,
  notAfter?: string,
): Promise<LedgerEntry[]> {
  const rows = await db.any(sql.type(LedgerRow)`
    select ${columns} from ledger_entries
    where id > ${after} ${notAfter === undefined ? sql.fragment`` : sql.fragment`and ts <= ${notAfter}::timestamptz`}
    order by id limit ${limit}`);
  return rows.map(toEntry);
}

/**
 * The JSON array text of the export form of the entries after `after` (up to `limit`, in ledger order), built by
 * PostgreSQL: the bytes `JSON.stringify(entries.map(exportEntry))` gives, without a row per entry crossing to
 * node (an audit batch sends it as it is).
 */
export async function exportedEntriesAfter(db: CommonQueryMethods, after: number, limit: number): Promise<string> {
  const row = await db.one(sql.type(z.object({ entries: z.string() }))`
    select '[' || coalesce(string_agg(row_to_json(e)::text, ',' order by e.id), '') || ']' as entries from (
      select id, to_char(ts at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as ts, source, principal,
        actor_type, marketplace, marketplace_id, event, ref, sha, detail, token_id, hash, prev_hash
      from ledger_entries where id > ${after} order by id limit ${limit}) e`);
  return row.entries;
}

/**
 * The span of up to `limit` entries after `after`, none younger than `notAfter`: the last id and how many
 * (null when there is none): for an offer, which needs the bounds, not the entries.
 */
export async function ledgerSpanAfter(
  db: CommonQueryMethods,
  after: number,
  limit: number,
  notAfter: string,
): Promise<{ to: number; count: number } | null> {
  const row = await db.one(sql.type(z.object({ to: z.bigint().nullable(), count: z.number() }))`
    select max(id)::bigint as to, count(*)::int as count from (
      select id from ledger_entries where id > ${after} and ts <= ${notAfter}::timestamptz order by id limit ${limit}) x`);
  return row.to === null ? null : { to: Number(row.to), count: row.count };
}

/**
 * What a page of the ledger browser narrows to; null means any. The marketplace matches the name as
 * recorded, so entries of earlier marketplaces that held the name are included. `from` and `to` are
 * inclusive instants (ISO-8601, UTC) on the entry's ts (decision 420).
 */
export type LedgerFilter = Readonly<{
  marketplace: string | null;
  principal: string | null;
  event: string | null;
  from: string | null;
  to: string | null;
}>;

const where = (before: number, f: LedgerFilter) => sql.fragment`where true
  ${before > 0 ? sql.fragment`and id < ${before}` : sql.fragment``}
  ${f.marketplace === null ? sql.fragment`` : sql.fragment`and marketplace = ${f.marketplace}`}
  ${f.principal === null ? sql.fragment`` : sql.fragment`and principal = ${f.principal}`}
  ${f.event === null ? sql.fragment`` : sql.fragment`and event = ${f.event}`}
  ${f.from === null ? sql.fragment`` : sql.fragment`and ts >= ${f.from}::timestamptz`}
  ${f.to === null ? sql.fragment`` : sql.fragment`and ts <= ${f.to}::timestamptz`}`;

/** A page newest first, before `before` (0: from the newest), of the entries `filter` admits. */
export async function ledgerPage(
  db: CommonQueryMethods,
  before: number,
  limit: number,
  filter: LedgerFilter,
): Promise<LedgerEntry[]> {
  const rows = await db.any(sql.type(LedgerRow)`
    select ${columns} from ledger_entries ${where(before, filter)}
    order by id desc limit ${limit}`);
  return rows.map(toEntry);
}

export const exactTotalBelow = 100_000;

/**
 * docs/audit.md: exact below 100,000 entries, flagged an estimate from there on. Ledger ids are 1..n in
 * event order and entries are never deleted, so the largest id is the count: no scan per request.
 */
export async function ledgerTotal(db: CommonQueryMethods): Promise<{ total: number; totalIsEstimate: boolean }> {
  const total = await db.oneFirst(
    sql.type(z.object({ n: z.number() }))`select coalesce(max(id), 0)::float8 as n from ledger_entries`,
  );
  return { total, totalIsEstimate: total >= exactTotalBelow };
}

/**
 * A page and the total read from one snapshot of the ledger (repeatable read), so the total never counts
 * entries appended after the page was read (found by the fault suite while the gateway acted on its own).
 */
export function ledgerPageWithTotal(
  pool: DatabasePool,
  before: number,
  limit: number,
  filter: LedgerFilter,
): Promise<{ rows: LedgerEntry[]; total: number; totalIsEstimate: boolean }> {
  return pool.transaction(async (tx) => {
    await tx.query(sql.unsafe`set transaction isolation level repeatable read read only`);
    const rows = await ledgerPage(tx, before, limit, filter);
    return { rows, ...(await ledgerTotal(tx)) };
  });
}
