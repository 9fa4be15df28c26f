// A fresh database for one benchmark run: on the server BENCH_DATABASE_URL names, or on an
// embedded PostgreSQL started in a temporary directory (as scripts/run-tests.ts does).
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
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

/** The event store's head and the position of a projection (or the slowest one), read directly. */
export async function projectionProgress(
  client: pg.Client,
  projection?: string,
): Promise<{ head: bigint; position: bigint }> {
  const head = BigInt(
    (await client.query<{ h: string }>('select coalesce(max(position), 0)::text as h from es.events')).rows[0]?.h ??
      '0',
  );
  const position = BigInt(
    (
      await client.query<{ p: string | null }>(
        projection === undefined
          ? 'select min(position)::text as p from projection_checkpoints'
          : 'select position::text as p from projection_checkpoints where name = $1',
        projection === undefined ? [] : [projection],
      )
    ).rows[0]?.p ?? '0',
  );
  return { head, position };
}

/** Waits until the gateway's projection runner has applied everything appended so far. */
export async function waitForProjections(
  client: pg.Client,
  options: {
    projection?: string;
    timeoutMs?: number;
    onProgress?: (p: { head: bigint; position: bigint }) => void;
  } = {},
): Promise<void> {
  const deadline = Date.now() + (options.timeoutMs ?? 600_000);
  for (;;) {
    const progress = await projectionProgress(client, options.projection);
    options.onProgress?.(progress);
    if (progress.position >= progress.head) return;
    if (Date.now() > deadline)
      throw new Error(
        `projections still behind after ${options.timeoutMs ?? 600_000} ms: ${progress.position}/${progress.head}`,
      );
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The pid of the PostgreSQL server `client` talks to, when it runs on this machine (for CPU accounting). */
export async function postmasterPid(client: pg.Client): Promise<number | null> {
  const backend = (await client.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0]?.pid;
  try {
    const stat = readFileSync(`/proc/${backend}/stat`, 'utf8');
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    return Number.isInteger(ppid) && ppid > 1 ? ppid : null;
  } catch {
    return null;
  }
}
