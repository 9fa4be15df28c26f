import { sql } from '../../adapters/postgres/pool.ts';
import { isDomainEventType, type DomainEvent } from '../../domain/events.ts';
import type { Projection } from '../runner/projection.ts';

export const marketplacesProjection: Projection = {
  name: 'marketplaces',
  version: 1,
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
      removal_reason text
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
        default:
          break;
      }
    }
  },
};
