import { sql, trustedSql, type DatabasePool } from './pool.ts';
import type { Migration } from '../eventstore/postgres/migrations.ts';

const migrationLock = 7306120430;

/**
 * Applies the migrations not yet recorded, in version order, each in its own transaction. An
 * advisory lock makes concurrent starts (several replicas) apply each migration exactly once.
 */
export async function migrate(pool: DatabasePool, migrations: readonly Migration[], schema = 'es'): Promise<number[]> {
  return pool.connect(async (connection) => {
    await connection.query(sql.unsafe`select pg_advisory_lock(${migrationLock})`);
    try {
      const table = sql.identifier([schema, 'schema_migrations']);
      await connection.query(sql.unsafe`create schema if not exists ${sql.identifier([schema])}`);
      await connection.query(sql.unsafe`
        create table if not exists ${table} (
          version int primary key, name text not null, applied_at timestamptz not null default now())`);
      const applied = new Set(await connection.anyFirst(sql.unsafe`select version from ${table}`));
      const done: number[] = [];
      for (const migration of [...migrations].sort((a, b) => a.version - b.version)) {
        if (applied.has(migration.version)) continue;
        await connection.transaction(async (tx) => {
          for (const statement of migration.statements) await tx.query(trustedSql(statement));
          await tx.query(
            sql.unsafe`insert into ${table} (version, name) values (${migration.version}, ${migration.name})`,
          );
        });
        done.push(migration.version);
      }
      return done;
    } finally {
      await connection.query(sql.unsafe`select pg_advisory_unlock(${migrationLock})`);
    }
  });
}
