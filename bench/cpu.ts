// Where the CPU went during a phase, from /proc (Linux): the whole machine, and per process group
// (a process's own time, and the time of the children it has reaped: git processes land there).
import { readdirSync, readFileSync } from 'node:fs';
import { cpus } from 'node:os';

const ticksPerSecond = 100; // USER_HZ on Linux (getconf CLK_TCK)

type ProcTimes = Readonly<{ comm: string; ppid: number; own: number; children: number }>;

/** utime+stime and cutime+cstime of one process, in seconds; null when it is gone. */
function procTimes(pid: number): ProcTimes | null {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const close = text.lastIndexOf(')');
    const comm = text.slice(text.indexOf('(') + 1, close);
    const fields = text.slice(close + 2).split(' ');
    // fields[0] is the state (field 3); utime is field 14, so fields[11].
    const n = (i: number) => Number(fields[i] ?? 0);
    return { comm, ppid: n(1), own: (n(11) + n(12)) / ticksPerSecond, children: (n(13) + n(14)) / ticksPerSecond };
  } catch {
    return null;
  }
}

function machineTimes(): { busy: number; total: number } {
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '';
    const values = line.trim().split(/\s+/).slice(1).map(Number);
    const idle = (values[3] ?? 0) + (values[4] ?? 0);
    const total = values.slice(0, 8).reduce((a, b) => a + b, 0);
    return { busy: (total - idle) / ticksPerSecond, total: total / ticksPerSecond };
  } catch {
    return { busy: 0, total: 0 };
  }
}

/** The PostgreSQL server of the benchmark: the postmaster and its live children, plus what it reaped. */
function postgresTimes(postmaster: number): number {
  let sum = 0;
  let entries: string[] = [];
  try {
    entries = readdirSync('/proc');
  } catch {
    return 0;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    const times = procTimes(pid);
    if (times && (pid === postmaster || times.ppid === postmaster)) sum += times.own + times.children;
  }
  return sum;
}

export type CpuGroups = Readonly<Record<string, number>>;
type Sample = Readonly<{ at: number; machine: { busy: number; total: number }; groups: Record<string, number> }>;

/**
 * Samples the CPU seconds of named processes (each split into itself and its reaped children)
 * and of PostgreSQL; `delta` gives the seconds spent between two samples.
 */
export class CpuMeter {
  private readonly processes: () => Readonly<Record<string, number | undefined>>;
  private readonly postmaster: number | null;
  /** `postmaster`: the pid of the benchmark's PostgreSQL server (see database.ts postmasterPid), if local. */
  constructor(processes: () => Readonly<Record<string, number | undefined>>, postmaster: number | null = null) {
    this.processes = processes;
    this.postmaster = postmaster;
  }

  sample(): Sample {
    const groups: Record<string, number> = {};
    for (const [name, pid] of Object.entries(this.processes())) {
      if (pid === undefined) continue;
      const times = procTimes(pid);
      if (!times) continue;
      groups[`${name} (node)`] = times.own;
      groups[`${name} children`] = times.children;
    }
    if (this.postmaster !== null) groups.postgres = postgresTimes(this.postmaster);
    return { at: performance.now(), machine: machineTimes(), groups };
  }

  /** CPU seconds per group between two samples, and the machine's busy share. */
  static delta(
    from: Sample,
    to: Sample,
  ): { wallSeconds: number; machineBusyPercent: number; cpuSeconds: Record<string, number> } {
    const wall = (to.at - from.at) / 1000;
    const cores = cpus().length;
    const busy = to.machine.busy - from.machine.busy;
    const cpuSeconds: Record<string, number> = {};
    for (const [name, value] of Object.entries(to.groups)) {
      cpuSeconds[name] = Math.round((value - (from.groups[name] ?? 0)) * 100) / 100;
    }
    const ours = Object.values(cpuSeconds).reduce((a, b) => a + b, 0);
    cpuSeconds['other processes'] = Math.round((busy - ours) * 100) / 100;
    cpuSeconds['machine (all processes)'] = Math.round(busy * 100) / 100;
    return {
      wallSeconds: Math.round(wall * 100) / 100,
      machineBusyPercent: wall > 0 ? Math.round((busy / (wall * cores)) * 1000) / 10 : 0,
      cpuSeconds,
    };
  }
}
