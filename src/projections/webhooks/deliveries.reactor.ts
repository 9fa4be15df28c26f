import { z } from 'zod';
import { sql, type DatabaseTransactionConnection } from '../../adapters/postgres/pool.ts';
import type { RecordedEvent } from '../../adapters/eventstore/port.ts';
import type { EventOf } from '../../domain/events.ts';
import { outboundOf } from '../../domain/webhook/outbound.ts';
import { asDomainEvent } from '../runner/dispatch.ts';
import type { Projection } from '../runner/projection.ts';
import { applySinkEvent, endBatch, sinkEventTypes, sinksTableSql } from './sinks.apply.ts';

/**
 * Deliveries (docs/webhooks.md): turns events into delivery rows, one per enabled subscriber naming the event's kind,
 * in the same transaction as its checkpoint, whether dispatch is enabled or not; and keeps each audit sink's cursor and
 * batches offered (sinks.apply.ts). A reactor (docs/architecture.md, Principles 5; never rebuilt): it keeps its own
 * copy of the subscribers (webhook_targets) so it never reads a read model that may lag it. It is also the only writer
 * of its rows: the dispatcher (application/outbound/webhook-dispatch.duty.ts) and the audit push record what they did as events
 * (webhook-delivery-attempted, audit-batch-offered) and this reactor applies them.
 */
export const deliveriesReactor: Projection = {
  name: 'webhook-deliveries',
  version: 3,
  rebuild: false,
  eventTypes: new Set([
    'webhook-subscriber-created',
    'webhook-subscriber-deleted',
    'webhook-delivery-attempted',
    'webhook-deliveries-swept',
    'snapshot-revoked',
    'snapshot-captured',
    'snapshot-approved',
    'snapshot-rejected',
    'snapshot-soft-deleted',
    'snapshot-restored',
    'marketplace-registered',
    'marketplace-removed',
    'ingest-failed',
    'catalog-rebuilt',
    ...sinkEventTypes,
  ]),
  tables: ['webhook_deliveries', 'webhook_targets', 'audit_sinks'],
  createSql: [
    `
    create table webhook_targets (
      id bigint primary key,
      url text not null,
      events text[] not null,
      enabled boolean not null,
      sealed_secret text not null
    )`,
    // An audit batch has no stored body: the dispatcher reads its entries (batch_from, batch_to] from the
    // ledger, which never changes below the settling lag, and its checkpoint from those recorded before the offer
    // (offered_position, the offer's position in the store), so every attempt sends the same bytes.
    `
    create table webhook_deliveries (
      id bigint generated always as identity primary key,
      subscriber_id bigint,
      sink_id bigint,
      event text not null,
      body text,
      batch_from bigint,
      batch_to bigint,
      offered_position bigint,
      state text not null,
      attempts int not null default 0,
      next_attempt_at timestamptz not null,
      last_status int,
      last_error text,
      created_at timestamptz not null,
      updated_at timestamptz not null
    )`,
    `create index webhook_deliveries_due on webhook_deliveries (next_attempt_at, id) where state = 'pending'`,
    `create index webhook_deliveries_sink on webhook_deliveries (sink_id) where state = 'pending'`,
    sinksTableSql,
  ],
  async apply(tx, events) {
    for (const recorded of events) await applyOne(tx, recorded);
  },
};

const AttemptedRow = z.object({ sink_id: z.bigint().nullable(), batch_from: z.bigint(), batch_to: z.bigint() });

/**
 * An attempt the dispatcher made: applied only to the row still pending at the attempt before it (a
 * deleted subscriber or sink, a cursor reset, or a repeated record leaves the row as it is). An audit batch
 * that ends moves its sink's cursor past its entries when delivered, and fails the batches behind it when not.
 */
async function applyAttempt(tx: DatabaseTransactionConnection, d: EventOf<'webhook-delivery-attempted'>['data']) {
  const state = d.outcome === 'retrying' ? 'pending' : d.outcome;
  const row = await tx.maybeOne(sql.type(AttemptedRow)`
    update webhook_deliveries set attempts = ${d.attempt}, state = ${state}, last_status = ${d.status},
      last_error = ${d.error}, next_attempt_at = coalesce(${d.nextAttemptAt}::timestamptz, next_attempt_at),
      updated_at = ${d.at}
    where id = ${d.deliveryId} and state = 'pending' and attempts = ${d.attempt - 1}
    returning sink_id, coalesce(batch_from, 0)::bigint as batch_from, coalesce(batch_to, 0)::bigint as batch_to`);
  if (row?.sink_id == null || state === 'pending') return;
  const batch = { from: Number(row.batch_from), to: Number(row.batch_to) };
  await endBatch(tx, { sinkId: Number(row.sink_id), ...batch, delivered: state === 'delivered', at: d.at });
}

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
    // Pending deliveries of a deleted subscriber become failed with reason subscriber-deleted.
    await tx.query(sql.unsafe`
      update webhook_deliveries set state = 'failed', last_error = 'subscriber-deleted', updated_at = ${recorded.recordedAt}
      where subscriber_id = ${event.data.subscriberId} and state = 'pending'`);
    return;
  }
  if (event.type === 'webhook-delivery-attempted') return applyAttempt(tx, event.data);
  if (event.type === 'webhook-deliveries-swept') {
    // Compaction sweeps delivered or failed deliveries last updated before `before`; pending never.
    await tx.query(sql.unsafe`
      delete from webhook_deliveries where state in ('delivered', 'failed') and updated_at < ${event.data.before}`);
    return;
  }
  if (await applySinkEvent(tx, event, recorded)) return;
  const outbound = outboundOf(event);
  if (!outbound) return;
  // The body is fixed here, so every attempt signs and sends the same bytes.
  const body = JSON.stringify({ type: outbound.kind, timestamp: recorded.recordedAt, data: outbound.data });
  await tx.query(sql.unsafe`
    insert into webhook_deliveries (subscriber_id, event, body, state, next_attempt_at, created_at, updated_at)
    select id, ${outbound.kind}, ${body}, 'pending', ${recorded.recordedAt}, ${recorded.recordedAt}, ${recorded.recordedAt}
    from webhook_targets where enabled and ${outbound.kind} = any(events) order by id`);
}
