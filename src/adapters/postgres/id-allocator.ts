import { z } from 'zod';
import { sql, type DatabasePool } from './pool.ts';

/** Allocates the integer ids of the API before a command is decided. */
export type IdAllocator = (kind: string) => Promise<number>;

// The counters live beside the event store's tables, not among the read models, so a rebuild of
// the read models never hands out an id twice.
export const postgresIdAllocator =
  (pool: DatabasePool): IdAllocator =>
  async (kind) => {
    const value = await pool.oneFirst(sql.type(z.object({ value: z.bigint() }))`
    insert into es.id_counters (kind, value) values (${kind}, 1)
    on conflict (kind) do update set value = es.id_counters.value + 1
    returning value`);
    return Number(value);
  };
