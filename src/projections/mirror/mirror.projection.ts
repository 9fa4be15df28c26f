import { sql } from '../../adapters/postgres/pool.ts';
import { dispatch } from '../runner/dispatch.ts';
import type { Projection } from '../runner/projection.ts';

/**
 * The mirror's last attempt per followed name (docs/mirror.md, the drift report: lastAttemptAt, lastAttemptOutcome,
 * error) and the reconcile requests its passes answered, from mirror-reconciled. A retired name (nothing
 * served, nothing left on the mirror) loses its row. Rebuildable: the rows come from the events alone.
 */
export const mirrorProjection: Projection = {
  name: 'mirror-status',
  version: 1,
  tables: ['mirror_requests', 'mirror_targets'],
  createSql: [
    `
    create table mirror_targets (
      name text primary key,
      marketplace_id bigint,
      attempted_at text not null,
      outcome text not null,
      error text
    )`,
    `
    create table mirror_requests (
      request_id text primary key,
      position bigint not null
    )`,
  ],
  apply: dispatch({
    'mirror-reconciled': async (tx, { data: d, position }) => {
      for (const target of d.targets) {
        if (target.retired) {
          await tx.query(sql.unsafe`delete from mirror_targets where name = ${target.name}`);
          continue;
        }
        await tx.query(sql.unsafe`
          insert into mirror_targets (name, marketplace_id, attempted_at, outcome, error)
          values (${target.name}, ${target.marketplaceId}, ${d.at}, ${target.outcome}, ${target.error})
          on conflict (name) do update set marketplace_id = excluded.marketplace_id,
            attempted_at = excluded.attempted_at, outcome = excluded.outcome, error = excluded.error`);
      }
      for (const requestId of d.requests)
        await tx.query(sql.unsafe`
          insert into mirror_requests (request_id, position) values (${requestId}, ${position})
          on conflict (request_id) do nothing`);
    },
  }),
};
