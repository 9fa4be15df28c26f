import type { QuerySqlToken } from 'slonik';
import type { z, ZodTypeAny } from 'zod';
import type { CommonQueryMethods } from '../adapters/postgres/pool.ts';

/** The one row `query` finds, read by `toRecord`; null when it finds none (the queries' look-ups by key). */
export async function maybeRecord<T extends ZodTypeAny, R>(
  db: CommonQueryMethods,
  query: QuerySqlToken<T>,
  toRecord: (row: z.infer<T>) => R,
): Promise<R | null> {
  const row = await db.maybeOne(query);
  return row === null ? null : toRecord(row);
}
