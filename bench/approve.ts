// Approval latency: POST /api/v1/snapshots/{id}/approve answers once the read models it names (snapshots,
// marketplaces, ledger, publication) have reached the decision, so the served refs have moved; with the catalog
// enabled (the default) the catalog reactor rebuilds on the runner's path before the ledger.
//
// A gateway in a child process (catalog enabled, dev insecure auth), an upstream behind `git http-backend` on
// loopback with two generated marketplaces: BENCH_APPROVE_SIZES plugins each (default 1,300) of
// BENCH_APPROVE_FILES_PER_PLUGIN files (default 10). For each: registered, then BENCH_APPROVE_WARMUP (2) +
// BENCH_APPROVE_ROUNDS (8) rounds of an upstream commit (one file changed), an ingest (its answer awaited), and
// the approval timed from send to answer. Targets: 1 plugin <= 500 ms, 300 plugins <= 1.5 s (on the p95).
//
// Where each approval's time went, from outside the gateway: the bench LISTENs on es_events (the decision's
// append) and projection_checkpoints (each read model reaching a position), so every checkpoint's commit is
// timed from the request; the gateway process counts the git processes it spawned and their lifetimes
// (bench/gateway-process.ts). Writes bench/results/approve.json and .md.
import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { startBenchGateway, devSession, type BenchGateway, type GatewayStats } from './bench-gateway.ts';
import { openBenchDatabase, waitForProjections, type BenchDatabase } from './database.ts';
import { benchScratch, envInt, log, sleep } from './env.ts';
import { buildMarketplaceRepo, gitIn, startGitHttpServer, type GitHttpServer } from './git-repos.ts';
import { figure, figureMarkdown, figureTable, fmt, latencies, machine, median, writeResultFiles } from './report.ts';

const config = () => ({
  sizes: (process.env.BENCH_APPROVE_SIZES ?? '1,300')
    .split(',')
    .map((s) => Number(s.trim()))
    .filter((n) => Number.isInteger(n) && n > 0),
  filesPerPlugin: envInt('BENCH_APPROVE_FILES_PER_PLUGIN', 10, 4),
  rounds: envInt('BENCH_APPROVE_ROUNDS', 8, 1),
  warmup: envInt('BENCH_APPROVE_WARMUP', 2, 0),
  /** Other served marketplaces (one plugin each), approved before the measurements: the catalog lists them all. */
  estate: envInt('BENCH_APPROVE_ESTATE', 0, 0),
});

/** The target for a marketplace of `plugins` plugins: 500 ms for one, 1.5 s for 300 (and anything larger). */
const goalFor = (plugins: number) => ({ atMost: plugins <= 1 ? 500 : 1500, unit: 'ms' }) as const;

/** The read models the approval waits for, and the others worth a look on its path. */
const waitedFor = ['snapshots', 'marketplaces', 'ledger', 'publication'] as const;
const alsoShown = ['catalog', 'estate', 'mirror'] as const;

type Notice = Readonly<{ at: number; channel: string; payload: string }>;

/** Notifications as the bench sees them (es_events: an append; projection_checkpoints: `name:position`). */
async function listen(url: string) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const notices: Notice[] = [];
  client.on('notification', (n) =>
    notices.push({ at: performance.now(), channel: n.channel, payload: n.payload ?? '' }),
  );
  await client.query('listen es_events');
  await client.query('listen projection_checkpoints');
  return { client, notices };
}

type Round = Readonly<{
  /** The request's send time, epoch ms (to line up with a trace of the gateway process). */
  sentAtEpochMs: number;
  totalMs: number;
  /** From the request: the decision's append, and each read model reaching the decision. */
  atMs: Record<string, number | null>;
  /** Further appends during the approval (the catalog's revision events), from the request. */
  laterAppendsMs: number[];
  git: Record<string, { count: number; totalMs: number }>;
  /** How long the gateway's spawn() calls held its event loop, summed (each spawn forks the process). */
  spawnHoldMs: number;
  /** The gateway process's resident set after the approval, MiB (fork cost grows with it). */
  rssMiB: number;
  queries: number;
  queriesMs: number;
}>;

function roundOf(totalMs: number, t0: number, notices: readonly Notice[], stats: GatewayStats): Round {
  const appends = notices.filter((n) => n.channel === 'es_events' && n.at >= t0);
  const first = appends[0];
  const position = first ? BigInt(first.payload) : null;
  const atMs: Record<string, number | null> = { append: first ? first.at - t0 : null };
  for (const name of [...waitedFor, ...alsoShown]) {
    const reached =
      position === null
        ? undefined
        : notices.find((n) => {
            if (n.channel !== 'projection_checkpoints' || n.at < t0) return false;
            const colon = n.payload.lastIndexOf(':');
            return n.payload.slice(0, colon) === name && BigInt(n.payload.slice(colon + 1)) >= position;
          });
    atMs[name] = reached ? reached.at - t0 : null;
  }
  const git = Object.fromEntries(
    Object.entries(stats.gitLifetimes).map(([k, v]) => [k, { count: v.count, totalMs: Math.round(v.totalMs) }]),
  );
  const queries = Object.values(stats.queries);
  return {
    sentAtEpochMs: Math.round(performance.timeOrigin + t0),
    totalMs,
    atMs,
    laterAppendsMs: appends.slice(1).map((n) => n.at - t0),
    git,
    spawnHoldMs: Math.round(Object.values(stats.spawnCalls).reduce((sum, v) => sum + v.totalMs, 0)),
    rssMiB: Math.round(stats.memoryRss / 2 ** 20),
    queries: queries.reduce((s, q) => s + q.count, 0),
    queriesMs: Math.round(queries.reduce((s, q) => s + q.totalMs, 0)),
  };
}

type SizeResult = Readonly<{
  plugins: number;
  files: number;
  samplesMs: number[];
  /** Measured approvals answered 503 projection-lag (their sample is the time of that answer). */
  laggedRounds: number;
  latency: ReturnType<typeof latencies>;
  /** Median over the measured rounds, ms from the request. */
  medianAtMs: Record<string, number | null>;
  /** Median git lifetimes per approval by subcommand (count, total ms). */
  medianGit: Record<string, { count: number; totalMs: number }>;
  rounds: Round[];
}>;

const medianOrNull = (values: Array<number | null>): number | null => {
  const present = values.filter((v): v is number => v !== null);
  return present.length === 0 ? null : Math.round(median(present) * 10) / 10;
};

async function measureSize(
  gateway: BenchGateway,
  listener: Awaited<ReturnType<typeof listen>>,
  watcher: pg.Client,
  upstreamBase: string,
  gitRoot: string,
  home: string,
  plugins: number,
  cfg: ReturnType<typeof config>,
): Promise<SizeResult> {
  const name = `approve-${plugins}`;
  const repo = await buildMarketplaceRepo(
    gitRoot,
    name,
    { plugins, filesPerPlugin: cfg.filesPerPlugin, commits: 1, seed: 1000 + plugins },
    home,
  );
  log(`approve: ${name}: ${repo.files} files, pack ${fmt(repo.packBytes / 1024)} KiB`);
  const work = join(gitRoot, `${name}-work`);
  const api = devSession(gateway.url, 'root');
  await api.expect('register', 201, api.post('/api/v1/marketplaces', { name, url: `${upstreamBase}/${name}.git` }));
  const samples: number[] = [];
  const rounds: Round[] = [];
  let laggedRounds = 0;
  for (let i = -cfg.warmup; i < cfg.rounds; i++) {
    writeFileSync(join(work, 'ROUND.md'), `round ${i} of ${name}\n`);
    await gitIn(work, home, 'add', '-A');
    await gitIn(work, home, 'commit', '--quiet', '-m', `round ${i}`);
    await gitIn(work, home, 'push', '--quiet', repo.bare, 'HEAD:refs/heads/main');
    const snapshot = await api.expect('ingest', 201, api.post(`/api/v1/marketplaces/${name}/ingest`));
    // Everything the ingest set off has settled (projections, a catalog pass and its housekeeping).
    await waitForProjections(watcher);
    await sleep(300);
    await waitForProjections(watcher);
    await gateway.reset();
    listener.notices.length = 0;
    const t0 = performance.now();
    const answer = await api.post(`/api/v1/snapshots/${snapshot.body.id}/approve`);
    const totalMs = performance.now() - t0;
    // 503 projection-lag: the decision was recorded but the read models were not there within
    // gateway.projections.wait-timeout (5 s); counted at the time it answered, and waited out.
    const lagged = answer.status === 503 && answer.text.includes('projection-lag');
    if (answer.status !== 200 && !lagged) throw new Error(`approve: ${answer.status}: ${answer.text.slice(0, 500)}`);
    if (lagged) {
      log(`approve: ${name} round ${i}: projection-lag after ${fmt(totalMs)} ms`);
      await waitForProjections(watcher);
    }
    const stats = await gateway.stats();
    await sleep(50); // the last notifications of the approval's batch
    const round = roundOf(totalMs, t0, listener.notices, stats);
    const at = Object.entries(round.atMs)
      .map(([k, v]) => `${k} ${v === null ? '-' : fmt(v)}`)
      .join(', ');
    log(`approve: ${name} round ${i}: ${fmt(totalMs)} ms (${at})${i < 0 ? ' [warm-up]' : ''}`);
    if (i >= 0) {
      if (lagged) laggedRounds++;
      samples.push(totalMs);
      rounds.push(round);
    }
  }
  const keys = Object.keys(rounds[0]?.atMs ?? {});
  const medianAtMs = Object.fromEntries(keys.map((k) => [k, medianOrNull(rounds.map((r) => r.atMs[k] ?? null))]));
  const gitKeys = [...new Set(rounds.flatMap((r) => Object.keys(r.git)))].sort();
  const medianGit = Object.fromEntries(
    gitKeys.map((k) => [
      k,
      {
        count: median(rounds.map((r) => r.git[k]?.count ?? 0)),
        totalMs: Math.round(median(rounds.map((r) => r.git[k]?.totalMs ?? 0))),
      },
    ]),
  );
  return {
    plugins,
    files: repo.files,
    samplesMs: samples,
    laggedRounds,
    latency: latencies(Float64Array.from(samples)),
    medianAtMs,
    medianGit,
    rounds,
  };
}

export async function approveBenchmark(): Promise<void> {
  const cfg = config();
  const scratch = benchScratch('gateway-bench-approve-');
  const { root, dataDir } = scratch;
  const home = join(root, 'home');
  const gitRoot = join(root, 'repos');
  for (const dir of [home, gitRoot]) mkdirSync(dir, { recursive: true });
  const open: {
    db?: BenchDatabase;
    gateway?: BenchGateway;
    server?: GitHttpServer;
    clients: pg.Client[];
  } = { clients: [] };
  await scratch.run(
    async () => {
      open.server = await startGitHttpServer(gitRoot);
      open.db = await openBenchDatabase(log);
      open.gateway = await startBenchGateway({ databaseUrl: open.db.url, dataDir, log });
      const listener = await listen(open.db.url);
      open.clients.push(listener.client);
      const watcher = new pg.Client({ connectionString: open.db.url });
      await watcher.connect();
      open.clients.push(watcher);
      const api = devSession(open.gateway.url, 'root');
      for (let k = 0; k < cfg.estate; k++) {
        const name = `estate-${k}`;
        await buildMarketplaceRepo(gitRoot, name, { plugins: 1, filesPerPlugin: 4, commits: 1, seed: 7000 + k }, home);
        const url = `${open.server.baseUrl}/${name}.git`;
        await api.expect('register', 201, api.post('/api/v1/marketplaces', { name, url }));
        const snapshot = await api.expect('ingest', 201, api.post(`/api/v1/marketplaces/${name}/ingest`));
        const answer = await api.post(`/api/v1/snapshots/${snapshot.body.id}/approve`);
        if (answer.status !== 200 && answer.status !== 503)
          throw new Error(`approve ${name}: ${answer.status}: ${answer.text.slice(0, 300)}`);
        await waitForProjections(watcher);
      }
      if (cfg.estate > 0) log(`approve: ${cfg.estate} other marketplaces served (in the catalog)`);
      const loadBefore = loadavg()[0]!;
      const results: SizeResult[] = [];
      for (const plugins of cfg.sizes)
        results.push(
          await measureSize(open.gateway, listener, watcher, open.server.baseUrl, gitRoot, home, plugins, cfg),
        );

      const figures = results.flatMap((r) => [
        figure(
          `approve-${r.plugins}-p95`,
          `approve, ${r.plugins} plugin${r.plugins === 1 ? '' : 's'} (p95)`,
          r.latency.p95,
          'ms',
          goalFor(r.plugins),
          `${cfg.rounds} approvals after ${cfg.warmup} warm-ups, from send to answer${r.laggedRounds ? `; ${r.laggedRounds} answered 503 projection-lag` : ''}`,
        ),
        figure(
          `approve-${r.plugins}-p50`,
          `approve, ${r.plugins} plugin${r.plugins === 1 ? '' : 's'} (p50)`,
          r.latency.p50,
          'ms',
        ),
        figure(
          `approve-${r.plugins}-max`,
          `approve, ${r.plugins} plugin${r.plugins === 1 ? '' : 's'} (max)`,
          r.latency.max,
          'ms',
        ),
      ]);
      const steps = ['append', 'snapshots', 'marketplaces', 'estate', 'catalog', 'ledger', 'publication', 'mirror'];
      const breakdown = [
        `| plugins | ${steps.join(' | ')} | answer |`,
        `| --- |${steps.map(() => ' ---: |').join('')} ---: |`,
        ...results.map(
          (r) =>
            `| ${r.plugins} | ${steps.map((s) => (r.medianAtMs[s] == null ? '-' : fmt(r.medianAtMs[s]!))).join(' | ')} | ${fmt(median(r.samplesMs))} |`,
        ),
      ];
      const gitLines = results.map(
        (r) =>
          `- ${r.plugins} plugin${r.plugins === 1 ? '' : 's'}: ${Object.entries(r.medianGit)
            .map(([k, v]) => `${k} ×${v.count} (${fmt(v.totalMs)} ms)`)
            .join(
              ', ',
            )}; spawn() held the event loop ${fmt(median(r.rounds.map((x) => x.spawnHoldMs)))} ms in all (gateway RSS ${fmt(median(r.rounds.map((x) => x.rssMiB)))} MiB)`,
      );
      const report = {
        benchmark: 'approve',
        date: new Date().toISOString(),
        machine: machine(),
        config: cfg,
        loadAverage: { before: loadBefore, after: loadavg()[0]! },
        sizes: results,
        figures,
      };
      const md = [
        '# Approval latency',
        '',
        'Generated by `BENCH_ONLY=approve npm run bench` (bench/approve.ts): a gateway in a child process (catalog',
        'enabled), an upstream behind `git http-backend` on loopback; per size, an upstream commit, an ingest, then',
        '`POST /api/v1/snapshots/{id}/approve` timed from send to answer.',
        '',
        figureMarkdown(figures),
        '',
        'Where the time went (median ms from the request, as the bench saw the notifications: `append` is the',
        "decision's es_events NOTIFY, each read model its checkpoint's NOTIFY at or past the decision's position):",
        '',
        ...breakdown,
        '',
        'git processes the gateway ran during one approval (median count, total lifetime):',
        '',
        ...gitLines,
        '',
        ...results.map(
          (r) =>
            `Samples, ${r.plugins} plugin${r.plugins === 1 ? '' : 's'} (ms): ${r.samplesMs.map((v) => fmt(v)).join(', ')}${r.laggedRounds ? ` (${r.laggedRounds} answered 503 projection-lag)` : ''}.`,
        ),
        '',
        `Load average (1 min) ${loadBefore.toFixed(1)} before and ${loadavg()[0]!.toFixed(1)} after, on ${machine().cores} cores: other work on the machine inflates every git process.`,
        '',
        `Marketplaces: ${results.map((r) => `${r.plugins} plugins (${r.files} files)`).join(', ')}; ${cfg.rounds} rounds after ${cfg.warmup} warm-ups each; ${cfg.estate} other served marketplaces (BENCH_APPROVE_ESTATE). The catalog lists every served marketplace, so the 300-plugin rounds (run second) build a catalog of both.`,
        '',
      ].join('\n');
      const files = writeResultFiles('approve', report, md);
      log(`approve:\n${figureTable(figures)}\n${breakdown.join('\n')}\n${gitLines.join('\n')}\nwritten to ${files.md}`);
    },
    async () => {
      for (const client of open.clients) await client.end().catch(() => {});
      await open.gateway?.close().catch(() => {});
      await open.server?.close().catch(() => {});
      await open.db?.close().catch(() => {});
    },
  );
}
