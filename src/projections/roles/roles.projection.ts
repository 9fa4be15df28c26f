import { sql } from '../../adapters/postgres/pool.ts';
import { dispatch, statement } from '../runner/dispatch.ts';
import type { Projection } from '../runner/projection.ts';

export const rolesProjection: Projection = {
  name: 'roles',
  version: 1,
  tables: ['role_grants'],
  createSql: [
    `
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
  apply: dispatch({
    'role-granted': statement(
      (d) => sql.unsafe`
      insert into role_grants (id, principal, role, marketplace, marketplace_id, granted_by, granted_at)
      values (${d.grantId}, ${d.principal}, ${d.role}, ${d.marketplace}, ${d.marketplaceId},
        ${d.grantedBy}, ${d.grantedAt})`,
    ),
    'role-revoked': statement((d) => sql.unsafe`delete from role_grants where id = ${d.grantId}`),
  }),
};
