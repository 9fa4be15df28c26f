// The benchmark's handle on a gateway running in a child process (bench/gateway-process.ts),
// configured as the HTTP tests configure theirs (test/support/gateway.ts): its own database and
// data directory, port 0, the development sign-in hatch with `root` as a configured admin.
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const benchDir = dirname(fileURLToPath(import.meta.url));
const projectRoot = join(benchDir, '..');

export type RequestTiming = Readonly<{ count: number; totalMs: number; samples: number[] }>;
export type GatewayStats = Readonly<{
  spawns: Record<string, number>;
  requests: Record<string, RequestTiming>;
  /** How long each spawn() call held the gateway's event loop, by git subcommand. */
  spawnCalls: Record<string, RequestTiming>;
  /** From spawn to exit, by git subcommand. */
  gitLifetimes: Record<string, RequestTiming>;
  /** SQL statements by their first words, from the call to the result. */
  queries: Record<string, RequestTiming>;
  eventLoop: { utilization: number; delayP99Ms: number; delayMaxMs: number };
  memoryRss: number;
}>;

export type BenchGateway = Readonly<{
  url: string;
  pid: number;
  logFile: string;
  /** Counters since the last reset: git spawns by subcommand, requests by kind, event-loop use. */
  stats(): Promise<GatewayStats>;
  reset(): Promise<void>;
  close(): Promise<void>;
}>;

export type BenchGatewayOptions = Readonly<{
  databaseUrl: string;
  dataDir: string;
  env?: Readonly<Record<string, string>>;
  log: (line: string) => void;
}>;

/** Starts the gateway child process and waits until it listens. */
export async function startBenchGateway(options: BenchGatewayOptions): Promise<BenchGateway> {
  const logFile = join(options.dataDir, 'gateway.log');
  const out = openSync(logFile, 'a');
  const nodeArgs = (process.env.BENCH_GATEWAY_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const child: ChildProcess = spawn(
    process.execPath,
    ['--import', 'tsx', ...nodeArgs, join(benchDir, 'gateway-process.ts')],
    {
      cwd: projectRoot,
      stdio: ['ignore', out, out, 'ipc'],
      env: {
        ...process.env,
        GATEWAY_DATABASE_URL: options.databaseUrl,
        GATEWAY_DATA_DIR: options.dataDir,
        PORT: '0',
        GATEWAY_DEV_INSECURE_AUTH: 'true',
        GATEWAY_ROLES_ADMINS: 'root',
        GATEWAY_LOG_LEVEL: process.env.BENCH_GATEWAY_LOG_LEVEL ?? 'info',
        ...options.env,
      },
    },
  );
  closeSync(out);
  const tail = () => {
    try {
      return readFileSync(logFile, 'utf8').trim().split('\n').slice(-5).join('\n');
    } catch {
      return '';
    }
  };
  const waiting = new Map<string, Array<(message: unknown) => void>>();
  child.on('message', (message: { type?: string }) => {
    const queue = waiting.get(message.type ?? '');
    queue?.shift()?.(message);
  });
  const next = <T>(type: string): Promise<T> =>
    new Promise((resolve) => {
      const queue = waiting.get(type) ?? [];
      queue.push(resolve as (message: unknown) => void);
      waiting.set(type, queue);
    });
  let exited = false;
  const exit = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => {
      exited = true;
      resolve(code);
    }),
  );
  const ready = await Promise.race([
    next<{ url: string }>('ready'),
    exit.then((code) => {
      throw new Error(`the gateway exited during start (code ${code}):\n${tail()}`);
    }),
  ]);
  options.log(`gateway (pid ${child.pid}) listening on ${ready.url}; log ${logFile}`);
  return {
    url: ready.url,
    pid: child.pid!,
    logFile,
    async stats() {
      const answer = next<GatewayStats>('stats');
      child.send({ cmd: 'stats' });
      return answer;
    },
    async reset() {
      const answer = next<unknown>('reset');
      child.send({ cmd: 'reset' });
      await answer;
    },
    async close() {
      if (exited) return;
      child.send({ cmd: 'close' });
      const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
      await exit;
      clearTimeout(timer);
    },
  };
}

export type ApiAnswer = { status: number; headers: Headers; body: Record<string, unknown>; text: string };

/** A session client through the development hatch, echoing the XSRF cookie (as test/support/api.ts). */
export function devSession(baseUrl: string, user: string) {
  let xsrf: string | undefined;
  const call = async (method: string, path: string, body?: unknown): Promise<ApiAnswer> => {
    if (!xsrf)
      xsrf = /XSRF-TOKEN=([^;]+)/.exec(
        (await fetch(`${baseUrl}/actuator/health`)).headers.get('set-cookie') ?? '',
      )?.[1];
    const response = await fetch(`${baseUrl}${path}`, {
      method,
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      headers: {
        'x-dev-user': user,
        cookie: `XSRF-TOKEN=${xsrf}`,
        'x-xsrf-token': xsrf ?? '',
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
    });
    const text = await response.text();
    let parsed: Record<string, unknown> = {};
    try {
      parsed = JSON.parse(text) as Record<string, unknown>;
    } catch {
      parsed = {};
    }
    return { status: response.status, headers: response.headers, body: parsed, text };
  };
  const expect = async (what: string, status: number, answer: Promise<ApiAnswer>): Promise<ApiAnswer> => {
    const result = await answer;
    if (result.status !== status)
      throw new Error(`${what}: expected ${status}, got ${result.status}: ${result.text.slice(0, 500)}`);
    return result;
  };
  return {
    get: (path: string) => call('GET', path),
    post: (path: string, body?: unknown) => call('POST', path, body),
    expect,
  };
}
