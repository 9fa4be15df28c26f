import { z } from 'zod';
import { sql, type CommonQueryMethods } from '../../adapters/postgres/pool.ts';

/**
 * How many deliveries a sweep would remove now (docs/retention.md, Compaction): delivered or failed, last updated
 * before `before`; never pending. The deliveries reactor removes them when it applies webhook-deliveries-swept.
 */
export async function sweepableDeliveries(db: CommonQueryMethods, before: string): Promise<number> {
  return Number(
    await db.oneFirst(sql.type(z.object({ count: z.bigint() }))`
      select count(*) as count from webhook_deliveries
      where state in ('delivered', 'failed') and updated_at < ${before}::timestamptz`),
  );
}
