// External plugin sources at scale: "a generated marketplace of 300 external sources
// over 60 loopback repositories, ingest time first and second time (target: second ingest ≤ 10 % of the
// first)". BENCH_EXTERNALS_SOURCES external sources (default 300) over BENCH_EXTERNALS_REPOS loopback
// repositories (default 60), measured two ways:
//
// - the whole ingest through a real gateway (bench/externals-ingest.ts): `POST …/ingest` of a marketplace
//   whose manifest lists every source, the first time (fetch, resolve, compose, vet), again with nothing
//   changed upstream (the issue's figure: second ÷ first), and after one repository moved its branch;
// - the resolution engine alone (src/adapters/git/external-sources.ts `resolveExternalSources`) into a
//   fresh git store in this process, then again with the pins unchanged (secondary figures).
//
// Four in five repositories are monorepos of BENCH_EXTERNALS_PLUGINS_PER_REPO plugins (default 10, with
// BENCH_EXTERNALS_FILES_PER_PLUGIN files each, default 8, and BENCH_EXTERNALS_COMMITS commits, default 3)
// into which `git-subdir` sources point; the fifth is a plugin repository named whole by `url` sources.
// Pins rotate over: the default branch, `main`, the tip's sha, the first commit's sha, the annotated tag
// `v1`. The repositories are served by plain `git http-backend` (bench/git-http-server.ts, allowing
// filters as GitHub does), which counts the requests: one `GET …/info/refs` per git command that talks
// to a repository (ls-remote or fetch), one or more `POST …/git-upload-pack` per command (none for an
// ls-remote over protocol v0).
//
// BENCH_EXTERNALS_CONCURRENCY (default 8) repositories at once (the gateway's
// gateway.ingest.fetch-concurrency too); BENCH_EXTERNALS_REPEATS (default 3) second runs (the median is
// the figure); BENCH_EXTERNALS_BASELINE=0 skips the engine's first resolution at concurrency 1. The
// 1-minute load average before and after each run is recorded (other work may share the machine).
// Writes bench/results/externals.json and .md.
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolveExternalSources, type ExternalResolution } from '../src/adapters/git/external-sources.ts';
import { GitStore } from '../src/adapters/git/git-store.ts';
import type { ExternalPlugin } from '../src/domain/plugin/manifest-policy.ts';
import { CpuMeter } from './cpu.ts';
import { envInt, log, withInterruptCleanup } from './env.ts';
import { measureIngest, type IngestRun, type IngestRuns } from './externals-ingest.ts';
import { buildMarketplaceRepo, gitIn, startGitHttpServer, type GitHttpServer } from './git-repos.ts';
import { figure, figureMarkdown, figureTable, fmt, machine, median, writeResultFiles } from './report.ts';

const config = () => ({
  sources: envInt('BENCH_EXTERNALS_SOURCES', 300, 1),
  repos: envInt('BENCH_EXTERNALS_REPOS', 60, 1),
  pluginsPerRepo: envInt('BENCH_EXTERNALS_PLUGINS_PER_REPO', 10, 1),
  filesPerPlugin: envInt('BENCH_EXTERNALS_FILES_PER_PLUGIN', 8, 1),
  commits: envInt('BENCH_EXTERNALS_COMMITS', 3, 2),
  concurrency: envInt('BENCH_EXTERNALS_CONCURRENCY', 8, 1),
  repeats: envInt('BENCH_EXTERNALS_REPEATS', 3, 1),
  baseline: process.env.BENCH_EXTERNALS_BASELINE !== '0',
});
type Config = ReturnType<typeof config>;

const limits = { timeoutMs: 300_000, maxPackBytes: 1024 * 1024 * 1024, maxObjects: 2_000_000 };
const round = (n: number, digits = 3) => Math.round(n * 10 ** digits) / 10 ** digits;

type Pin = Pick<ExternalPlugin, 'ref' | 'sha'>;

/** The repositories and the marketplace's external sources pointing into them. */
async function generate(root: string, home: string, server: string, cfg: Config) {
  const externals: ExternalPlugin[] = [];
  const totals = { files: 0, packBytes: 0 };
  for (let j = 0; j < cfg.repos; j++) {
    const count = Math.floor(cfg.sources / cfg.repos) + (j < cfg.sources % cfg.repos ? 1 : 0);
    const single = j % 5 === 4;
    const name = `${single ? 'plugin' : 'mono'}-${j}`;
    const built = await buildMarketplaceRepo(
      root,
      name,
      {
        plugins: single ? 1 : Math.max(cfg.pluginsPerRepo, count),
        filesPerPlugin: cfg.filesPerPlugin,
        commits: cfg.commits,
        seed: 1000 + j,
      },
      home,
    );
    totals.files += built.files;
    totals.packBytes += built.packBytes;
    await gitIn(built.bare, home, 'config', 'uploadpack.allowFilter', 'true');
    await gitIn(built.bare, home, 'tag', '-a', '-m', 'v1', 'v1', 'main~1');
    const first = await gitIn(built.bare, home, 'rev-list', '--max-parents=0', 'main');
    const pins: Pin[] = [
      { ref: null, sha: null },
      { ref: 'main', sha: null },
      { ref: null, sha: built.tip },
      { ref: null, sha: first },
      { ref: 'v1', sha: null },
    ];
    const plugins = (await gitIn(built.bare, home, 'ls-tree', '--name-only', 'main:plugins')).split('\n');
    const url = `${server}/${name}.git`;
    for (let k = 0; k < count; k++) {
      const pin = pins[k % pins.length]!;
      externals.push(
        single
          ? { name: `${name}-${k}`, kind: 'url', url, path: '', ...pin }
          : { name: `${name}-${k}`, kind: 'git-subdir', url, path: `plugins/${plugins[k % plugins.length]!}`, ...pin },
      );
    }
  }
  return { externals, totals };
}

type Run = Readonly<{
  ms: number;
  outcomes: ExternalResolution[];
  requests: Record<string, number>;
  cpu: ReturnType<typeof CpuMeter.delta>;
  /** 1-minute load average before and after. */
  load: [number, number];
}>;

/** CPU seconds of the engine or the gateway (the process and the git it ran), or of the upstream server (with its CGI). */
const side = (cpu: Run['cpu'], name: 'engine' | 'gateway' | 'upstream') =>
  round((cpu.cpuSeconds[`${name} (node)`] ?? 0) + (cpu.cpuSeconds[`${name} children`] ?? 0), 2);

async function resolve(
  store: GitStore,
  externals: readonly ExternalPlugin[],
  concurrency: number,
  server: GitHttpServer,
): Promise<Run> {
  await server.reset();
  const load0 = round(loadavg()[0]!, 2);
  const meter = new CpuMeter(() => ({ engine: process.pid, upstream: server.pid }));
  const before = meter.sample();
  const started = performance.now();
  const outcomes = await resolveExternalSources(store, 1, externals, { limits, concurrency });
  const ms = performance.now() - started;
  const cpu = CpuMeter.delta(before, meter.sample());
  const failed = outcomes.filter((o) => !o.ok);
  if (failed.length > 0) throw new Error(`${failed.length} sources unresolved, e.g. ${JSON.stringify(failed[0])}`);
  return { ms, outcomes, requests: await server.stats(), cpu, load: [load0, round(loadavg()[0]!, 2)] };
}

const perRepo = (requests: Record<string, number>, kind: string, repos: number) =>
  round((requests[kind] ?? 0) / repos, 2);

export async function externalsBenchmark(): Promise<void> {
  const cfg = config();
  const scratch = mkdtempSync(join(tmpdir(), 'bench-externals-'));
  const upstreams = join(scratch, 'upstreams');
  let server: GitHttpServer | undefined;
  const cleanup = async () => {
    await server?.close().catch(() => {});
    rmSync(scratch, { recursive: true, force: true });
  };
  await withInterruptCleanup(cleanup, async () => {
    try {
      mkdirSync(upstreams, { recursive: true });
      server = await startGitHttpServer(upstreams);
      log(`generating ${cfg.repos} repositories for ${cfg.sources} external sources`);
      const { externals, totals } = await generate(upstreams, scratch, server.baseUrl, cfg);
      const engine = await measureEngine(cfg, scratch, server, externals);
      const ingest = await measureIngest({
        scratch,
        upstreams,
        server,
        externals,
        repeats: cfg.repeats,
        concurrency: cfg.concurrency,
      });
      report(cfg, engine, ingest, externals, totals);
    } finally {
      await cleanup();
    }
  });
}

type EngineRuns = Readonly<{
  baseline: Run | null;
  first: Run;
  seconds: Run[];
  quarantineObjects: number;
  cacheRepositories: number;
}>;

/** The resolution engine alone, in this process: a first resolution into an empty store, then the seconds. */
async function measureEngine(
  cfg: Config,
  scratch: string,
  server: GitHttpServer,
  externals: readonly ExternalPlugin[],
): Promise<EngineRuns> {
  let baseline: Run | null = null;
  if (cfg.baseline) {
    log('engine: first resolution at concurrency 1 (baseline)');
    baseline = await resolve(new GitStore(join(scratch, 'git-baseline')), externals, 1, server);
  }
  const store = new GitStore(join(scratch, 'git'));
  log(`engine: first resolution at concurrency ${cfg.concurrency}`);
  const first = await resolve(store, externals, cfg.concurrency, server);
  const seconds: Run[] = [];
  for (let i = 0; i < cfg.repeats; i++) {
    log(`engine: second resolution ${i + 1}/${cfg.repeats}, pins unchanged`);
    seconds.push(await resolve(store, externals, cfg.concurrency, server));
  }
  if (seconds.some((run) => JSON.stringify(run.outcomes) !== JSON.stringify(first.outcomes)))
    throw new Error('a second resolution answered differently');
  const quarantineObjects = Number(
    /in-pack: (\d+)/.exec(await gitIn(store.quarantinePath(1), scratch, 'count-objects', '-v'))?.[1] ?? 0,
  );
  const cacheRepositories = readdirSync(join(store.root, 'external-cache')).length;
  return { baseline, first, seconds, quarantineObjects, cacheRepositories };
}

const refs = 'GET */info/refs';
const posts = 'POST */git-upload-pack';
const seconds = (ms: number, digits = 2) => round(ms / 1000, digits);
const loads = (runs: ReadonlyArray<{ load: [number, number] }>) =>
  runs.map((run) => `${run.load[0]}→${run.load[1]}`).join(', ');
const spawnText = (spawns: Record<string, number>) =>
  Object.entries(spawns)
    .sort(([, a], [, b]) => b - a)
    .slice(0, 8)
    .map(([command, n]) => `${command.replace(/^git /, '')} ${n}`)
    .join(', ') + (Object.keys(spawns).length > 8 ? ', …' : '');
const msText = (ms: Record<string, number>) =>
  Object.entries(ms)
    .sort(([, a], [, b]) => b - a)
    .slice(0, 6)
    .map(([command, n]) => `${command} ${fmt(n)} ms`)
    .join(', ');
/** CPU seconds of the gateway (with its git), the upstream server (with its CGI) and PostgreSQL. */
const ingestCpu = (cpu: IngestRun['cpu']) =>
  `gateway and its git ${side(cpu, 'gateway')} s, upstream server ${side(cpu, 'upstream')} s, ` +
  `PostgreSQL ${cpu.cpuSeconds.postgres ?? 0} s, other processes ${cpu.cpuSeconds['other processes'] ?? 0} s; ` +
  `machine ${cpu.machineBusyPercent} % busy`;

function ingestFigures(cfg: Config, ingest: IngestRuns, sources: number) {
  const { first, moved } = ingest;
  const secondMs = median(ingest.seconds.map((run) => run.ms));
  const last = ingest.seconds.at(-1)!;
  return [
    figure(
      'ingest-first',
      'first ingest (fetch, resolve, compose, vet)',
      seconds(first.ms),
      's',
      undefined,
      `POST /api/v1/marketplaces/{name}/ingest, ${sources} sources over ${cfg.repos} repositories, ` +
        `fetch-concurrency ${ingest.fetchConcurrency}; git: ${spawnText(first.spawns)}; ${ingestCpu(first.cpu)}`,
    ),
    figure(
      'ingest-second',
      'second ingest, nothing changed upstream (median)',
      seconds(secondMs, 3),
      's',
      undefined,
      `runs: ${ingest.seconds.map((run) => seconds(run.ms, 3)).join(', ')} s, the same snapshot answers; ` +
        `git: ${spawnText(last.spawns)}; ${ingestCpu(last.cpu)}`,
    ),
    figure('ratio', 'second ingest ÷ first ingest', round(secondMs / first.ms, 3), '', { atMost: 0.1, unit: '' }),
    figure(
      'ingest-cpu-ratio',
      'gateway CPU, second ingest ÷ first',
      round(side(last.cpu, 'gateway') / side(first.cpu, 'gateway'), 3),
      '',
      undefined,
      'the gateway process and the git it ran, without the loopback upstream server (which shares the cores ' +
        `here and costs a real gateway nothing): ${side(first.cpu, 'gateway')} s, then ${side(last.cpu, 'gateway')} s`,
    ),
    figure(
      'ingest-moved',
      'ingest after one repository moved its branch',
      seconds(moved.ms),
      's',
      undefined,
      `${ingest.movedRepository} moved main: a new snapshot, composed and vetted; ` +
        `${(moved.spawns['git fetch'] ?? 0) - (last.spawns['git fetch'] ?? 0)} fetches more than a second ingest ` +
        `(the moved repository's commit, then its blobs), the other repositories one ls-remote each; ` +
        `git: ${spawnText(moved.spawns)}; ` +
        `${ingestCpu(moved.cpu)}`,
    ),
  ];
}

function engineFigures(cfg: Config, engine: EngineRuns, sources: number) {
  const { first, baseline } = engine;
  const secondMs = median(engine.seconds.map((run) => run.ms));
  const last = engine.seconds.at(-1)!;
  return [
    figure(
      'engine-first',
      'engine: first resolution',
      seconds(first.ms),
      's',
      undefined,
      `resolveExternalSources, ${sources} sources, concurrency ${cfg.concurrency}, empty store`,
    ),
    figure(
      'engine-second',
      'engine: second resolution, pins unchanged (median)',
      seconds(secondMs, 3),
      's',
      undefined,
      `runs: ${engine.seconds.map((run) => seconds(run.ms, 3)).join(', ')} s`,
    ),
    figure('engine-ratio', 'engine: second ÷ first', round(secondMs / first.ms, 3), ''),
    figure(
      'engine-cpu-ratio',
      'engine: CPU, second ÷ first',
      round(side(last.cpu, 'engine') / side(first.cpu, 'engine'), 3),
      '',
      undefined,
      `this process and its git: ${side(first.cpu, 'engine')} s, then ${side(last.cpu, 'engine')} s; ` +
        `upstream server with its CGI: ${side(first.cpu, 'upstream')} s, then ${side(last.cpu, 'upstream')} s; ` +
        `machine busy ${first.cpu.machineBusyPercent} %, then ${last.cpu.machineBusyPercent} %`,
    ),
    figure(
      'first-commands',
      'engine: git commands per repository, first',
      perRepo(first.requests, refs, cfg.repos),
      '',
      undefined,
      `${perRepo(first.requests, posts, cfg.repos)} upload-pack requests per repository`,
    ),
    figure(
      'second-commands',
      'engine: git commands per repository, second',
      perRepo(last.requests, refs, cfg.repos),
      '',
      undefined,
      `${perRepo(last.requests, posts, cfg.repos)} upload-pack requests per repository (ls-remote only)`,
    ),
    ...(baseline
      ? [
          figure(
            'baseline',
            'engine: first resolution at concurrency 1',
            seconds(baseline.ms),
            's',
            undefined,
            `${perRepo(baseline.requests, refs, cfg.repos)} git commands per repository`,
          ),
        ]
      : []),
  ];
}

function report(
  cfg: Config,
  engine: EngineRuns,
  ingest: IngestRuns,
  externals: readonly ExternalPlugin[],
  totals: { files: number; packBytes: number },
): void {
  const { first, seconds: again, baseline } = engine;
  const last = again.at(-1)!;
  const figures = [...ingestFigures(cfg, ingest, externals.length), ...engineFigures(cfg, engine, externals.length)];
  const result = {
    benchmark: 'externals',
    date: new Date().toISOString(),
    machine: machine(),
    counts: {
      ...cfg,
      baseline: cfg.baseline ? 1 : 0,
      upstreamFiles: totals.files,
      upstreamPackBytes: totals.packBytes,
      distinctCommits: new Set(first.outcomes.map((o) => (o.ok ? o.commit : ''))).size,
      distinctTrees: new Set(first.outcomes.map((o) => (o.ok ? o.tree : ''))).size,
      quarantineObjects: engine.quarantineObjects,
      cacheRepositories: engine.cacheRepositories,
    },
    figures,
    loadAverage: {
      ingest: { first: ingest.first.load, second: ingest.seconds.map((r) => r.load), moved: ingest.moved.load },
      engine: { baseline: baseline?.load ?? null, first: first.load, second: again.map((r) => r.load) },
    },
    ingest: {
      movedRepository: ingest.movedRepository,
      runs: { first: ingest.first, second: ingest.seconds, moved: ingest.moved },
    },
    requests: { first: first.requests, second: last.requests, baseline: baseline?.requests ?? null },
    cpu: { first: first.cpu, second: again.map((run) => run.cpu), baseline: baseline?.cpu ?? null },
    engineMsPerRepository: {
      first: round((side(first.cpu, 'engine') * 1000) / cfg.repos, 1),
      second: round((side(last.cpu, 'engine') * 1000) / cfg.repos, 1),
    },
  };
  process.stdout.write(`\nexternals\n${figureTable(figures)}\n\n`);
  const files = writeResultFiles('externals', result, markdown(result, ingest));
  log(`wrote ${files.json} and ${files.md}`);
}

function markdown(
  report: {
    date: string;
    machine: ReturnType<typeof machine>;
    counts: Record<string, number | boolean>;
    figures: ReturnType<typeof figure>[];
    requests: Record<string, Record<string, number> | null>;
    engineMsPerRepository: { first: number; second: number };
    loadAverage: { engine: { baseline: [number, number] | null; first: [number, number]; second: [number, number][] } };
  },
  ingest: IngestRuns,
): string {
  const m = report.machine;
  const c = report.counts;
  const engineLoad = report.loadAverage.engine;
  const second = ingest.seconds.at(-1)!;
  return [
    '# External plugin sources benchmark',
    '',
    `${report.date} · ${m.cpuModel}, ${m.cores} cores, ${m.memoryGiB} GiB · ${m.platform} ${m.release} · Node ${m.node}`,
    '',
    figureMarkdown(report.figures),
    '',
    `${fmt(Number(c.sources))} external sources over ${fmt(Number(c.repos))} repositories on loopback ` +
      `(${fmt(Number(c.upstreamFiles))} files, ${fmt(Number(c.upstreamPackBytes) / 1024)} KiB packed): ` +
      `${fmt(Number(c.distinctTrees))} plugin trees at ${fmt(Number(c.distinctCommits))} commits.`,
    '',
    "## The ingest (the issue's figure)",
    '',
    'A gateway in its own process, on a fresh database, ingests a marketplace whose manifest lists every',
    'source (`POST /api/v1/marketplaces/{name}/ingest`, timed by the client):',
    '',
    ...report.figures
      .filter((f) => f.id.startsWith('ingest-'))
      .map((f) => `- ${f.label}: ${f.value}${f.unit ? ` ${f.unit}` : ''} (${f.detail ?? ''})`),
    '',
    'A second ingest with nothing changed costs: one fetch of the marketplace (nothing new), one `ls-remote` per ' +
      'repository with a ref source (60 here; over protocol v0, one request each; required, so that a moved ' +
      'branch is seen), and the composition of the same composite commit (one `mktree`, one `read-tree`, ' +
      '`write-tree`, `commit-tree`), which captures no new snapshot and so vets nothing. ' +
      `The git processes of the last second ingest lived, summed by command: ${msText(second.gitMs)}.`,
    '',
    `Upstream requests, first: ${JSON.stringify(ingest.first.requests)}; second: ${JSON.stringify(second.requests)}; ` +
      `after the move: ${JSON.stringify(ingest.moved.requests)} (the moved repository's fetches beyond the ` +
      '`ls-remote` every repository with a ref source costs).',
    '',
    `1-minute load average (before→after) on this 2-core machine (the benchmark's own processes included; other work may share it): first ingest ` +
      `${loads([ingest.first])}; second ${loads(ingest.seconds)}; after the move ${loads([ingest.moved])}.`,
    '',
    '## The resolution engine alone',
    '',
    '`resolveExternalSources` in the benchmark process into a fresh git store, without the upstream fetch,',
    'composition, vetting or the database. First resolution per repository: one `ls-remote` (sources naming a',
    'ref), one shallow blob-less fetch of the commits the cache lacks, one fetch of the blobs of the plugin',
    'directories (none for whole-repository sources, fetched with their blobs at once). Second: one `ls-remote`',
    'per repository with a ref source, nothing else. ' +
      `Quarantine holds ${fmt(Number(c.quarantineObjects))} objects after the first resolution, the ` +
      `${fmt(Number(c.cacheRepositories))} partial clones the rest.`,
    '',
    `Requests, first: ${JSON.stringify(report.requests.first)}; second: ${JSON.stringify(report.requests.second)}.`,
    '',
    `The second resolution's floor is the \`ls-remote\` the cache needs per repository with a ref source (every ` +
      `repository here has one; a repository pinned by sha alone costs no request): about ` +
      `${fmt(report.engineMsPerRepository.second)} ms of engine CPU per repository (this process and the git it ` +
      `ran), against ${fmt(report.engineMsPerRepository.first)} ms in the first resolution of these small ` +
      'repositories. The upstream server (`git http-backend` and `git upload-pack` per request) shares the cores.',
    '',
    `1-minute load average (before→after): ${engineLoad.baseline ? `baseline ${loads([{ load: engineLoad.baseline }])}; ` : ''}` +
      `first ${loads([{ load: engineLoad.first }])}; second ${loads(engineLoad.second.map((load) => ({ load })))}.`,
    '',
    'Produced by `npm run bench` (BENCH_ONLY=externals for this part).',
    '',
  ].join('\n');
}
