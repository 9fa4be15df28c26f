import { z } from 'zod';
import { sql, type CommonQueryMethods } from '../../adapters/postgres/pool.ts';

export const checkpointChannel = 'projection_checkpoints';

export const createCheckpointsSql = `
create table if not exists projection_checkpoints (
  name text primary key,
  version int not null,
  position bigint not null
)`;

const CheckpointRow = z.object({ name: z.string(), version: z.number(), position: z.bigint() });
export type Checkpoint = z.infer<typeof CheckpointRow>;

export async function readCheckpoints(db: CommonQueryMethods): Promise<Map<string, Checkpoint>> {
  const rows = await db.any(sql.type(CheckpointRow)`select name, version, position from projection_checkpoints`);
  return new Map(rows.map((row) => [row.name, row]));
}

/**
 * Advances every checkpoint named from the position this runner read to `to`, in one statement that also
 * tells waiters (wait-for.ts) with one notification per projection; false if another writer moved any (the
 * caller's transaction then rolls back, and its notifications with it).
 */
export async function advanceCheckpoints(
  db: CommonQueryMethods,
  moves: ReadonlyArray<Readonly<{ name: string; from: bigint }>>,
  to: bigint,
): Promise<boolean> {
  const names = sql.array(
    moves.map((m) => m.name),
    'text',
  );
  const froms = sql.array(
    moves.map((m) => m.from.toString()),
    'int8',
  );
  // The notifications go out at commit, so a caller that finds a checkpoint moved under it (and rolls back)
  // tells nobody.
  const result = await db.one(sql.type(z.object({ moved: z.number() }))`
    with moved as (
      update projection_checkpoints c set position = ${to.toString()}::bigint
      from unnest(${names}, ${froms}) as m(name, from_position)
      where c.name = m.name and c.position = m.from_position
      returning c.name)
    select count(*)::int as moved from (select pg_notify(${checkpointChannel}, name || ':' || ${to.toString()}) from moved) n`);
  return result.moved === moves.length;
}
