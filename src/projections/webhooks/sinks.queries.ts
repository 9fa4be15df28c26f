import { z } from 'zod';
import { sql, type CommonQueryMethods, type DatabaseTransactionConnection } from '../../adapters/postgres/pool.ts';

const SinkRow = z.object({
  id: z.bigint(),
  name: z.string(),
  url: z.string(),
  enabled: z.boolean(),
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
  cursorPosition: Number(r.cursor),
  ledgerHead: Number(r.ledger_head),
  behind: Number(r.behind),
  createdBy: r.created_by,
  createdAt: r.created_at,
});

const select = sql.fragment`
  select s.id, s.name, s.url, s.enabled, s.cursor, s.created_by, s.created_at,
    (select coalesce(max(id), 0) from ledger_entries)::bigint as ledger_head,
    (select count(*) from ledger_entries e where e.id > s.cursor)::bigint as behind
  from audit_sinks s`;

export async function auditSinks(db: CommonQueryMethods): Promise<AuditSinkRecord[]> {
  return (await db.any(sql.type(SinkRow)`${select} order by s.id`)).map(toSink);
}

export async function auditSinkById(db: CommonQueryMethods, id: number): Promise<AuditSinkRecord | null> {
  const row = await db.maybeOne(sql.type(SinkRow)`${select} where s.id = ${id}`);
  return row ? toSink(row) : null;
}

const IdleRow = z.object({ id: z.bigint(), name: z.string(), cursor: z.bigint() });
export type IdleSink = Readonly<{ id: number; name: string; cursor: number }>;

/** The enabled sinks with no batch in flight. */
export async function idleSinks(db: CommonQueryMethods): Promise<IdleSink[]> {
  const rows = await db.any(sql.type(IdleRow)`
    select id, name, cursor from audit_sinks where enabled and in_flight is null order by id`);
  return rows.map((r) => ({ id: Number(r.id), name: r.name, cursor: Number(r.cursor) }));
}

export type OfferedBatch = Readonly<{ sinkId: number; from: number; to: number; body: string; at: string }>;

/**
 * Records a batch as a pending delivery of kind audit.batch and marks it in flight, only if the sink is
 * still idle at the same cursor (a reset or a deletion meanwhile drops the offer). True when recorded.
 */
export async function offerBatch(tx: DatabaseTransactionConnection, batch: OfferedBatch): Promise<boolean> {
  const sink = await tx.maybeOne(sql.type(z.object({ cursor: z.bigint() }))`
    select cursor from audit_sinks where id = ${batch.sinkId} and enabled and in_flight is null for update`);
  if (!sink || Number(sink.cursor) !== batch.from) return false;
  const id = await tx.oneFirst(sql.type(z.object({ id: z.bigint() }))`
    insert into webhook_deliveries (sink_id, event, body, state, next_attempt_at, created_at, updated_at)
    values (${batch.sinkId}, 'audit.batch', ${batch.body}, 'pending', ${batch.at}, ${batch.at}, ${batch.at})
    returning id`);
  await tx.query(sql.unsafe`
    update audit_sinks set in_flight = ${id}, in_flight_to = ${batch.to} where id = ${batch.sinkId}`);
  return true;
}
