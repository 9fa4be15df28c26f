// A large marketplace ingested while the gateway serves: does the facade keep answering? A generated
// marketplace of BENCH_LARGE_PLUGINS (300) plugins × BENCH_LARGE_FILES_PER_PLUGIN (50) files of published-
// plugin content (bench/vetting-content.ts), plus three PNG-like binaries and two files of about 2 MiB,
// served by `git http-backend` on loopback, is ingested by a gateway in a child process while
// BENCH_LARGE_CLIENTS (8) git clients run no-op `git fetch` back to back on a small approved marketplace and
// a prober reads /actuator/health every BENCH_LARGE_PROBE_MS (100) ms.
//
//   idle     the clients and the prober for BENCH_LARGE_IDLE_SECONDS (10) with the gateway otherwise idle
//   ingest   POST /api/v1/marketplaces/large/ingest, from the request to its answer (fetch, capture, vetting)
//   dry run  the clients stopped, extra snapshots made (BENCH_LARGE_SNAPSHOTS, 500 with the others, as
//            many as 3 minutes allow), then POST /api/v1/policy/dry-run of a rule refused at compile time
//            (three nested comprehensions over 256-element literals) and of a costly accepted one
//
// Targets: health p99 ≤ 100 ms during the ingest and during the dry runs, fetch p99 during the ingest ≤ 2×
// the idle one, ingest ≤ 15 s, a dry run answered ≤ 10 s (gateway.policy.dry-run-timeout). The gateway's
// event-loop delay and the load average are recorded beside. Writes bench/results/large-marketplace.*.
import { existsSync, mkdirSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { devSession, startBenchGateway, type BenchGateway } from './bench-gateway.ts';
import { openBenchDatabase, type BenchDatabase } from './database.ts';
import { benchScratch, envInt, log, sleep } from './env.ts';
import { buildMarketplaceRepo, startGitHttpServer, type GitHttpServer } from './git-repos.ts';
import {
  addBinariesAndLargeFiles,
  approveSnapshot,
  followIngest,
  makeSnapshots,
  Phased,
  startFetchClients,
  startProber,
  type Background,
} from './large-marketplace-load.ts';
import {
  compact,
  largeFigures,
  largeMarkdown,
  ms,
  round,
  type DryRun,
  type Outcome,
  type PhaseView,
} from './large-marketplace-report.ts';
import { figureTable, fmt, machine, writeResultFiles } from './report.ts';
import { realisticPluginFiles } from './vetting-content.ts';

const config = () => ({
  plugins: envInt('BENCH_LARGE_PLUGINS', 300, 1),
  filesPerPlugin: envInt('BENCH_LARGE_FILES_PER_PLUGIN', 50, 10),
  clients: envInt('BENCH_LARGE_CLIENTS', 8, 1),
  probeMs: envInt('BENCH_LARGE_PROBE_MS', 100, 1),
  idleSeconds: envInt('BENCH_LARGE_IDLE_SECONDS', 10, 1),
  snapshots: envInt('BENCH_LARGE_SNAPSHOTS', 500, 0),
});
/** Whether git's background gc still runs in the work tree of a generated marketplace. */
const gcRunning = (root: string, name: string) => existsSync(join(root, `${name}-work`, '.git', 'gc.pid'));
/** The most time the extra snapshots are made for. */
const snapshotSeconds = 240;
const list256 = `[${Array.from({ length: 256 }, (_, k) => k).join(',')}]`;
/** 256³ = 16,777,216 literal runs: refused when the rule compiles (at most 100,000). */
const refusedRule = `${list256}.all(a, ${list256}.all(b, ${list256}.all(c, true)))`;
/** 256² = 65,536 literal runs per plugin: accepted, and more than an evaluation's time allows on 300 plugins. */
const costlyRule = `snapshot.plugins.all(p, ${list256}.all(a, ${list256}.all(b, p.name + string(a) + string(b) != "")))`;

export async function largeMarketplaceBenchmark(): Promise<void> {
  const cfg = config();
  log(
    `large-marketplace: ${cfg.plugins} plugins × ${cfg.filesPerPlugin} files; ${cfg.clients} fetch clients, ` +
      `health every ${cfg.probeMs} ms; ${cfg.snapshots} snapshots for the dry run`,
  );
  const scratch = benchScratch('gateway-bench-large-');
  const [home, served, clients] = ['home', 'served', 'clients'].map((dir) => join(scratch.root, dir)) as [
    string,
    string,
    string,
  ];
  for (const dir of [home, served, clients]) mkdirSync(dir, { recursive: true });
  let database: BenchDatabase | null = null;
  let server: GitHttpServer | null = null;
  let gateway: BenchGateway | null = null;
  const background: Background[] = [];
  const close = async () => {
    for (const running of background) await running.stop().catch(() => {});
    await gateway?.close().catch(() => {});
    await server?.close().catch(() => {});
    await database?.close().catch(() => {});
  };
  await scratch.run(async () => {
    const generated = performance.now();
    const large = await buildMarketplaceRepo(
      served,
      'large',
      {
        plugins: cfg.plugins,
        filesPerPlugin: cfg.filesPerPlugin,
        commits: 1,
        seed: 300,
        content: realisticPluginFiles,
      },
      home,
    );
    const extra = await addBinariesAndLargeFiles(served, 'large', home);
    const largeFiles = large.files + Object.keys(extra.added).length;
    const largeBytes = large.bytes + Object.values(extra.added).reduce((a, b) => a + b, 0);
    const small = await buildMarketplaceRepo(
      served,
      'small',
      { plugins: 10, filesPerPlugin: 12, commits: 1, seed: 5, content: realisticPluginFiles },
      home,
    );
    await buildMarketplaceRepo(served, 'tiny', { plugins: 1, filesPerPlugin: 3, commits: 1, seed: 9 }, home);
    // A commit of 15,000 files starts git's automatic gc in the background: let it end before anything is measured.
    for (let waited = 0; waited < 120 && ['large', 'small', 'tiny'].some((name) => gcRunning(served, name)); waited++)
      await sleep(1000);
    const generationSeconds = (performance.now() - generated) / 1000;
    log(
      `large-marketplace: generated ${fmt(largeFiles)} files (${fmt(largeBytes / 2 ** 20, 1)} MiB) in ` +
        `${fmt(generationSeconds, 1)} s; small marketplace ${small.files} files`,
    );

    database = await openBenchDatabase(log);
    server = await startGitHttpServer(served);
    // Four ingests at once (gateway.ingest.concurrency, 2 by default) for the extra snapshots; the large
    // marketplace's ingest is the only one running while it is measured.
    gateway = await startBenchGateway({
      databaseUrl: database.url,
      dataDir: scratch.dataDir,
      env: { GATEWAY_INGEST_CONCURRENCY: '4' },
      log,
    });
    const gw: BenchGateway = gateway;
    const api = devSession(gw.url, 'root');
    const upstream = (name: string) => `${server!.baseUrl}/${name}.git`;
    await api.expect('register', 201, api.post('/api/v1/marketplaces', { name: 'small', url: upstream('small') }));
    const smallSnapshot = await api.expect('ingest', 201, api.post('/api/v1/marketplaces/small/ingest'));
    await approveSnapshot(api, 'small', smallSnapshot.body.id as number, small.tip);
    const token = (await api.expect('token', 201, api.post('/api/v1/tokens', { name: 'bench' }))).body.token as string;

    const phased = new Phased();
    const fetchErrors: string[] = [];
    background.push(startProber(phased, gw.url, cfg.probeMs));
    const dirs = Array.from({ length: cfg.clients }, (_, i) => join(clients, `c${i}`));
    background.push(
      await startFetchClients(phased, home, token, `${gw.url}/git/small.git`, dirs, (message) => {
        if (fetchErrors.length < 20) fetchErrors.push(`${phased.phase}: ${message.slice(0, 300)}`);
      }),
    );
    const views: PhaseView[] = [];
    /** Runs `work` as phase `phase`, the gateway's counters reset at its start and read at its end. */
    const measured = async <T>(phase: string, work: () => Promise<T>): Promise<T> => {
      await gw.reset();
      phased.enter(phase);
      const started = performance.now();
      const result = await work();
      const seconds = (performance.now() - started) / 1000;
      const stats = compact(await gw.stats());
      phased.enter(`after ${phase}`);
      const load = phased.values(phase, 'load1');
      views.push({
        phase,
        seconds: round(seconds, 2),
        fetch: phased.latencies(phase, 'fetch'),
        health: phased.latencies(phase, 'health'),
        counts: phased.countsOf(phase),
        load1: { max: round(Math.max(0, ...load), 2), end: round(loadavg()[0]!, 2) },
        gateway: stats,
      });
      const view = views.at(-1)!;
      log(
        `large-marketplace: ${phase}: ${fmt(seconds, 1)} s; fetch p50/p95/p99/max ${ms(view.fetch)} ms (${view.fetch.count}); ` +
          `health ${ms(view.health)} ms (${view.health.count}); event-loop delay p99 ${fmt(stats.eventLoop.delayP99Ms, 1)} ms, ` +
          `max ${fmt(stats.eventLoop.delayMaxMs, 1)} ms; load ${view.load1.max}`,
      );
      return result;
    };

    await sleep(1000);
    await measured('idle', () => sleep(cfg.idleSeconds * 1000));

    await api.expect('register', 201, api.post('/api/v1/marketplaces', { name: 'large', url: upstream('large') }));
    const window: { startUs: number; endUs: number } = { startUs: 0, endUs: 0 };
    const ingest = await measured('ingest', async () => {
      const started = performance.now();
      window.startUs = Number(process.hrtime.bigint() / 1000n);
      const follow = followIngest(api, 'large', started);
      const answer = await api.post('/api/v1/marketplaces/large/ingest');
      const seconds = (performance.now() - started) / 1000;
      window.endUs = Number(process.hrtime.bigint() / 1000n);
      await follow.stop();
      return {
        seconds,
        status: answer.status,
        body: answer.body,
        text: answer.text.slice(0, 500),
        phases: follow.phases,
      };
    });
    log(`large-marketplace: ingest answered ${ingest.status} in ${fmt(ingest.seconds, 2)} s`);
    if (ingest.status !== 201) throw new Error(`large ingest: ${ingest.status} ${ingest.text}`);
    const largeId = ingest.body.id as number;
    const vetting = await api.get(`/api/v1/snapshots/${largeId}/vetting`);
    const verdicts = ((vetting.body.run as { verdicts?: unknown[] } | undefined)?.verdicts ?? []) as Array<{
      connector: string;
      state: string;
    }>;

    await measured('after the ingest', () => sleep(3000));
    await background.pop()!.stop();
    phased.enter('snapshots');
    const snapshots = await makeSnapshots(api, upstream('tiny'), served, 'tiny', home, {
      wanted: Math.max(0, cfg.snapshots - 2),
      marketplaces: 10,
      seconds: snapshotSeconds,
    });
    log(
      `large-marketplace: ${snapshots.made} extra snapshots in ${fmt(snapshots.ms / 1000, 1)} s ` +
        `(${snapshots.rounds} rounds of ingests)`,
    );

    const dryRuns: Partial<Record<'refused' | 'costly', DryRun>> = {};
    for (const [id, expression] of [
      ['refused', refusedRule],
      ['costly', costlyRule],
    ] as const) {
      await sleep(1000);
      dryRuns[id] = await measured(`dry run (${id})`, async () => {
        const started = performance.now();
        const answer = await api.post('/api/v1/policy/dry-run', { expression, limit: 500 });
        const seconds = (performance.now() - started) / 1000;
        // A phase of at least 2 s, so that the prober samples even a refusal answered at once.
        await sleep(Math.max(0, 2000 - seconds * 1000));
        const { snapshots: listed, ...rest } = answer.body;
        delete rest.expression;
        return {
          seconds: round(seconds, 3),
          status: answer.status,
          answer: rest,
          listed: Array.isArray(listed) ? listed.length : 0,
        };
      });
      log(`large-marketplace: dry run (${id}): ${JSON.stringify(dryRuns[id])}`);
    }
    for (const running of background.splice(0)) await running.stop();

    const outcome: Outcome = {
      cfg,
      files: largeFiles,
      bytes: largeBytes,
      ingest,
      vettingOutcome: String(vetting.body.outcome ?? '?'),
      snapshots: snapshots.made + 2,
      dryRuns: { refused: dryRuns.refused!, costly: dryRuns.costly! },
      views,
      fetchErrors,
    };
    const figures = largeFigures(outcome);
    process.stdout.write(`${figureTable(figures)}\n`);
    const report = {
      machine: machine(),
      config: cfg,
      figures,
      marketplace: { files: largeFiles, bytes: largeBytes, packBytes: large.packBytes, ...extra },
      generationSeconds: round(generationSeconds),
      ingest: { ...ingest, text: undefined, vettingOutcome: outcome.vettingOutcome, verdicts },
      snapshots,
      dryRuns,
      phases: views,
      fetchErrors,
      /** The ingest's bounds on the monotonic clock (µs), the clock of a --cpu-prof profile's timestamps. */
      profileWindow: window,
    };
    const md = largeMarkdown(outcome, figures);
    const files = writeResultFiles('large-marketplace', report, md);
    log(`large-marketplace: wrote ${files.json} and ${files.md}`);
  }, close);
}
