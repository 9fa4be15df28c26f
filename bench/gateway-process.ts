// The gateway under benchmark, in a process of its own (as it runs in production): started by
// bench/bench-gateway.ts with an IPC channel, configured from the environment like `gateway serve`.
//
// Instrumentation, all cheap and outside src/: every `git` the gateway spawns is counted by
// subcommand (child_process.spawn wrapped before the gateway is imported), every HTTP request is
// counted and timed by kind on the Node server, and the event loop's utilisation is kept.
//
// BENCH_EXPERIMENT (comma-separated) swaps in what-if versions of src/ code, to size a recommended
// change before it is made; off by default, the figures are the code as it is:
//   refs-cache               GitStore.refs answers from memory until converge() changes the refs,
//                            instead of a `git for-each-ref` per facade request
//   advertisement-cache      the v2 capability advertisement of GET info/refs replayed from memory
//                            instead of an `upload-pack --advertise-refs` per request
import { createRequire, syncBuiltinESMExports } from 'node:module';
import type * as ChildProcesses from 'node:child_process';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { EventEmitter } from 'node:events';
import { PassThrough, Writable } from 'node:stream';

const require = createRequire(import.meta.url);
const childProcesses = require('node:child_process') as typeof ChildProcesses;

type Timing = { count: number; totalMs: number; samples: number[] };
const record = (into: Map<string, Timing>, key: string, ms: number) => {
  const timing = into.get(key) ?? { count: 0, totalMs: 0, samples: [] };
  timing.count++;
  timing.totalMs += ms;
  if (timing.samples.length < 200_000) timing.samples.push(ms);
  into.set(key, timing);
};

const spawns = new Map<string, number>();
/** Per git subcommand: how long spawn() held the event loop, and the process's life until exit. */
const spawnCalls = new Map<string, Timing>();
const gitLifetimes = new Map<string, Timing>();
const gitSubcommand = (args: readonly string[]): string => {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '-C' || arg === '-c') { i++; continue; }
    if (arg.startsWith('-')) continue;
    return arg === 'upload-pack' && args.includes('--advertise-refs') ? 'upload-pack --advertise-refs' : arg;
  }
  return '?';
};
const experiments = (process.env.BENCH_EXPERIMENT ?? '').split(',').filter(Boolean);

// What-if (advertisement-cache): the protocol v2 capability advertisement names no refs and is the
// same for every repository, so after one real `upload-pack --advertise-refs` it is replayed from
// memory by a stand-in child process instead of spawning git for every GET info/refs.
let advertisement: Buffer | null = null;
function cachedAdvertisement(): ChildProcesses.ChildProcess | null {
  if (!advertisement) return null;
  const child = new EventEmitter() as EventEmitter & { stdin: Writable; stdout: PassThrough; stderr: PassThrough; exitCode: number | null; kill: () => boolean };
  child.stdin = new Writable({ write: (_chunk, _encoding, done) => done() });
  child.stdout = new PassThrough();
  child.stderr = new PassThrough();
  child.exitCode = null;
  child.kill = () => false;
  const bytes = advertisement;
  setImmediate(() => {
    child.stdout.end(bytes);
    child.stderr.end();
    child.exitCode = 0;
    child.emit('exit', 0, null);
    child.emit('close', 0, null);
  });
  return child as unknown as ChildProcesses.ChildProcess;
}

const originalSpawn = childProcesses.spawn;
const countingSpawn = function countingSpawn(this: unknown, command: string, ...rest: unknown[]) {
  const args = Array.isArray(rest[0]) ? (rest[0] as string[]) : [];
  const key = command === 'git' ? `git ${gitSubcommand(args)}` : command;
  const v2Advertisement = key === 'git upload-pack --advertise-refs'
    && (rest[1] as { env?: Record<string, string> } | undefined)?.env?.GIT_PROTOCOL === 'version=2' && experiments.includes('advertisement-cache');
  if (v2Advertisement) {
    const cached = cachedAdvertisement();
    if (cached) return cached;
  }
  spawns.set(key, (spawns.get(key) ?? 0) + 1);
  const started = performance.now();
  const child = (originalSpawn as (...a: unknown[]) => ChildProcesses.ChildProcess).call(this, command, ...rest);
  const spawned = performance.now();
  record(spawnCalls, key, spawned - started);
  child.once('exit', () => record(gitLifetimes, key, performance.now() - started));
  if (v2Advertisement) {
    const chunks: Buffer[] = [];
    child.stdout?.on('data', (chunk: Buffer) => chunks.push(chunk));
    child.once('close', (code) => { if (code === 0) advertisement = Buffer.concat(chunks); });
  }
  return child;
};
(childProcesses as { spawn: unknown }).spawn = countingSpawn;
syncBuiltinESMExports();

const requests = new Map<string, Timing>();

// Every SQL statement the gateway sends through pg (slonik's driver calls client.query(sql, values)),
// timed from the call to the result, by the statement's first words.
const queries = new Map<string, Timing>();
const pgModule = require('pg') as { Client: { prototype: { query: (...args: unknown[]) => unknown } } };
const originalQuery = pgModule.Client.prototype.query;
pgModule.Client.prototype.query = function timedQuery(this: unknown, ...args: unknown[]) {
  const result = originalQuery.apply(this, args);
  if (typeof args[0] === 'string' && typeof args.at(-1) !== 'function' && result instanceof Promise) {
    const key = args[0].replace(/\s+/g, ' ').trim().slice(0, 90);
    const started = performance.now();
    result.then(() => record(queries, key, performance.now() - started), () => record(queries, `(failed) ${key}`, performance.now() - started));
  }
  return result;
};
const kindOf = (req: IncomingMessage): string => {
  const path = (req.url ?? '/').split('?')[0] ?? '/';
  if (path.startsWith('/git/')) {
    if (path.endsWith('/info/refs')) return `${req.method} /git/*/info/refs`;
    if (path.endsWith('/git-upload-pack')) return `${req.method} /git/*/git-upload-pack`;
    return `${req.method} /git/* (other)`;
  }
  return `${req.method} ${path}`;
};

const eventLoopDelay = monitorEventLoopDelay({ resolution: 10 });
eventLoopDelay.enable();
let eventLoopBaseline = performance.eventLoopUtilization();

const send = (message: unknown) => process.send?.(message);
const { patchRefsCache } = await import('./experiments.ts');

async function main(): Promise<void> {
  for (const experiment of experiments) {
    if (experiment === 'refs-cache') await patchRefsCache();
    else if (experiment === 'advertisement-cache') continue; // in the spawn wrapper
    else throw new Error(`unknown BENCH_EXPERIMENT '${experiment}'`);
  }
  const { loadConfig } = await import('../src/adapters/config/load.ts');
  const { createLogger, startGateway } = await import('../src/gateway.ts');
  // cwd: the data directory, so no gateway.yaml of the working tree is picked up.
  const config = loadConfig({ env: process.env, cwd: process.env.GATEWAY_DATA_DIR ?? process.cwd() });
  const logger = createLogger(config);
  const gateway = await startGateway(config, logger);
  gateway.app.server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const started = performance.now();
    const kind = kindOf(req);
    res.once('close', () => record(requests, kind, performance.now() - started));
  });
  process.on('message', (message: { cmd?: string }) => {
    if (message.cmd === 'stats') {
      const elu = performance.eventLoopUtilization(eventLoopBaseline);
      send({
        type: 'stats',
        spawns: Object.fromEntries(spawns),
        requests: Object.fromEntries(requests),
        spawnCalls: Object.fromEntries(spawnCalls),
        gitLifetimes: Object.fromEntries(gitLifetimes),
        queries: Object.fromEntries(queries),
        eventLoop: { utilization: elu.utilization, delayP99Ms: eventLoopDelay.percentile(99) / 1e6, delayMaxMs: eventLoopDelay.max / 1e6 },
        memoryRss: process.memoryUsage().rss,
      });
    } else if (message.cmd === 'reset') {
      for (const map of [spawns, requests, spawnCalls, gitLifetimes, queries]) map.clear();
      eventLoopDelay.reset();
      eventLoopBaseline = performance.eventLoopUtilization();
      send({ type: 'reset' });
    } else if (message.cmd === 'close') {
      void gateway.close().finally(() => process.exit(0));
    }
  });
  process.on('disconnect', () => { void gateway.close().finally(() => process.exit(0)); });
  send({ type: 'ready', url: gateway.url, experiments });
}

main().catch((error: unknown) => {
  process.stderr.write(`[gateway] failed to start: ${error instanceof Error ? error.stack ?? error.message : String(error)}\n`);
  process.exit(1);
});
