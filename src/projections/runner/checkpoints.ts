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

/** Advances a checkpoint only from the position this runner read; false if another writer moved it. */
export async function advanceCheckpoint(
  db: CommonQueryMethods,
  name: string,
  from: bigint,
  to: bigint,
): Promise<boolean> {
  const result = await db.query(sql.unsafe`
    update projection_checkpoints set position = ${to.toString()}::bigint
    where name = ${name} and position = ${from.toString()}::bigint`);
  if (result.rowCount !== 1) return false;
  await db.query(sql.unsafe`select pg_notify(${checkpointChannel}, ${`${name}:${to}`})`);
  return true;
}
