import { sql } from '../../adapters/postgres/pool.ts';
import { dispatch, statement } from '../runner/dispatch.ts';
import type { Projection } from '../runner/projection.ts';

/** Outbound webhook subscribers (docs/webhooks.md); the secret stays sealed and is never answered. */
export const webhooksProjection: Projection = {
  name: 'webhooks',
  version: 1,
  tables: ['webhook_subscribers'],
  createSql: [
    `
    create table webhook_subscribers (
      id bigint primary key,
      url text not null,
      events text[] not null,
      description text,
      enabled boolean not null,
      sealed_secret text not null,
      created_by text not null,
      created_at timestamptz not null
    )`,
  ],
  apply: dispatch({
    'webhook-subscriber-created': statement(
      (d) => sql.unsafe`
      insert into webhook_subscribers (id, url, events, description, enabled, sealed_secret, created_by, created_at)
      values (${d.subscriberId}, ${d.url}, ${sql.array(d.events, 'text')}, ${d.description}, ${d.enabled},
        ${d.sealedSecret}, ${d.createdBy}, ${d.createdAt})`,
    ),
    'webhook-subscriber-deleted': statement(
      (d) => sql.unsafe`delete from webhook_subscribers where id = ${d.subscriberId}`,
    ),
  }),
};
