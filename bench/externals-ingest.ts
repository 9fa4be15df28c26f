// The whole ingest of a marketplace of external sources through a real gateway (ingest
// time first and second time; target: second ingest ≤ 10 % of the first), for bench/externals.ts.
//
// The gateway runs in its own process (bench/bench-gateway.ts) on a fresh database; the marketplace's
// upstream is a repository on the same `git http-backend` server as the external repositories, whose
// manifest lists every generated external source. Runs, each `POST /api/v1/marketplaces/{name}/ingest`:
//   first   fetch the upstream, resolve every source, compose, vet (a new held snapshot);
//   second  nothing changed upstream (BENCH_EXTERNALS_REPEATS times, the median is the figure): the
//           same snapshot answers, no new capture;
//   moved   one repository's `main` moved (a plugin directory a default-branch source names changed):
//           that repository is fetched again, the others are not; a new snapshot is captured and vetted.
import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { ExternalPlugin } from '../src/domain/plugin/manifest-policy.ts';
import { devSession, startBenchGateway, type BenchGateway, type GatewayStats } from './bench-gateway.ts';
import { CpuMeter } from './cpu.ts';
import { openBenchDatabase, postmasterPid, type BenchDatabase } from './database.ts';
import { log } from './env.ts';
import { gitIn, type GitHttpServer } from './git-repos.ts';

const marketplace = 'externals';
const manifestPath = '.claude-plugin/marketplace.json';

/** The manifest entry of an external source, as a marketplace author writes it. */
const entryOf = (e: ExternalPlugin) => ({
  name: e.name,
  description: `${e.name}, from ${e.url.split('/').pop()}`,
  source: {
    source: e.kind,
    url: e.url,
    ...(e.kind === 'git-subdir' ? { path: e.path } : {}),
    ...(e.ref === null ? {} : { ref: e.ref }),
    ...(e.sha === null ? {} : { sha: e.sha }),
  },
});

/** `<root>/marketplace.git`: one commit holding a manifest that lists every external source. */
export async function buildManifestRepo(
  root: string,
  home: string,
  externals: readonly ExternalPlugin[],
): Promise<string> {
  const work = join(root, 'marketplace-work');
  const bare = join(root, 'marketplace.git');
  mkdirSync(join(work, '.claude-plugin'), { recursive: true });
  writeFileSync(
    join(work, manifestPath),
    `${JSON.stringify(
      {
        name: marketplace,
        owner: { name: 'Bench Upstream' },
        description: `${externals.length} external plugin sources`,
        plugins: externals.map(entryOf),
      },
      null,
      2,
    )}\n`,
  );
  await gitIn(root, home, 'init', '--bare', '--quiet', '--initial-branch=main', bare);
  await gitIn(root, home, 'init', '--quiet', '--initial-branch=main', work);
  await gitIn(work, home, 'add', '-A');
  await gitIn(work, home, 'commit', '--quiet', '-m', 'Marketplace of external sources');
  await gitIn(work, home, 'push', '--quiet', bare, 'HEAD:refs/heads/main');
  return 'marketplace.git';
}

/**
 * Moves `main` of one generated repository: a commit that changes the README of the plugin directory
 * `path` (which a default-branch source names), pushed to the served bare repository.
 */
async function moveBranch(root: string, home: string, repository: string, path: string): Promise<string> {
  const work = join(root, `${repository}-work`);
  const readme = join(work, path, 'README.md');
  writeFileSync(readme, `${await gitIn(work, home, 'show', `HEAD:${path}/README.md`)}\n\nMoved upstream.\n`);
  await gitIn(work, home, 'commit', '--quiet', '-am', 'Move main');
  await gitIn(work, home, 'push', '--quiet', join(root, `${repository}.git`), 'HEAD:refs/heads/main');
  return gitIn(work, home, 'rev-parse', 'HEAD');
}

export type IngestRun = Readonly<{
  ms: number;
  snapshotId: number;
  state: string;
  unresolved: number;
  /** Requests the upstream server answered, by kind. */
  requests: Record<string, number>;
  /** git processes the gateway spawned, by subcommand. */
  spawns: Record<string, number>;
  /** Milliseconds those git processes lived, summed by subcommand (concurrent ones overlap). */
  gitMs: Record<string, number>;
  cpu: ReturnType<typeof CpuMeter.delta>;
  /** 1-minute load average before and after the run. */
  load: [number, number];
}>;

export type IngestRuns = Readonly<{
  first: IngestRun;
  seconds: IngestRun[];
  moved: IngestRun;
  movedRepository: string;
  fetchConcurrency: number;
}>;

type Session = ReturnType<typeof devSession>;

async function timedIngest(
  api: Session,
  gateway: BenchGateway,
  server: GitHttpServer,
  meter: CpuMeter,
): Promise<IngestRun> {
  await server.reset();
  await gateway.reset();
  const load0 = loadavg()[0]!;
  const before = meter.sample();
  const started = performance.now();
  const answer = await api.expect('ingest', 201, api.post(`/api/v1/marketplaces/${marketplace}/ingest`));
  const ms = performance.now() - started;
  const cpu = CpuMeter.delta(before, meter.sample());
  const stats: GatewayStats = await gateway.stats();
  return {
    ms,
    snapshotId: answer.body.id as number,
    state: answer.body.state as string,
    unresolved: (answer.body.unresolved as unknown[] | undefined)?.length ?? 0,
    requests: await server.stats(),
    spawns: stats.spawns,
    gitMs: Object.fromEntries(
      Object.entries(stats.gitLifetimes).map(([command, t]) => [command, Math.round(t.totalMs)]),
    ),
    cpu,
    load: [round(load0), round(loadavg()[0]!)],
  };
}

const round = (n: number) => Math.round(n * 100) / 100;

/** Registers the marketplace on a fresh gateway and times its ingests (see the head of this file). */
export async function measureIngest(
  options: Readonly<{
    scratch: string;
    upstreams: string;
    server: GitHttpServer;
    externals: readonly ExternalPlugin[];
    repeats: number;
    concurrency: number;
  }>,
): Promise<IngestRuns> {
  const { scratch, upstreams, server, externals } = options;
  const manifestRepo = await buildManifestRepo(upstreams, scratch, externals);
  const dataDir = join(scratch, 'gateway-data');
  mkdirSync(dataDir, { recursive: true });
  let database: BenchDatabase | null = null;
  let gateway: BenchGateway | null = null;
  let client: pg.Client | null = null;
  try {
    database = await openBenchDatabase(log);
    gateway = await startBenchGateway({
      databaseUrl: database.url,
      dataDir,
      log,
      env: { GATEWAY_INGEST_FETCH_CONCURRENCY: String(options.concurrency), GATEWAY_LOG_LEVEL: 'warn' },
    });
    const gw: BenchGateway = gateway;
    client = new pg.Client({ connectionString: database.url });
    await client.connect();
    const meter = new CpuMeter(() => ({ gateway: gw.pid, upstream: server.pid }), await postmasterPid(client));
    const api = devSession(gw.url, 'root');
    await api.expect(
      'register',
      201,
      api.post('/api/v1/marketplaces', { name: marketplace, url: `${server.baseUrl}/${manifestRepo}` }),
    );
    log(`gateway: first ingest of ${externals.length} external sources`);
    const first = await timedIngest(api, gw, server, meter);
    if (first.state !== 'held' || first.unresolved !== 0)
      throw new Error(`first ingest: ${first.state}, ${first.unresolved} unresolved (expected held, none)`);
    const seconds: IngestRun[] = [];
    for (let i = 0; i < options.repeats; i++) {
      log(`gateway: second ingest ${i + 1}/${options.repeats}, nothing changed upstream`);
      const run = await timedIngest(api, gw, server, meter);
      if (run.snapshotId !== first.snapshotId)
        throw new Error(`second ingest captured snapshot ${run.snapshotId}, expected ${first.snapshotId} again`);
      seconds.push(run);
    }
    const moved = externals.find((e) => e.kind === 'git-subdir' && e.ref === null && e.sha === null)!;
    const movedRepository = moved.url
      .split('/')
      .pop()!
      .replace(/\.git$/, '');
    await moveBranch(upstreams, scratch, movedRepository, moved.path);
    log(`gateway: ingest after ${movedRepository} moved main (${moved.path} changed)`);
    const after = await timedIngest(api, gw, server, meter);
    if (after.snapshotId === first.snapshotId || after.unresolved !== 0)
      throw new Error(`ingest after the move: snapshot ${after.snapshotId}, ${after.unresolved} unresolved`);
    return { first, seconds, moved: after, movedRepository, fetchConcurrency: options.concurrency };
  } catch (error) {
    if (gateway) log(`gateway log: ${(gateway as BenchGateway).logFile}`);
    throw error;
  } finally {
    await client?.end().catch(() => {});
    await gateway?.close().catch(() => {});
    await database?.close().catch(() => {});
  }
}
