import { z } from 'zod';
import { sql, type CommonQueryMethods } from '../../adapters/postgres/pool.ts';

/** Deliveries to webhook subscribers still pending (audit batches excluded: a sink's backlog is its ledger lag). */
export async function pendingWebhookDeliveries(db: CommonQueryMethods): Promise<number> {
  const count = await db.oneFirst(sql.type(z.object({ count: z.bigint() }))`
    select count(*)::bigint as count from webhook_deliveries where state = 'pending' and subscriber_id is not null`);
  return Number(count);
}
