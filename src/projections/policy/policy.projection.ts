import { sql } from '../../adapters/postgres/pool.ts';
import { dispatch, statement } from '../runner/dispatch.ts';
import type { Projection } from '../runner/projection.ts';

/** Policy rules (docs/policy-variables.md); a deleted rule's row goes. */
export const policyProjection: Projection = {
  name: 'policy',
  version: 1,
  tables: ['policy_rules'],
  createSql: [
    `
    create table policy_rules (
      id bigint primary key,
      name text not null unique,
      description text not null,
      expression text not null,
      enabled boolean not null,
      created_by text not null,
      created_at timestamptz not null,
      updated_by text,
      updated_at timestamptz
    )`,
  ],
  apply: dispatch({
    'policy-rule-created': statement(
      (d) => sql.unsafe`
      insert into policy_rules (id, name, description, expression, enabled, created_by, created_at)
      values (${d.ruleId}, ${d.name}, ${d.description}, ${d.expression}, ${d.enabled},
        ${d.createdBy}, ${d.createdAt})`,
    ),
    'policy-rule-updated': statement(
      (d) => sql.unsafe`
      update policy_rules set description = ${d.description}, expression = ${d.expression}, enabled = ${d.enabled},
        updated_by = ${d.updatedBy}, updated_at = ${d.updatedAt}
      where id = ${d.ruleId}`,
    ),
    'policy-rule-deleted': statement((d) => sql.unsafe`delete from policy_rules where id = ${d.ruleId}`),
  }),
};
