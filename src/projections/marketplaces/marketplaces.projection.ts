import { sql } from '../../adapters/postgres/pool.ts';
import { isDomainEventType, type DomainEvent } from '../../domain/events.ts';
import type { Projection } from '../runner/projection.ts';

export const marketplacesProjection: Projection = {
  name: 'marketplaces',
  version: 3,
  tables: ['marketplaces'],
  createSql: [`
    create table marketplaces (
      id bigint primary key,
      name text not null,
      origin text not null,
      url text,
      push_policy text,
      created_at timestamptz not null,
      registered_by text,
      removed_at timestamptz,
      removed_by text,
      removal_reason text,
      description text,
      upstream_updated_at timestamptz,
      last_ingest_at timestamptz,
      last_ingest_outcome text,
      last_ingest_reason text,
      sync_mode text not null default 'on-demand',
      webhook_secret text
    )`,
    // a removed name is free again; only one live marketplace may hold it
    'create unique index marketplaces_live_name on marketplaces (name) where removed_at is null',
  ],
  async apply(tx, events) {
    for (const recorded of events) {
      if (!isDomainEventType(recorded.type)) continue;
      const event = { type: recorded.type, data: recorded.data } as DomainEvent;
      switch (event.type) {
        case 'marketplace-registered': {
          const d = event.data;
          await tx.query(sql.unsafe`
            insert into marketplaces (id, name, origin, url, push_policy, created_at, registered_by)
            values (${d.marketplaceId}, ${d.name}, ${d.origin}, ${d.url}, ${d.pushPolicy}, ${d.registeredAt}, ${d.registeredBy})`);
          break;
        }
        case 'marketplace-removed': {
          const d = event.data;
          await tx.query(sql.unsafe`
            update marketplaces set removed_at = ${d.removedAt}, removed_by = ${d.removedBy}, removal_reason = ${d.reason}
            where id = ${d.marketplaceId}`);
          break;
        }
        case 'sync-mode-changed':
          await tx.query(sql.unsafe`
            update marketplaces set sync_mode = ${event.data.mode}, webhook_secret = ${event.data.sealedWebhookSecret} where id = ${event.data.marketplaceId}`);
          break;
        case 'snapshot-captured': {
          const d = event.data;
          await tx.query(sql.unsafe`
            update marketplaces set description = coalesce(${d.description}, description),
              upstream_updated_at = coalesce(${d.committedAt}::timestamptz, upstream_updated_at)
            where id = ${d.marketplaceId}`);
          break;
        }
        case 'ingest-succeeded':
          await tx.query(sql.unsafe`
            update marketplaces set last_ingest_at = ${event.data.at}, last_ingest_outcome = 'succeeded', last_ingest_reason = null
            where id = ${event.data.marketplaceId}`);
          break;
        case 'ingest-failed': {
          const d = event.data;
          // spec: lastIngestReason is set only on failure: reason, root cause and next step on one line.
          const reason = `${d.reason}; root cause: ${d.rootCause}; next step: ${d.nextStep}`.replace(/\s*\n\s*/g, ' ');
          await tx.query(sql.unsafe`
            update marketplaces set last_ingest_at = ${d.at}, last_ingest_outcome = 'failed', last_ingest_reason = ${reason}
            where id = ${d.marketplaceId}`);
          break;
        }
        default:
          break;
      }
    }
  },
};
