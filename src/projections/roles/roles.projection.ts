import { sql } from '../../adapters/postgres/pool.ts';
import { isDomainEventType, type DomainEvent } from '../../domain/events.ts';
import type { Projection } from '../runner/projection.ts';

export const rolesProjection: Projection = {
  name: 'roles',
  version: 1,
  tables: ['role_grants'],
  createSql: [`
    create table role_grants (
      id bigint primary key,
      principal text not null,
      role text not null,
      marketplace text,
      marketplace_id bigint,
      granted_by text not null,
      granted_at timestamptz not null
    )`,
    'create index role_grants_principal on role_grants (principal)',
  ],
  async apply(tx, events) {
    for (const recorded of events) {
      if (!isDomainEventType(recorded.type)) continue;
      const event = { type: recorded.type, data: recorded.data } as DomainEvent;
      if (event.type === 'role-granted') {
        const d = event.data;
        await tx.query(sql.unsafe`
          insert into role_grants (id, principal, role, marketplace, marketplace_id, granted_by, granted_at)
          values (${d.grantId}, ${d.principal}, ${d.role}, ${d.marketplace}, ${d.marketplaceId}, ${d.grantedBy}, ${d.grantedAt})`);
      } else if (event.type === 'role-revoked') {
        await tx.query(sql.unsafe`delete from role_grants where id = ${event.data.grantId}`);
      }
    }
  },
};
