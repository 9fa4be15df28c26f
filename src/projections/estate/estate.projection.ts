import { sql } from '../../adapters/postgres/pool.ts';
import { dispatch } from '../runner/dispatch.ts';
import type { Projection } from '../runner/projection.ts';

/** The last estate reconciliation report (GET /api/v1/estate, docs/estate.md), one row once a run applied. */
export const estateProjection: Projection = {
  name: 'estate',
  version: 1,
  tables: ['estate_report'],
  createSql: [
    `
    create table estate_report (
      id smallint primary key check (id = 1),
      report jsonb not null,
      position bigint not null
    )`,
  ],
  apply: dispatch({
    'estate-reconcile-triggered': (tx, { data: d, position }) =>
      tx.query(sql.unsafe`
      insert into estate_report (id, report, position) values (1, ${JSON.stringify(d.report)}::jsonb, ${position})
      on conflict (id) do update set report = excluded.report, position = excluded.position`),
  }),
};
