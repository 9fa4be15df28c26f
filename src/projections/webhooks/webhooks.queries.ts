import { z } from 'zod';
import { sql, type CommonQueryMethods } from '../../adapters/postgres/pool.ts';
import { maybeRecord } from '../rows.ts';

const SubscriberRow = z.object({
  id: z.bigint(),
  url: z.string(),
  events: z.array(z.string()),
  description: z.string().nullable(),
  enabled: z.boolean(),
  created_by: z.string(),
  created_at: z.string(),
});

/** A subscriber as the API answers it: never the secret. */
export type WebhookSubscriberRecord = Readonly<{
  id: number;
  url: string;
  events: string[];
  description: string | null;
  enabled: boolean;
  createdAt: string;
  createdBy: string;
}>;

const toSubscriber = (r: z.infer<typeof SubscriberRow>): WebhookSubscriberRecord => ({
  id: Number(r.id),
  url: r.url,
  events: r.events,
  description: r.description,
  enabled: r.enabled,
  createdAt: r.created_at,
  createdBy: r.created_by,
});

const columns = sql.fragment`id, url, events, description, enabled, created_by, created_at`;

export async function webhookSubscribers(db: CommonQueryMethods): Promise<WebhookSubscriberRecord[]> {
  return (await db.any(sql.type(SubscriberRow)`select ${columns} from webhook_subscribers order by id`)).map(
    toSubscriber,
  );
}

export async function webhookSubscriberById(
  db: CommonQueryMethods,
  id: number,
): Promise<WebhookSubscriberRecord | null> {
  return maybeRecord(
    db,
    sql.type(SubscriberRow)`select ${columns} from webhook_subscribers where id = ${id}`,
    toSubscriber,
  );
}
