import { linkSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export class DataDirLocked extends Error {
  constructor(
    readonly dataDir: string,
    readonly pid: number,
  ) {
    super(
      `another gateway process (pid ${pid}) is using the data directory ${dataDir}; stop it, or give this one its own gateway.data-dir`,
    );
    this.name = 'DataDirLocked';
  }
}

export const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};

export type DataDirLock = Readonly<{ path: string; staleOwner: number | null; release(): void }>;

/**
 * One gateway process per data directory. The pid file is created by an atomic link(2), so two
 * processes starting together cannot both win; a file left by a dead process is taken over, and
 * `staleOwner` reports that, so the caller can clean up what that process left running.
 */
export function lockDataDir(dataDir: string): DataDirLock {
  mkdirSync(dataDir, { recursive: true });
  const path = join(dataDir, 'gateway.pid');
  const candidate = join(dataDir, `.gateway.pid.${process.pid}`);
  writeFileSync(candidate, `${process.pid}\n`);
  let staleOwner: number | null = null;
  try {
    for (let attempt = 0; ; attempt++) {
      try {
        linkSync(candidate, path);
        break;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || attempt > 0) throw error;
        const owner = Number.parseInt(readFileSync(path, 'utf8').trim(), 10);
        if (Number.isInteger(owner) && owner !== process.pid && isAlive(owner)) throw new DataDirLocked(dataDir, owner);
        staleOwner = Number.isInteger(owner) ? owner : null;
        unlinkSync(path);
      }
    }
  } finally {
    unlinkSync(candidate);
  }
  return {
    path,
    staleOwner,
    release: () => {
      try {
        if (readFileSync(path, 'utf8').trim() === String(process.pid)) unlinkSync(path);
      } catch {
        // already gone
      }
    },
  };
}
