import { sql, type DatabaseTransactionConnection } from '../../adapters/postgres/pool.ts';
import type { RecordedEvent } from '../../adapters/eventstore/port.ts';
import { outboundOf } from '../../domain/webhook/outbound.ts';
import { asDomainEvent } from '../runner/dispatch.ts';
import type { Projection } from '../runner/projection.ts';

/**
 * Issue 16, Deliveries: turns events into delivery rows, one per enabled subscriber naming the event's kind,
 * in the same transaction as its checkpoint, whether dispatch is enabled or not. A reactor (never rebuilt): it
 * keeps its own copy of the subscribers (webhook_targets) from their events, so it never reads a read model
 * that may lag it, and its rows survive a rebuild. The dispatcher (application/webhook-dispatch.ts) sends them.
 */
export const deliveriesReactor: Projection = {
  name: 'webhook-deliveries',
  version: 1,
  rebuild: false,
  eventTypes: new Set([
    'webhook-subscriber-created',
    'webhook-subscriber-deleted',
    'snapshot-revoked',
    'snapshot-captured',
    'snapshot-approved',
    'snapshot-rejected',
    'marketplace-registered',
    'marketplace-removed',
    'ingest-failed',
    'catalog-rebuilt',
  ]),
  tables: ['webhook_deliveries', 'webhook_targets'],
  createSql: [
    `
    create table webhook_targets (
      id bigint primary key,
      url text not null,
      events text[] not null,
      enabled boolean not null,
      sealed_secret text not null
    )`,
    `
    create table webhook_deliveries (
      id bigint generated always as identity primary key,
      subscriber_id bigint,
      sink_id bigint,
      event text not null,
      body text not null,
      state text not null,
      attempts int not null default 0,
      next_attempt_at timestamptz not null,
      last_status int,
      last_error text,
      created_at timestamptz not null,
      updated_at timestamptz not null
    )`,
    `create index webhook_deliveries_due on webhook_deliveries (next_attempt_at, id) where state = 'pending'`,
  ],
  async apply(tx, events) {
    for (const recorded of events) await applyOne(tx, recorded);
  },
};

async function applyOne(tx: DatabaseTransactionConnection, recorded: RecordedEvent): Promise<void> {
  const event = asDomainEvent(recorded);
  if (!event) return;
  if (event.type === 'webhook-subscriber-created') {
    const d = event.data;
    await tx.query(sql.unsafe`
      insert into webhook_targets (id, url, events, enabled, sealed_secret)
      values (${d.subscriberId}, ${d.url}, ${sql.array(d.events, 'text')}, ${d.enabled}, ${d.sealedSecret})`);
    return;
  }
  if (event.type === 'webhook-subscriber-deleted') {
    await tx.query(sql.unsafe`delete from webhook_targets where id = ${event.data.subscriberId}`);
    // Issue 16: pending deliveries of a deleted subscriber become failed with reason subscriber-deleted.
    await tx.query(sql.unsafe`
      update webhook_deliveries set state = 'failed', last_error = 'subscriber-deleted', updated_at = ${recorded.recordedAt}
      where subscriber_id = ${event.data.subscriberId} and state = 'pending'`);
    return;
  }
  const outbound = outboundOf(event);
  if (!outbound) return;
  // The body is fixed here, so every attempt signs and sends the same bytes.
  const body = JSON.stringify({ type: outbound.kind, timestamp: recorded.recordedAt, data: outbound.data });
  await tx.query(sql.unsafe`
    insert into webhook_deliveries (subscriber_id, event, body, state, next_attempt_at, created_at, updated_at)
    select id, ${outbound.kind}, ${body}, 'pending', ${recorded.recordedAt}, ${recorded.recordedAt}, ${recorded.recordedAt}
    from webhook_targets where enabled and ${outbound.kind} = any(events) order by id`);
}
