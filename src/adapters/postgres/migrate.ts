import { sql, trustedSql, type DatabasePool } from './pool.ts';
import type { Migration } from '../eventstore/postgres/migrations.ts';

const migrationLock = 7306120430;

/**
 * Applies the migrations not yet recorded, in version order, each in its own transaction. An
 * advisory lock makes concurrent starts (several replicas) apply each migration exactly once.
 */
export async function migrate(pool: DatabasePool, migrations: readonly Migration[]): Promise<number[]> {
  return pool.connect(async (connection) => {
    await connection.query(sql.unsafe`select pg_advisory_lock(${migrationLock})`);
    try {
      await connection.query(sql.unsafe`create schema if not exists es`);
      await connection.query(sql.unsafe`
        create table if not exists es.schema_migrations (
          version int primary key, name text not null, applied_at timestamptz not null default now())`);
      const applied = new Set(await connection.anyFirst(sql.unsafe`select version from es.schema_migrations`));
      const done: number[] = [];
      for (const migration of [...migrations].sort((a, b) => a.version - b.version)) {
        if (applied.has(migration.version)) continue;
        await connection.transaction(async (tx) => {
          for (const statement of migration.statements) await tx.query(trustedSql(statement));
          await tx.query(sql.unsafe`insert into es.schema_migrations (version, name) values (${migration.version}, ${migration.name})`);
        });
        done.push(migration.version);
      }
      return done;
    } finally {
      await connection.query(sql.unsafe`select pg_advisory_unlock(${migrationLock})`);
    }
  });
}
