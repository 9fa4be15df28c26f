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

/** A delivery as GET /api/v1/webhooks/deliveries answers it (docs/webhooks.md). */
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
  body: z.string().nullable(),
  url: z.string(),
  sealed_secret: z.string(),
  sink: z.string().nullable(),
  batch_from: z.bigint().nullable(),
  batch_to: z.bigint().nullable(),
  offered_position: z.bigint().nullable(),
  created_at: z.string(),
  endpoint: z.string(),
});

/** An audit sink's batch: the ledger entries after `from` up to `to`, offered at `at`, recorded at `position`. */
export type DueBatch = Readonly<{ sink: string; from: number; to: number; at: string; position: bigint }>;

/** A due delivery and its target; `body` is the stored one of a webhook, or null for an audit `batch`. */
export type DueDelivery = Readonly<{
  id: number;
  /** The receiver: `t<subscriber id>` or `s<audit sink id>`; one delivery at a time is sent to each. */
  endpoint: string;
  attempts: number;
  url: string;
  sealedSecret: string;
  body: string | null;
  batch: DueBatch | null;
}>;

const batchOf = (r: z.infer<typeof DueRow>): DueBatch | null =>
  r.sink === null || r.batch_from === null || r.batch_to === null || r.offered_position === null
    ? null
    : {
        sink: r.sink,
        from: Number(r.batch_from),
        to: Number(r.batch_to),
        at: r.created_at,
        position: r.offered_position,
      };

/**
 * Pending deliveries due at `now`, oldest first, with their subscriber's or audit sink's target: for each
 * endpoint (`t<subscriber id>` or `s<sink id>`) that is not in `busy`, a subscriber's oldest due delivery, or a
 * sink's oldest pending batch when it is due (a later batch never overtakes one waiting for its retry); at most
 * `limit` of them. The deliveries in `applying` (attempted, not yet applied by the reactor) are passed over.
 */
export async function dueDeliveries(
  db: CommonQueryMethods,
  now: string,
  limit: number,
  busy: readonly string[] = [],
  applying: readonly number[] = [],
): Promise<DueDelivery[]> {
  const rows = await db.any(sql.type(DueRow)`
    select * from (
      select distinct on (endpoint) * from (
        select d.id, d.attempts, d.body, coalesce(t.url, s.url) as url,
          coalesce(t.sealed_secret, s.sealed_secret) as sealed_secret, s.name as sink, d.batch_from, d.batch_to,
          d.offered_position, d.created_at, d.next_attempt_at, coalesce('s' || s.id, 't' || t.id) as endpoint
        from webhook_deliveries d
          left join webhook_targets t on t.id = d.subscriber_id
          left join audit_sinks s on s.id = d.sink_id
        where d.state = 'pending' and (d.sink_id is not null or d.next_attempt_at <= ${now})
          and coalesce(t.id, s.id) is not null and not (d.id = any(${sql.array([...applying], 'int8')}))
      ) pending
      where not (endpoint = any(${sql.array([...busy], 'text')}))
      order by endpoint, case when sink is null then next_attempt_at end, id
    ) first
    where next_attempt_at <= ${now}
    order by next_attempt_at, id limit ${limit}`);
  return rows.map((r) => ({
    id: Number(r.id),
    endpoint: r.endpoint,
    attempts: r.attempts,
    url: r.url,
    sealedSecret: r.sealed_secret,
    body: r.body,
    batch: batchOf(r),
  }));
}
