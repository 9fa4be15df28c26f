// A fresh database for one benchmark run: on the server BENCH_DATABASE_URL names, or on an
// embedded PostgreSQL started in a temporary directory (as scripts/run-tests.ts does).
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { startEmbeddedPostgres } from '../src/adapters/postgres/embedded.ts';

export type BenchDatabase = Readonly<{
  /** URL of the fresh database. */
  url: string;
  embedded: boolean;
  /** Drops the database, stops the embedded server and removes its directory. */
  close(): Promise<void>;
}>;

const withDatabase = (url: string, database: string): string => {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
};

async function admin<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

export async function openBenchDatabase(log: (line: string) => void): Promise<BenchDatabase> {
  let serverUrl = process.env.BENCH_DATABASE_URL;
  let stopServer = async () => {};
  const embedded = !serverUrl;
  if (!serverUrl) {
    const dir = mkdtempSync(join(tmpdir(), 'gateway-bench-pg-'));
    chmodSync(dir, 0o755); // as root the server runs as the postgres user, which must reach the directory
    try {
      const server = await startEmbeddedPostgres({ directory: join(dir, 'postgres'), log: () => {} });
      serverUrl = server.url;
      stopServer = async () => {
        await server.stop();
        rmSync(dir, { recursive: true, force: true });
      };
    } catch (error) {
      rmSync(dir, { recursive: true, force: true });
      throw error;
    }
    log(`embedded PostgreSQL started in ${dir}`);
  }
  const server: string = serverUrl;
  const name = `bench_${randomBytes(6).toString('hex')}`;
  try {
    await admin(server, (client) => client.query(`create database ${name}`));
  } catch (error) {
    await stopServer();
    throw error;
  }
  const url = withDatabase(server, name);
  return {
    url,
    embedded,
    async close() {
      try {
        await admin(server, (client) => client.query(`drop database if exists ${name} with (force)`));
      } finally {
        await stopServer();
      }
    },
  };
}
