import { z } from 'zod';
import { sql, type CommonQueryMethods } from '../../adapters/postgres/pool.ts';

export const deliveryStates = ['pending', 'delivered', 'failed'] as const;
export type DeliveryState = (typeof deliveryStates)[number];

const DeliveryRow = z.object({
  id: z.bigint(),
  subscriber_id: z.bigint().nullable(),
  sink_id: z.bigint().nullable(),
  event: z.string(),
  state: z.enum(deliveryStates),
  attempts: z.number(),
  next_attempt_at: z.string(),
  last_status: z.number().nullable(),
  last_error: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
});

/** A delivery as GET /api/v1/webhooks/deliveries answers it (issue 16). */
export type DeliveryRecord = Readonly<{
  id: number;
  subscriberId: number | null;
  sinkId: number | null;
  event: string;
  state: DeliveryState;
  attempts: number;
  /** When the next attempt is due; null once delivered or failed. */
  nextAttemptAt: string | null;
  lastStatus: number | null;
  lastError: string | null;
  createdAt: string;
  updatedAt: string;
}>;

const toDelivery = (r: z.infer<typeof DeliveryRow>): DeliveryRecord => ({
  id: Number(r.id),
  subscriberId: r.subscriber_id === null ? null : Number(r.subscriber_id),
  sinkId: r.sink_id === null ? null : Number(r.sink_id),
  event: r.event,
  state: r.state,
  attempts: r.attempts,
  nextAttemptAt: r.state === 'pending' ? r.next_attempt_at : null,
  lastStatus: r.last_status,
  lastError: r.last_error,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

export type DeliveryFilter = Readonly<{
  subscriber: number | null;
  sink: number | null;
  state: DeliveryState | null;
  before: number | null;
  limit: number;
}>;

/** Newest first, `limit` rows with ids below `before`. */
export async function deliveries(db: CommonQueryMethods, filter: DeliveryFilter): Promise<DeliveryRecord[]> {
  const rows = await db.any(sql.type(DeliveryRow)`
    select id, subscriber_id, sink_id, event, state, attempts, next_attempt_at, last_status, last_error,
      created_at, updated_at
    from webhook_deliveries
    where (${filter.subscriber}::bigint is null or subscriber_id = ${filter.subscriber})
      and (${filter.sink}::bigint is null or sink_id = ${filter.sink})
      and (${filter.state}::text is null or state = ${filter.state})
      and (${filter.before}::bigint is null or id < ${filter.before})
    order by id desc limit ${filter.limit}`);
  return rows.map(toDelivery);
}

const DueRow = z.object({
  id: z.bigint(),
  attempts: z.number(),
  body: z.string(),
  url: z.string(),
  sealed_secret: z.string(),
});
export type DueDelivery = Readonly<{ id: number; attempts: number; body: string; url: string; sealedSecret: string }>;

/** Pending deliveries due at `now`, oldest first, with their subscriber's or audit sink's target. */
export async function dueDeliveries(db: CommonQueryMethods, now: string, limit: number): Promise<DueDelivery[]> {
  const rows = await db.any(sql.type(DueRow)`
    select d.id, d.attempts, d.body, coalesce(t.url, s.url) as url, coalesce(t.sealed_secret, s.sealed_secret) as sealed_secret
    from webhook_deliveries d
      left join webhook_targets t on t.id = d.subscriber_id
      left join audit_sinks s on s.id = d.sink_id
    where d.state = 'pending' and d.next_attempt_at <= ${now} and coalesce(t.id, s.id) is not null
    order by d.next_attempt_at, d.id limit ${limit}`);
  return rows.map((r) => ({
    id: Number(r.id),
    attempts: r.attempts,
    body: r.body,
    url: r.url,
    sealedSecret: r.sealed_secret,
  }));
}

export type AttemptOutcome = Readonly<{
  state: DeliveryState;
  status: number | null;
  error: string | null;
  nextAttemptAt: string;
  at: string;
}>;

/**
 * Records one attempt; a row no longer pending (its subscriber or sink deleted, a cursor reset) keeps its
 * state. In the same statement, an audit batch that ends frees its sink: delivered moves the cursor to the
 * batch's last entry, failed leaves it (the next offer re-sends from there).
 */
export async function recordAttempt(db: CommonQueryMethods, id: number, outcome: AttemptOutcome): Promise<void> {
  await db.query(sql.unsafe`
    with d as (
      update webhook_deliveries set attempts = attempts + 1, state = ${outcome.state}, last_status = ${outcome.status},
        last_error = ${outcome.error}, next_attempt_at = ${outcome.nextAttemptAt}, updated_at = ${outcome.at}
      where id = ${id} and state = 'pending' returning id, state)
    update audit_sinks s
    set cursor = case when d.state = 'delivered' then s.in_flight_to else s.cursor end, in_flight = null, in_flight_to = null
    from d where s.in_flight = d.id and d.state <> 'pending'`);
}
