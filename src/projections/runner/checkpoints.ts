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
 * Advances every checkpoint named from the position this runner read to `to`, in one statement, and
 * tells waiters (wait-for.ts) with one notification per projection; false if another writer moved any.
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
  const result = await db.query(sql.unsafe`
    update projection_checkpoints c set position = ${to.toString()}::bigint
    from unnest(${names}, ${froms}) as m(name, from_position)
    where c.name = m.name and c.position = m.from_position`);
  if (result.rowCount !== moves.length) return false;
  await db.query(sql.unsafe`
    select pg_notify(${checkpointChannel}, m.name || ':' || ${to.toString()}) from unnest(${names}) as m(name)`);
  return true;
}
