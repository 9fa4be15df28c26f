// Counts from the environment, and the progress log (stderr).
import { chmodSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const envInt = (name: string, fallback: number, min: number): number => {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw.replaceAll('_', ''));
  if (!Number.isInteger(value) || value < min) throw new Error(`${name} must be an integer >= ${min}, got ${raw}`);
  return value;
};

export const envChoice = <T extends string>(name: string, allowed: readonly T[], fallback: T): T => {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!(allowed as readonly string[]).includes(raw))
    throw new Error(`${name} must be one of ${allowed.join(', ')}, got ${raw}`);
  return raw as T;
};

export const log = (line: string) => process.stderr.write(`[bench] ${line}\n`);

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Runs `work`; on SIGINT/SIGTERM meanwhile, runs `cleanup` (children, embedded PostgreSQL) and exits 130. */
export async function withInterruptCleanup<T>(cleanup: () => Promise<void>, work: () => Promise<T>): Promise<T> {
  const interrupted = () => {
    log('interrupted: cleaning up');
    void cleanup().finally(() => process.exit(130));
  };
  process.once('SIGINT', interrupted);
  process.once('SIGTERM', interrupted);
  try {
    return await work();
  } finally {
    process.off('SIGINT', interrupted);
    process.off('SIGTERM', interrupted);
  }
}

/**
 * A benchmark's scratch root (world-readable, `gateway-data/` inside) and its run: `work`, then `close` and
 * the root's removal, once, also on Ctrl-C; BENCH_KEEP_ON_FAILURE=1 keeps the root for a look afterwards.
 */
export function benchScratch(prefix: string) {
  const root = mkdtempSync(join(tmpdir(), prefix));
  chmodSync(root, 0o755);
  const dataDir = join(root, 'gateway-data');
  mkdirSync(dataDir);
  const run = async (work: () => Promise<void>, close: () => Promise<void>): Promise<void> => {
    let cleaned = false;
    const cleanup = async () => {
      if (cleaned) return;
      cleaned = true;
      await close();
      if (process.env.BENCH_KEEP_ON_FAILURE !== '1') rmSync(root, { recursive: true, force: true });
    };
    await withInterruptCleanup(cleanup, async () => {
      try {
        await work();
      } finally {
        await cleanup();
      }
    });
  };
  return { root, dataDir, run };
}
