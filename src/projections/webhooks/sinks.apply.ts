import { sql, type DatabaseTransactionConnection } from '../../adapters/postgres/pool.ts';
import type { RecordedEvent } from '../../adapters/eventstore/port.ts';
import type { DomainEvent, EventOf } from '../../domain/events.ts';

// Audit sinks (docs/webhooks.md), as the deliveries reactor (deliveries.reactor.ts) keeps them: each sink with its
// cursor (the id of the last ledger entry delivered) and its offered span: up to `maxOffered` batches pending, in
// order, the first starting at the cursor and each after the one before. `in_flight_to` is where the span ends
// (null: at the cursor) and `in_flight` the last batch offered (null: none pending). The rows are the reactor's
// state, changed only by events: a batch offered at the span's end becomes a pending audit.batch delivery; a
// delivered batch moves the cursor past it; a batch failed for good fails the batches behind it, so the next
// offer starts again at the cursor; a cursor reset or a deletion fails every batch pending.

export const sinkEventTypes = [
  'audit-sink-created',
  'audit-sink-updated',
  'audit-sink-deleted',
  'audit-sink-cursor-set',
  'audit-batch-offered',
] as const;

export const sinksTableSql = `
  create table audit_sinks (
    id bigint primary key,
    name text not null unique,
    url text not null,
    enabled boolean not null,
    batch_size int,
    sealed_secret text not null,
    cursor bigint not null default 0,
    in_flight bigint,
    in_flight_to bigint,
    created_by text not null,
    created_at timestamptz not null
  )`;

/**
 * How many batches a sink may have offered and not yet ended: one on its way, the others ready behind it. Eight,
 * so that the offers' own latency (an append, the reactor applying it, the ledger catching up for the body) stays
 * hidden behind the sends (decision 455).
 */
export const maxOffered = 8;

async function failPending(tx: DatabaseTransactionConnection, sinkId: number, reason: string, at: string) {
  await tx.query(sql.unsafe`
    update webhook_deliveries set state = 'failed', last_error = ${reason}, updated_at = ${at}
    where sink_id = ${sinkId} and state = 'pending'`);
}

const pendingOf = (sinkId: number) => sql.fragment`
  (select count(*) from webhook_deliveries where sink_id = ${sinkId} and state = 'pending')::int`;

/**
 * A batch offered to an enabled sink where its offered span ends, with fewer than `maxOffered` pending, becomes
 * its pending delivery behind the others; any other offer is stale and dropped. One statement: the sink's row is
 * locked, the delivery inserted only when the offer holds, and the span moved to the inserted batch.
 */
async function offer(
  tx: DatabaseTransactionConnection,
  d: EventOf<'audit-batch-offered'>['data'],
  position: bigint,
): Promise<void> {
  await tx.query(sql.unsafe`
    with sink as (
      select coalesce(in_flight_to, cursor) as offered_to from audit_sinks where id = ${d.sinkId} and enabled for update),
    offered as (
      insert into webhook_deliveries (sink_id, event, batch_from, batch_to, offered_position, state, next_attempt_at,
        created_at, updated_at)
      select ${d.sinkId}, 'audit.batch', ${d.from}, ${d.to}, ${position}, 'pending', ${d.at}, ${d.at}, ${d.at} from sink
      where sink.offered_to = ${d.from} and ${pendingOf(d.sinkId)} < ${maxOffered}
      returning id)
    update audit_sinks set in_flight = offered.id, in_flight_to = ${d.to} from offered where audit_sinks.id = ${d.sinkId}`);
}

/** A sink's batch (from, to] that has ended at `at`, delivered or failed for good. */
export type EndedBatch = Readonly<{ sinkId: number; from: number; to: number; delivered: boolean; at: string }>;

/**
 * The last attempt of a sink's batch: delivered, the cursor moves past it (only from the batch's start, so
 * never over a batch not delivered); failed, the batches behind it fail too. With none pending left, the
 * offered span ends at the cursor again.
 */
export async function endBatch(tx: DatabaseTransactionConnection, batch: EndedBatch): Promise<void> {
  if (batch.delivered) {
    await tx.query(sql.unsafe`
      update audit_sinks set cursor = case when cursor = ${batch.from} then ${batch.to} else cursor end,
        in_flight = case when ${pendingOf(batch.sinkId)} = 0 then null else in_flight end,
        in_flight_to = case when ${pendingOf(batch.sinkId)} = 0 then null else in_flight_to end
      where id = ${batch.sinkId}`);
    return;
  }
  await failPending(tx, batch.sinkId, 'earlier-batch-failed', batch.at);
  await tx.query(sql.unsafe`
    update audit_sinks set in_flight = null, in_flight_to = null
    where id = ${batch.sinkId} and ${pendingOf(batch.sinkId)} = 0`);
}

/** Applies a sink's event, recorded as `recorded`; false for any other event. */
export async function applySinkEvent(tx: DatabaseTransactionConnection, event: DomainEvent, recorded: RecordedEvent) {
  const at = recorded.recordedAt;
  switch (event.type) {
    case 'audit-sink-created': {
      const d = event.data;
      await tx.query(sql.unsafe`
        insert into audit_sinks (id, name, url, enabled, batch_size, sealed_secret, created_by, created_at)
        values (${d.sinkId}, ${d.name}, ${d.url}, ${d.enabled}, ${d.batchSize}, ${d.sealedSecret}, ${d.createdBy},
          ${d.createdAt})`);
      return true;
    }
    case 'audit-sink-updated': {
      // The batches pending go on; a disabled sink is offered nothing more.
      const d = event.data;
      await tx.query(sql.unsafe`
        update audit_sinks set enabled = ${d.enabled}, batch_size = ${d.batchSize} where id = ${d.sinkId}`);
      return true;
    }
    case 'audit-sink-deleted':
      await tx.query(sql.unsafe`delete from audit_sinks where id = ${event.data.sinkId}`);
      await failPending(tx, event.data.sinkId, 'sink-deleted', at);
      return true;
    case 'audit-sink-cursor-set':
      // A replay: the batches pending are abandoned and the next one starts after the new position.
      await tx.query(sql.unsafe`
        update audit_sinks set cursor = ${event.data.position}, in_flight = null, in_flight_to = null
        where id = ${event.data.sinkId}`);
      await failPending(tx, event.data.sinkId, 'cursor-reset', at);
      return true;
    case 'audit-batch-offered':
      await offer(tx, event.data, recorded.position);
      return true;
    default:
      return false;
  }
}
