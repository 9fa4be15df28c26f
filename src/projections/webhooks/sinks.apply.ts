import { z } from 'zod';
import { sql, type DatabaseTransactionConnection } from '../../adapters/postgres/pool.ts';
import type { DomainEvent, EventOf } from '../../domain/events.ts';

// Audit sinks (docs/webhooks.md), as the deliveries reactor (deliveries.reactor.ts) keeps them: each sink with its
// cursor (the id of the last ledger entry delivered) and the one batch in flight (its delivery and the last
// entry it carries). The rows are the reactor's state, changed only by events: a batch offered becomes a
// pending audit.batch delivery, its last attempt frees the sink and, delivered, moves the cursor; a cursor
// reset or a deletion fails the batch in flight.

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

async function failPending(tx: DatabaseTransactionConnection, sinkId: number, reason: string, at: string) {
  await tx.query(sql.unsafe`
    update webhook_deliveries set state = 'failed', last_error = ${reason}, updated_at = ${at}
    where sink_id = ${sinkId} and state = 'pending'`);
}

/** A batch offered to a sink still idle at the same cursor becomes its pending delivery; a stale offer is dropped. */
async function offer(tx: DatabaseTransactionConnection, d: EventOf<'audit-batch-offered'>['data']): Promise<void> {
  const sink = await tx.maybeOne(sql.type(z.object({ cursor: z.bigint() }))`
    select cursor from audit_sinks where id = ${d.sinkId} and enabled and in_flight is null for update`);
  if (!sink || Number(sink.cursor) !== d.from) return;
  const id = await tx.oneFirst(sql.type(z.object({ id: z.bigint() }))`
    insert into webhook_deliveries (sink_id, event, batch_from, batch_to, state, next_attempt_at, created_at, updated_at)
    values (${d.sinkId}, 'audit.batch', ${d.from}, ${d.to}, 'pending', ${d.at}, ${d.at}, ${d.at})
    returning id`);
  await tx.query(sql.unsafe`update audit_sinks set in_flight = ${id}, in_flight_to = ${d.to} where id = ${d.sinkId}`);
}

/** The last attempt of a sink's batch in flight: the sink is free again, its cursor past the batch if delivered. */
export async function moveCursorOnEnd(
  tx: DatabaseTransactionConnection,
  sinkId: number,
  deliveryId: number,
  delivered: boolean,
): Promise<void> {
  await tx.query(sql.unsafe`
    update audit_sinks set cursor = case when ${delivered} then in_flight_to else cursor end,
      in_flight = null, in_flight_to = null
    where id = ${sinkId} and in_flight = ${deliveryId}`);
}

/** Applies a sink's event; false for any other event. */
export async function applySinkEvent(tx: DatabaseTransactionConnection, event: DomainEvent, at: string) {
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
      // A batch already in flight goes on; a disabled sink is offered nothing more.
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
      // A replay: the batch in flight is abandoned and the next one starts after the new position.
      await tx.query(sql.unsafe`
        update audit_sinks set cursor = ${event.data.position}, in_flight = null, in_flight_to = null
        where id = ${event.data.sinkId}`);
      await failPending(tx, event.data.sinkId, 'cursor-reset', at);
      return true;
    case 'audit-batch-offered':
      await offer(tx, event.data);
      return true;
    default:
      return false;
  }
}
