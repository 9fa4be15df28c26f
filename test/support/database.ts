import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { Test } from 'tap';
import { openPool, type DatabasePool } from '../../src/adapters/postgres/pool.ts';

/** The server the test run shares (scripts/run-tests.ts starts one, or TEST_DATABASE_URL names one). */
export function serverUrl(): string {
  const url = process.env.TEST_DATABASE_URL;
  if (!url)
    throw new Error('TEST_DATABASE_URL is unset: run the tests with npm test, which starts the embedded PostgreSQL');
  return url;
}

/** The server's URL naming another database on it. */
export const withDatabase = (url: string, database: string): string => {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
};

/**
 * A database of its own for one test, dropped at its end: tests never share rows. It is a copy of the run's
 * template (migrated, no event; scripts/run-tests.ts names it in TEST_DATABASE_TEMPLATE) unless the test asks
 * for an empty one (`empty`: tests of the migrations themselves) or the run names no template.
 */
export async function testDatabase(t: Test, options: { empty?: boolean } = {}): Promise<{ url: string; name: string }> {
  const name = `t_${randomBytes(6).toString('hex')}`;
  const template = options.empty ? undefined : process.env.TEST_DATABASE_TEMPLATE;
  const admin = new pg.Client({ connectionString: serverUrl() });
  await admin.connect();
  await admin.query(`create database ${name}${template ? ` template ${template}` : ''}`);
  await admin.end();
  t.teardown(async () => {
    const client = new pg.Client({ connectionString: serverUrl() });
    await client.connect();
    await client.query(`drop database if exists ${name} with (force)`);
    await client.end();
  });
  return { url: withDatabase(serverUrl(), name), name };
}

export async function testPool(
  t: Test,
  options: { empty?: boolean } = {},
): Promise<{ pool: DatabasePool; url: string }> {
  const { url } = await testDatabase(t, options);
  const pool = await openPool(url, { maximumPoolSize: 12 });
  t.teardown(() => pool.end());
  return { pool, url };
}
