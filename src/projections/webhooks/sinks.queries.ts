import { z } from 'zod';
import { sql, type CommonQueryMethods } from '../../adapters/postgres/pool.ts';
import { maybeRecord } from '../rows.ts';
import { maxOffered } from './sinks.apply.ts';

/** How many batches a sink may have offered and not yet ended (sinks.apply.ts). */
export { maxOffered };

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

const OfferableRow = z.object({
  id: z.bigint(),
  name: z.string(),
  offered_to: z.bigint(),
  room: z.number(),
  batch_size: z.number().nullable(),
});

/** A sink that may be offered more: `offeredTo`, where its offered span ends; `room`, how many batches more. */
export type OfferableSink = Readonly<{
  id: number;
  name: string;
  offeredTo: number;
  room: number;
  batchSize: number | null;
}>;

/** The enabled sinks with fewer than `maxOffered` batches pending (sinks.apply.ts). */
export async function offerableSinks(db: CommonQueryMethods): Promise<OfferableSink[]> {
  const rows = await db.any(sql.type(OfferableRow)`
    select * from (
      select s.id, s.name, coalesce(s.in_flight_to, s.cursor) as offered_to, s.batch_size,
        ${maxOffered} - (select count(*) from webhook_deliveries d where d.sink_id = s.id and d.state = 'pending')::int
          as room
      from audit_sinks s where s.enabled
    ) sinks
    where room > 0 order by id`);
  return rows.map((r) => ({
    id: Number(r.id),
    name: r.name,
    offeredTo: Number(r.offered_to),
    room: r.room,
    batchSize: r.batch_size,
  }));
}
