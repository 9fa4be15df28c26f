import { z } from 'zod';
import { sql, type CommonQueryMethods } from '../../adapters/postgres/pool.ts';
import { maybeRecord } from '../rows.ts';

const SinkRow = z.object({
  id: z.bigint(),
  name: z.string(),
  url: z.string(),
  enabled: z.boolean(),
  batch_size: z.number().nullable(),
  cursor: z.bigint(),
  ledger_head: z.bigint(),
  behind: z.bigint(),
  created_by: z.string(),
  created_at: z.string(),
});

/** A sink as the API answers it: never the secret. */
export type AuditSinkRecord = Readonly<{
  id: number;
  name: string;
  url: string;
  enabled: boolean;
  /** The sink's own batch size; null: gateway.audit-export.batch-size. */
  batchSize: number | null;
  /** The id of the last ledger entry delivered; the next batch starts after it. */
  cursorPosition: number;
  ledgerHead: number;
  /** Ledger entries after the cursor. */
  behind: number;
  createdBy: string;
  createdAt: string;
}>;

const toSink = (r: z.infer<typeof SinkRow>): AuditSinkRecord => ({
  id: Number(r.id),
  name: r.name,
  url: r.url,
  enabled: r.enabled,
  batchSize: r.batch_size,
  cursorPosition: Number(r.cursor),
  ledgerHead: Number(r.ledger_head),
  behind: Number(r.behind),
  createdBy: r.created_by,
  createdAt: r.created_at,
});

// Ledger ids run 1..head without a gap, so the entries after the cursor number head - cursor exactly (a
// cursor set past the head is behind by none).
const select = sql.fragment`
  select s.id, s.name, s.url, s.enabled, s.batch_size, s.cursor, s.created_by, s.created_at,
    h.head as ledger_head, greatest(h.head - s.cursor, 0)::bigint as behind
  from audit_sinks s, (select coalesce(max(id), 0)::bigint as head from ledger_entries) h`;

/** The id of the ledger's last entry; 0 while it is empty. */
export async function ledgerHeadId(db: CommonQueryMethods): Promise<number> {
  return Number(await db.oneFirst(sql.unsafe`select coalesce(max(id), 0)::bigint from ledger_entries`));
}

export async function auditSinks(db: CommonQueryMethods): Promise<AuditSinkRecord[]> {
  return (await db.any(sql.type(SinkRow)`${select} order by s.id`)).map(toSink);
}

export async function auditSinkById(db: CommonQueryMethods, id: number): Promise<AuditSinkRecord | null> {
  return maybeRecord(db, sql.type(SinkRow)`${select} where s.id = ${id}`, toSink);
}

const IdleRow = z.object({ id: z.bigint(), name: z.string(), cursor: z.bigint(), batch_size: z.number().nullable() });
export type IdleSink = Readonly<{ id: number; name: string; cursor: number; batchSize: number | null }>;

/** The enabled sinks with no batch in flight. */
export async function idleSinks(db: CommonQueryMethods): Promise<IdleSink[]> {
  const rows = await db.any(sql.type(IdleRow)`
    select id, name, cursor, batch_size from audit_sinks where enabled and in_flight is null order by id`);
  return rows.map((r) => ({ id: Number(r.id), name: r.name, cursor: Number(r.cursor), batchSize: r.batch_size }));
}
