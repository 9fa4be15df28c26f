import { linkSync, mkdirSync, readFileSync, readlinkSync, realpathSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export class DataDirLocked extends Error {
  readonly dataDir: string;
  readonly pid: number;
  constructor(dataDir: string, pid: number) {
    super(
      `another gateway process (pid ${pid}) is using the data directory ${dataDir}; stop it, or give this one its own gateway.data-dir`,
    );
    this.dataDir = dataDir;
    this.pid = pid;
    this.name = 'DataDirLocked';
  }
}

type ProcStat = Readonly<{ state: string; startTime: string }>;

/**
 * State and start time (clock ticks after boot) from /proc/<pid>/stat, or null where there is no
 * procfs or the process is gone. The command name (field 2) may hold spaces and parentheses, so the
 * fields are counted from its last ')': state is field 3, starttime field 22.
 */
function procStat(pid: number): ProcStat | null {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  const state = fields[0];
  const startTime = fields[19];
  return state && startTime ? { state, startTime } : null;
}

const ownStartTime = (): string | null => procStat(process.pid)?.startTime ?? null;

/** A zombie (killed, not yet reaped by its parent) still answers kill(pid, 0) but holds nothing. */
const isZombie = (pid: number): boolean => {
  const state = procStat(pid)?.state;
  return state === 'Z' || state === 'X';
};

export const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  return !isZombie(pid);
};

/** The pid file: `<pid> <start time>`; the start time is absent where there is no procfs. */
const ownerLine = (): string => {
  const startTime = ownStartTime();
  return startTime === null ? `${process.pid}\n` : `${process.pid} ${startTime}\n`;
};

/** Whether a pid file read as `<pid> [<start time>]` still names a live process that holds it. */
function holds(pid: number, recordedStart: string | undefined): boolean {
  if (pid === process.pid || !isAlive(pid)) return false;
  const stat = procStat(pid);
  // No procfs, or a process hidden from us (hidepid): kill(pid, 0) is all we know, so it holds.
  if (stat === null) return true;
  if (recordedStart !== undefined) return stat.startTime === recordedStart;
  // A pid file written without a start time (an older gateway): the pid holds it only while it
  // still runs this node binary; unreadable (another user's process) counts as holding.
  try {
    return readlinkSync(`/proc/${pid}/exe`) === realpathSync(process.execPath);
  } catch {
    return true;
  }
}

export type DataDirLock = Readonly<{ path: string; staleOwner: number | null; release(): void }>;

/**
 * One gateway process per data directory. The pid file is created by an atomic link(2), so two
 * processes starting together cannot both win. It is taken over when its owner is dead, a zombie
 * (killed but not yet reaped: an immediate restart after kill -9), or a different process that
 * reuses its pid (the start time from /proc differs from the one recorded), and `staleOwner`
 * reports that, so the caller can clean up what that process left running.
 */
export function lockDataDir(dataDir: string): DataDirLock {
  mkdirSync(dataDir, { recursive: true });
  const path = join(dataDir, 'gateway.pid');
  const candidate = join(dataDir, `.gateway.pid.${process.pid}`);
  const line = ownerLine();
  writeFileSync(candidate, line);
  let staleOwner: number | null = null;
  try {
    for (let attempt = 0; ; attempt++) {
      try {
        linkSync(candidate, path);
        break;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || attempt > 0) throw error;
        const [pidText, recordedStart] = readFileSync(path, 'utf8').trim().split(/\s+/);
        const owner = Number.parseInt(pidText ?? '', 10);
        if (Number.isInteger(owner) && holds(owner, recordedStart)) throw new DataDirLocked(dataDir, owner);
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
        if (readFileSync(path, 'utf8') === line) unlinkSync(path);
      } catch {
        // already gone
      }
    },
  };
}
