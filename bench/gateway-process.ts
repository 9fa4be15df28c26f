// The gateway under benchmark, in a process of its own (as it runs in production): started by
// bench/bench-gateway.ts with an IPC channel, configured from the environment like `gateway serve`.
//
// Instrumentation, all cheap and outside src/: every `git` the gateway starts is counted by
// subcommand (its git launcher's methods and child_process.spawn wrapped before the gateway is imported), every HTTP request is
// counted and timed by kind on the Node server, and the event loop's utilisation is kept.
import { createRequire, syncBuiltinESMExports } from 'node:module';
import type * as ChildProcesses from 'node:child_process';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import type { IncomingMessage, ServerResponse } from 'node:http';

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
    if (arg === '-C' || arg === '-c') {
      i++;
      continue;
    }
    if (arg.startsWith('-')) continue;
    return arg === 'upload-pack' && args.includes('--advertise-refs') ? 'upload-pack --advertise-refs' : arg;
  }
  return '?';
};
const originalSpawn = childProcesses.spawn;
const countingSpawn = function countingSpawn(this: unknown, command: string, ...rest: unknown[]) {
  const args = Array.isArray(rest[0]) ? (rest[0] as string[]) : [];
  const key = command === 'git' ? `git ${gitSubcommand(args)}` : command;
  spawns.set(key, (spawns.get(key) ?? 0) + 1);
  const started = performance.now();
  const child = (originalSpawn as (...a: unknown[]) => ChildProcesses.ChildProcess).call(this, command, ...rest);
  const spawned = performance.now();
  record(spawnCalls, key, spawned - started);
  child.once('exit', () => record(gitLifetimes, key, performance.now() - started));
  return child;
};
(childProcesses as { spawn: unknown }).spawn = countingSpawn;
syncBuiltinESMExports();

// The gateway starts git through its launcher process (src/adapters/git/git-launcher.ts): counted and timed
// there, by subcommand, as the starts of the gateway's own children are above.
const { gitLauncher } = await import('../src/adapters/git/git-launcher.ts');
const launcher = gitLauncher as unknown as Record<'run' | 'spawn', (...args: unknown[]) => unknown>;
const originalRun = launcher.run.bind(gitLauncher);
const originalLaunch = launcher.spawn.bind(gitLauncher);
const counted = <Result>(request: { command?: string; args: readonly string[] }, start: () => Result) => {
  const key = request.command ? request.command.split('/').at(-1)! : `git ${gitSubcommand(request.args)}`;
  spawns.set(key, (spawns.get(key) ?? 0) + 1);
  const started = performance.now();
  const result = start();
  record(spawnCalls, key, performance.now() - started);
  return { result, ended: () => record(gitLifetimes, key, performance.now() - started) };
};
launcher.run = (request, listener) => {
  const l = listener as { close: (...args: unknown[]) => void };
  let ended = () => {};
  const started = counted(request as { args: string[] }, () =>
    originalRun(request, {
      ...l,
      close: (...args: unknown[]) => {
        ended();
        l.close(...args);
      },
    }),
  );
  ended = started.ended;
  return started.result;
};
launcher.spawn = (request) => {
  const started = counted(request as { args: string[] }, () => originalLaunch(request) as ChildProcesses.ChildProcess);
  started.result.once('close', started.ended);
  return started.result;
};

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
    result.then(
      () => record(queries, key, performance.now() - started),
      () => record(queries, `(failed) ${key}`, performance.now() - started),
    );
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

async function main(): Promise<void> {
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
        eventLoop: {
          utilization: elu.utilization,
          delayP99Ms: eventLoopDelay.percentile(99) / 1e6,
          delayMaxMs: eventLoopDelay.max / 1e6,
        },
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
  process.on('disconnect', () => {
    void gateway.close().finally(() => process.exit(0));
  });
  send({ type: 'ready', url: gateway.url });
}

main().catch((error: unknown) => {
  process.stderr.write(
    `[gateway] failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exit(1);
});
