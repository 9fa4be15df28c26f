// The fault suite's harness: `gateway serve` as a child process on a data directory of its own (the
// embedded PostgreSQL inside it), a session client through the development hatch, a seeded random
// source, and the faults that strike it. Nothing here reaches test/support/database.ts: the gateway
// under test brings its own database, so `npm run faults` starts no shared PostgreSQL.
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Test } from 'tap';
import { isAlive } from '../../src/adapters/system/data-dir-lock.ts';

export const admin = 'root';

/** A port nobody listens on now (PORT=0 would hide the port from the test; the log line is parsed instead). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

export type GatewayProcess = Readonly<{
  url: string;
  pid: number;
  child: ChildProcess;
  /** Everything it wrote (pino lines), for the report of a trial that went wrong. */
  log: { text: string };
  exited: Promise<number | null>;
}>;

export type FaultHarness = Readonly<{
  dataDir: string;
  /** Starts `gateway serve` on the data directory and resolves once it listens. */
  start(): Promise<GatewayProcess>;
}>;

/** The pid in <data-dir>/postgres/postmaster.pid: the embedded server, whoever started it. */
export function postmasterPid(dataDir: string): number | null {
  const file = join(dataDir, 'postgres', 'postmaster.pid');
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    // Absent, or removed between a check and the read: PostgreSQL writes and deletes it as it starts and stops.
    return null;
  }
  const pid = Number.parseInt(text.split('\n')[0] ?? '', 10);
  return Number.isInteger(pid) ? pid : null;
}

/**
 * A data directory for the whole file and a way to start the gateway on it. At the test's end the
 * running gateway is stopped, and a PostgreSQL a killed gateway left behind (its own process group
 * survives the kill) is stopped too.
 */
export function faultHarness(
  t: Test,
  env: Record<string, string> = {},
): FaultHarness & { current(): GatewayProcess | null } {
  const dataDir = mkdtempSync(join(tmpdir(), 'gateway-faults-'));
  chmodSync(dataDir, 0o755); // the embedded server runs as the postgres user when the tests run as root
  let running: GatewayProcess | null = null;
  t.teardown(async () => {
    if (running && running.child.exitCode === null && running.child.signalCode === null) {
      running.child.kill('SIGINT');
      const timer = setTimeout(() => running?.child.kill('SIGKILL'), 30_000);
      await running.exited;
      clearTimeout(timer);
    }
    const orphan = postmasterPid(dataDir);
    if (orphan !== null && isAlive(orphan)) process.kill(orphan, 'SIGQUIT');
    if (!process.env.FAULT_KEEP_DATA) rmSync(dataDir, { recursive: true, force: true });
  });
  const start = async () => {
    running = await startGatewayProcess(dataDir, env);
    return running;
  };
  return { dataDir, start, current: () => running };
}

// The port is free when picked but not held: the embedded PostgreSQL may take it first. A start refused
// with EADDRINUSE on the picked port is tried again on another.
async function startGatewayProcess(dataDir: string, env: Record<string, string>): Promise<GatewayProcess> {
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    try {
      return await spawnGateway(dataDir, env, port);
    } catch (error) {
      const taken =
        error instanceof Error &&
        (error.message.includes(`EADDRINUSE: address already in use 127.0.0.1:${port}`) ||
          error.message.includes(`port ${port} is already in use`));
      if (!taken || attempt >= 3) throw error;
    }
  }
}

async function spawnGateway(dataDir: string, env: Record<string, string>, port: number): Promise<GatewayProcess> {
  const child = spawn(process.execPath, ['src/main.ts', 'serve'], {
    env: {
      ...process.env,
      GATEWAY_DATABASE_URL: '',
      GATEWAY_DATA_DIR: dataDir,
      PORT: String(port),
      GATEWAY_LOG_LEVEL: 'info',
      GATEWAY_DEV_INSECURE_AUTH: 'true',
      GATEWAY_ROLES_ADMINS: admin,
      GATEWAY_AUDIT_EXPORT_LAG: '0s',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
    // Its own process group, as a shell gives a job: a Ctrl-C of the test run does not reach it twice.
    detached: true,
  });
  const log = { text: '' };
  child.stdout?.on('data', (chunk: Buffer) => (log.text += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (log.text += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = `http://127.0.0.1:${port}`;
  for (;;) {
    if (log.text.includes('gateway listening')) break;
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(
        `the gateway did not start (exit ${child.exitCode ?? child.signalCode}):\n${log.text.slice(-3000)}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return { url, pid: child.pid!, child, log, exited };
}

/** What strikes the service, and what brings it back (the gateway restarted, or the same one once it answers). */
export type Fault = Readonly<{
  name: string;
  inject(gateway: GatewayProcess): Promise<void>;
  recover(gateway: GatewayProcess): Promise<GatewayProcess>;
  /** A clause for the summary line (what recovery cost), when the fault measures one. */
  report?(): string;
  /** What the fault saw go wrong while it struck or recovered, since the last call: invariant violations. */
  problems?(): string[];
  /** The fault takes the sender down with an answer unread: a send it struck must come again. */
  seversSends?: boolean;
}>;

/**
 * kill -9 of the gateway, reaped before the restart (an unreaped pid still looks alive to the data
 * directory lock); the restart on the same directory stops the PostgreSQL the dead gateway left behind.
 */
export const killGateway = (harness: FaultHarness): Fault => ({
  name: 'gateway kill -9',
  seversSends: true,
  async inject(gateway) {
    gateway.child.kill('SIGKILL');
    await gateway.exited;
  },
  recover: () => harness.start(),
});

const databaseRecoveryLimitMs = 60_000;

const percentile = (values: readonly number[], fraction: number) =>
  [...values].sort((a, b) => a - b)[Math.max(0, Math.ceil(values.length * fraction) - 1)] ?? 0;

/** Health answers 200 (a request that hangs counts as not yet). */
async function healthUp(url: string): Promise<boolean> {
  try {
    const response = await fetch(`${url}/actuator/health`, { signal: AbortSignal.timeout(2000) });
    await response.arrayBuffer();
    return response.status === 200;
  } catch {
    return false;
  }
}

/**
 * One request to the API and one to the facade while the database may be down: each answers as if it
 * were up, or 503 with Retry-After (a problem document; plain text on the facade), never anything else.
 */
async function outageProblems(url: string): Promise<string[]> {
  const problems: string[] = [];
  const probe = async (what: string, path: string, headers: Record<string, string>, up: number, type: RegExp) => {
    let response: Response;
    let text: string;
    try {
      response = await fetch(`${url}${path}`, { headers, signal: AbortSignal.timeout(5000) });
      text = await response.text();
    } catch (error) {
      problems.push(`${what} had no answer while the database was down: ${String(error)}`);
      return;
    }
    const unavailable = response.status === 503 && response.headers.get('retry-after') !== null && type.test(text);
    if (response.status !== up && !unavailable)
      problems.push(`${what} answered ${response.status} while the database was down: ${text.slice(0, 300)}`);
  };
  await probe('GET /api/v1/marketplaces', '/api/v1/marketplaces', { 'x-dev-user': admin }, 200, /database-unavailable/);
  const unknownToken = `Basic ${Buffer.from('x:not-a-token').toString('base64')}`;
  await probe(
    'the facade (an unknown token)',
    '/git/outage-probe/info/refs?service=git-upload-pack',
    { authorization: unknownToken },
    401,
    /^[^{]*database/,
  );
  return problems;
}

/**
 * kill -9 of the embedded PostgreSQL's postmaster, the gateway left running: its supervisor must start
 * the server again (crash recovery) and the same gateway process must answer health 200 within
 * `databaseRecoveryLimitMs`. Recovered means a new postmaster and health UP: a health check answered
 * before the old backends noticed their postmaster's death would otherwise count as a recovery of 0 ms.
 */
export const killDatabase = (harness: FaultHarness): Fault => {
  const recoveriesMs: number[] = [];
  let problems: string[] = [];
  let probes = 0;
  let killed: { pid: number; at: number } | null = null;
  return {
    name: 'database kill -9',
    async inject() {
      const pid = postmasterPid(harness.dataDir);
      if (pid === null || !isAlive(pid)) throw new Error(`no running postmaster in ${harness.dataDir}`);
      killed = { pid, at: performance.now() };
      process.kill(pid, 'SIGKILL');
    },
    async recover(gateway) {
      if (killed === null) throw new Error('recover before inject');
      const { pid, at } = killed;
      killed = null;
      let probedAt = 0;
      for (;;) {
        if (gateway.child.exitCode !== null || gateway.child.signalCode !== null) {
          throw new Error(
            `the gateway exited (${gateway.child.exitCode ?? gateway.child.signalCode}) after its database was killed:\n` +
              gateway.log.text.slice(-3000),
          );
        }
        const restarted = postmasterPid(harness.dataDir);
        if (restarted !== null && restarted !== pid && (await healthUp(gateway.url))) break;
        if (performance.now() - at > databaseRecoveryLimitMs) {
          throw new Error(
            `health was not UP ${databaseRecoveryLimitMs} ms after the database was killed (postmaster ${restarted}):\n` +
              gateway.log.text.slice(-3000),
          );
        }
        if (performance.now() - probedAt > 250) {
          probes += 1;
          problems.push(...(await outageProblems(gateway.url)));
          probedAt = performance.now();
        } else await new Promise((resolve) => setTimeout(resolve, 25));
      }
      recoveriesMs.push(Math.round(performance.now() - at));
      return gateway;
    },
    report: () =>
      `recovery ms after the database kill: max ${Math.max(0, ...recoveriesMs)}, ` +
      `p50 ${percentile(recoveriesMs, 0.5)}; ${probes} outage probes of the API and the facade`,
    problems: () => {
      const found = problems;
      problems = [];
      return found;
    },
  };
};

export type Answer = Readonly<{ status: number; body: any; text: string }>;

/** No answer came (the connection broke or was refused): the act may or may not have happened. */
export class NoAnswer extends Error {
  readonly path: string;
  constructor(path: string, cause: unknown) {
    super(`no answer to ${path}: ${cause instanceof Error ? cause.message : String(cause)}`);
    this.path = path;
    this.name = 'NoAnswer';
  }
}

/** The development hatch as a browser would use it (test/support/api.ts devSession), on a moving base URL. */
export function sessionClient(base: () => string, user = admin) {
  // The XSRF check compares the cookie with the header (double submit), so one value serves every restart.
  const xsrf = 'fault-suite-xsrf';
  const call = async (method: string, path: string, body?: unknown): Promise<Answer> => {
    let response: Response;
    let text: string;
    try {
      response = await fetch(`${base()}${path}`, {
        method,
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        headers: {
          'x-dev-user': user,
          cookie: `XSRF-TOKEN=${xsrf}`,
          'x-xsrf-token': xsrf,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
      });
      text = await response.text();
    } catch (error) {
      throw new NoAnswer(`${method} ${path}`, error);
    }
    let parsed: unknown = null;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = null;
    }
    return { status: response.status, body: parsed, text };
  };
  return {
    user,
    get: (path: string) => call('GET', path),
    post: (path: string, body?: unknown) => call('POST', path, body),
    delete: (path: string, body?: unknown) => call('DELETE', path, body),
  };
}

export type Session = ReturnType<typeof sessionClient>;

/** mulberry32: small, seedable, good enough to pick acts; the seed is printed so a run can be repeated. */
export function random(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let x = state;
    x = Math.imul(x ^ (x >>> 15), x | 1);
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61);
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (below: number) => Math.floor(next() * below),
    pick: <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!,
    weighted: <T>(choices: ReadonlyArray<readonly [T, number]>): T => {
      const total = choices.reduce((sum, [, weight]) => sum + weight, 0);
      let at = next() * total;
      for (const [choice, weight] of choices) {
        at -= weight;
        if (at < 0) return choice;
      }
      return choices.at(-1)![0];
    },
  };
}

export type Random = ReturnType<typeof random>;
