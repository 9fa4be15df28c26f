import { sql, type DatabaseTransactionConnection } from '../../adapters/postgres/pool.ts';
import type { RecordedEvent } from '../../adapters/eventstore/port.ts';
import { asDomainEvent } from '../runner/dispatch.ts';
import type { Projection } from '../runner/projection.ts';

/**
 * Issue 16, Audit sinks: each sink with its cursor (the id of the last ledger entry delivered) and the one
 * batch in flight (its delivery and the last entry it carries). A reactor (never rebuilt): the dispatcher
 * moves the cursor when a batch is delivered (deliveries.queries.ts recordAttempt), so the rows are state,
 * not a view of events. A cursor reset or a deletion fails the batch in flight.
 */
export const auditSinksReactor: Projection = {
  name: 'audit-sinks',
  version: 1,
  rebuild: false,
  eventTypes: new Set(['audit-sink-created', 'audit-sink-deleted', 'audit-sink-cursor-set']),
  tables: ['audit_sinks'],
  createSql: [
    `
    create table audit_sinks (
      id bigint primary key,
      name text not null unique,
      url text not null,
      enabled boolean not null,
      sealed_secret text not null,
      cursor bigint not null default 0,
      in_flight bigint,
      in_flight_to bigint,
      created_by text not null,
      created_at timestamptz not null
    )`,
  ],
  async apply(tx, events) {
    for (const recorded of events) await applyOne(tx, recorded);
  },
};

async function failInFlight(tx: DatabaseTransactionConnection, sinkId: number, reason: string, at: string) {
  await tx.query(sql.unsafe`
    update webhook_deliveries set state = 'failed', last_error = ${reason}, updated_at = ${at}
    where sink_id = ${sinkId} and state = 'pending'`);
}

async function applyOne(tx: DatabaseTransactionConnection, recorded: RecordedEvent): Promise<void> {
  const event = asDomainEvent(recorded);
  if (!event) return;
  const at = recorded.recordedAt;
  if (event.type === 'audit-sink-created') {
    const d = event.data;
    await tx.query(sql.unsafe`
      insert into audit_sinks (id, name, url, enabled, sealed_secret, created_by, created_at)
      values (${d.sinkId}, ${d.name}, ${d.url}, ${d.enabled}, ${d.sealedSecret}, ${d.createdBy}, ${d.createdAt})`);
  } else if (event.type === 'audit-sink-deleted') {
    await tx.query(sql.unsafe`delete from audit_sinks where id = ${event.data.sinkId}`);
    await failInFlight(tx, event.data.sinkId, 'sink-deleted', at);
  } else if (event.type === 'audit-sink-cursor-set') {
    // A replay: the batch in flight is abandoned and the next one starts after the new position.
    await tx.query(sql.unsafe`
      update audit_sinks set cursor = ${event.data.position}, in_flight = null, in_flight_to = null
      where id = ${event.data.sinkId}`);
    await failInFlight(tx, event.data.sinkId, 'cursor-reset', at);
  }
}
