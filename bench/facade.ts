// The git facade against plain `git http-backend`, with the real git client (protocol v2):
//
//  1. clone: a generated marketplace (BENCH_CLONE_PLUGINS × BENCH_CLONE_FILES_PER_PLUGIN files in
//     BENCH_CLONE_COMMITS commits), registered, ingested and approved through the API, then cloned
//     BENCH_CLONES times from each side, interleaved. The plain side serves the gateway's own
//     published repository (the same pack, the same refs), so the difference is the facade.
//  2. no-op fetches: BENCH_FETCH_CLIENTS clones each running `git fetch` (nothing new) in a loop
//     for BENCH_FETCH_SECONDS against the facade; then BENCH_FETCH_PLAIN_SECONDS against plain
//     http-backend on the same machine as a reference (0 skips it).
//
// Writes bench/results/facade.json and .md. The gateway and the plain server each run in a child
// process; git clients are spawned by this process.
import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { startBenchGateway, devSession, type BenchGateway, type GatewayStats } from './bench-gateway.ts';
import { CpuMeter } from './cpu.ts';
import { openBenchDatabase, postmasterPid, waitForProjections, type BenchDatabase } from './database.ts';
import { envInt, log, sleep, withInterruptCleanup } from './env.ts';
import { buildMarketplaceRepo, gitClient, gitIn, startGitHttpServer, type GitHttpServer } from './git-repos.ts';
import { encodePktLine, flushPkt } from '../src/adapters/git/pkt-line.ts';
import {
  figure,
  figureMarkdown,
  figureTable,
  fmt,
  latencies,
  machine,
  median,
  writeResultFiles,
  type Figure,
} from './report.ts';

const config = () => ({
  plugins: envInt('BENCH_CLONE_PLUGINS', 40, 1),
  filesPerPlugin: envInt('BENCH_CLONE_FILES_PER_PLUGIN', 50, 4),
  commits: envInt('BENCH_CLONE_COMMITS', 5, 1),
  clones: envInt('BENCH_CLONES', 15, 1),
  warmup: envInt('BENCH_CLONE_WARMUP', 2, 0),
  fetchClients: envInt('BENCH_FETCH_CLIENTS', 16, 1),
  fetchSeconds: envInt('BENCH_FETCH_SECONDS', 20, 1),
  fetchPlainSeconds: envInt('BENCH_FETCH_PLAIN_SECONDS', 10, 0),
  replaySeconds: envInt('BENCH_FETCH_REPLAY_SECONDS', 10, 0),
});

const goals = {
  // At most 1.1 × a plain git http-backend behind a minimal server (was 1.3).
  cloneRatio: { atMost: 1.1, unit: '× plain' },
  fetchRate: { atLeast: 150, unit: 'fetches/s' },
} as const;

const marketplace = 'bench-market';

type Side = 'plain' | 'facade';
type Variant = Readonly<{ side: Side; checkout: boolean }>;
const variants: readonly Variant[] = [
  { side: 'plain', checkout: true },
  { side: 'facade', checkout: true },
  { side: 'plain', checkout: false },
  { side: 'facade', checkout: false },
];
const variantName = (v: Variant) => `${v.side}${v.checkout ? '' : ' --no-checkout'}`;

const round = (n: number, digits = 2) => Math.round(n * 10 ** digits) / 10 ** digits;

/** The two requests of a no-op `git fetch` (git 2.39, protocol v2), byte for byte but the auth header. */
function noOpFetchRequests(url: string, token: string, agent: string) {
  const authorization = `Basic ${Buffer.from(`bench:${token}`).toString('base64')}`;
  const lsRefs = Buffer.concat([
    encodePktLine('command=ls-refs\n'),
    encodePktLine(`agent=${agent}\n`),
    encodePktLine('object-format=sha1\n'),
    Buffer.from('0001'),
    encodePktLine('peel\n'),
    encodePktLine('symrefs\n'),
    encodePktLine('unborn\n'),
    encodePktLine('ref-prefix refs/heads/\n'),
    encodePktLine('ref-prefix refs/heads/main\n'),
    encodePktLine('ref-prefix refs/tags/\n'),
    flushPkt,
  ]);
  const common = { authorization, 'user-agent': agent, 'git-protocol': 'version=2', 'accept-language': 'C, *;q=0.9' };
  return async (): Promise<void> => {
    const advertised = await fetch(`${url}/info/refs?service=git-upload-pack`, {
      headers: { ...common, accept: '*/*', pragma: 'no-cache' },
    });
    const capabilities = await advertised.text();
    if (advertised.status !== 200 || !capabilities.includes('ls-refs'))
      throw new Error(`info/refs: ${advertised.status} ${capabilities.slice(0, 200)}`);
    const listed = await fetch(`${url}/git-upload-pack`, {
      method: 'POST',
      body: lsRefs,
      headers: {
        ...common,
        'content-type': 'application/x-git-upload-pack-request',
        accept: 'application/x-git-upload-pack-result',
      },
    });
    const refs = await listed.text();
    if (listed.status !== 200 || !refs.includes('refs/heads/main'))
      throw new Error(`ls-refs: ${listed.status} ${refs.slice(0, 200)}`);
  };
}

/** `clients` loops of `operation` for `seconds`: completed operations per second and latency. */
async function loadLoop(
  clients: number,
  seconds: number,
  label: string,
  operation: (client: number) => Promise<unknown>,
) {
  const latency: number[] = [];
  let failures = 0;
  let lastError = '';
  const started = performance.now();
  const deadline = started + seconds * 1000;
  let lastLog = started;
  await Promise.all(
    Array.from({ length: clients }, async (_, client) => {
      while (performance.now() < deadline) {
        const began = performance.now();
        try {
          await operation(client);
          latency.push(performance.now() - began);
        } catch (error) {
          failures++;
          lastError = error instanceof Error ? error.message : String(error);
          if (failures > 50) throw new Error(`too many failures (${label}): ${lastError}`);
        }
        const now = performance.now();
        if (now - lastLog > 5000) {
          lastLog = now;
          log(`facade: ${label}: ${latency.length} done, ${fmt(latency.length / ((now - started) / 1000))}/s`);
        }
      }
    }),
  );
  const elapsedMs = performance.now() - started;
  return {
    operations: latency.length,
    failures,
    lastError,
    elapsedMs: round(elapsedMs),
    rate: latency.length / (elapsedMs / 1000),
    latencyMs: latencies(Float64Array.from(latency)),
  };
}

/** Per-operation figures out of the gateway's counters. */
function perOperation(stats: GatewayStats, operations: number) {
  return {
    requests: Object.fromEntries(
      Object.entries(stats.requests).map(([kind, t]) => [
        kind,
        {
          perOperation: round(t.count / operations, 3),
          count: t.count,
          meanMs: round(t.totalMs / Math.max(1, t.count)),
          ...latencies(Float64Array.from(t.samples)),
        },
      ]),
    ),
    gitSpawns: Object.fromEntries(
      Object.entries(stats.spawns).map(([command, n]) => [
        command,
        {
          perOperation: round(n / operations, 3),
          count: n,
          ...(stats.spawnCalls[command]
            ? { spawnCallMeanMs: round(stats.spawnCalls[command].totalMs / stats.spawnCalls[command].count, 3) }
            : {}),
          ...(stats.gitLifetimes[command]
            ? {
                lifetimeMs: {
                  mean: round(stats.gitLifetimes[command].totalMs / stats.gitLifetimes[command].count),
                  ...latencies(Float64Array.from(stats.gitLifetimes[command].samples)),
                },
              }
            : {}),
        },
      ]),
    ),
    /** Event-loop time held by spawn() calls, per operation. */
    spawnCallMsPerOperation: round(Object.values(stats.spawnCalls).reduce((sum, t) => sum + t.totalMs, 0) / operations),
    queries: Object.entries(stats.queries)
      .sort((a, b) => b[1].totalMs - a[1].totalMs)
      .slice(0, 20)
      .map(([sql, t]) => ({
        sql,
        perOperation: round(t.count / operations, 3),
        meanMs: round(t.totalMs / t.count, 3),
        ...latencies(Float64Array.from(t.samples)),
      })),
    eventLoopUtilization: round(stats.eventLoop.utilization, 3),
    eventLoopDelayP99Ms: round(stats.eventLoop.delayP99Ms),
  };
}

const headOf = async (client: pg.Client): Promise<number> =>
  Number(
    (await client.query<{ h: string }>('select coalesce(max(position), 0)::text as h from es.events')).rows[0]?.h ?? 0,
  );

/**
 * The events appended after `from` by type, and the ledger entries they map to (ledger.mapping.ts:
 * one per info-refs, one per want of an upload-pack), counted from the events themselves so the
 * figure does not depend on the projection runner having caught up.
 */
async function appendedSince(
  client: pg.Client,
  from: number,
): Promise<{ events: Record<string, number>; ledgerEntries: number }> {
  const rows = await client.query<{ type: string; n: string; entries: string }>(
    `
    select type, count(*)::text as n,
      sum(case type when 'info-refs' then 1 when 'upload-pack' then jsonb_array_length(data->'wants') else 0 end)::text as entries
    from es.events where position > $1 group by type order by type`,
    [from],
  );
  return {
    events: Object.fromEntries(rows.rows.map((r) => [r.type, Number(r.n)])),
    ledgerEntries: rows.rows.reduce((sum, r) => sum + Number(r.entries), 0),
  };
}

/** Whether the gateway's projections reach the head within `ms`; where they stand if not. */
async function projectionsSettle(
  client: pg.Client,
  ms: number,
): Promise<{ caughtUp: boolean; afterMs: number; head: number; checkpoints: Record<string, number> }> {
  const started = performance.now();
  let caughtUp = true;
  try {
    await waitForProjections(client, { timeoutMs: ms });
  } catch {
    caughtUp = false;
  }
  const head = await headOf(client);
  const checkpoints = Object.fromEntries(
    (
      await client.query<{ name: string; position: string }>(
        'select name, position::text from projection_checkpoints order by name',
      )
    ).rows.map((r) => [r.name, Number(r.position)]),
  );
  return { caughtUp, afterMs: round(performance.now() - started), head, checkpoints };
}

export async function facadeBenchmark(): Promise<void> {
  const cfg = config();
  log(
    `facade: ${cfg.plugins} plugins × ${cfg.filesPerPlugin} files, ${cfg.commits} commits; ${cfg.clones} clones per side (+${cfg.warmup} warm-up); ` +
      `${cfg.fetchClients} fetch clients for ${cfg.fetchSeconds} s (plain reference ${cfg.fetchPlainSeconds} s)`,
  );
  const root = mkdtempSync(join(tmpdir(), 'gateway-bench-facade-'));
  chmodSync(root, 0o755);
  const home = join(root, 'home');
  const gitRoot = join(root, 'served');
  const dataDir = join(root, 'gateway-data');
  for (const dir of [home, gitRoot, dataDir, join(root, 'clones')]) mkdirSync(dir, { recursive: true });

  let database: BenchDatabase | null = null;
  let gateway: BenchGateway | null = null;
  let server: GitHttpServer | null = null;
  let client: pg.Client | null = null;
  let keep = false;
  let cleaned = false;
  const cleanup = async () => {
    if (cleaned) return;
    cleaned = true;
    await client?.end().catch(() => {});
    await gateway?.close().catch(() => {});
    await server?.close().catch(() => {});
    await database?.close().catch(() => {});
    if (!keep) rmSync(root, { recursive: true, force: true });
  };
  const run = async () => {
    const repoStarted = performance.now();
    const repo = await buildMarketplaceRepo(
      gitRoot,
      'upstream',
      { plugins: cfg.plugins, filesPerPlugin: cfg.filesPerPlugin, commits: cfg.commits, seed: 42 },
      home,
    );
    log(
      `facade: generated ${repo.files} files (${fmt(repo.bytes / 1024)} KiB) in ${repo.commits} commits, pack ${fmt(repo.packBytes / 1024)} KiB, in ${fmt((performance.now() - repoStarted) / 1000, 1)} s`,
    );

    database = await openBenchDatabase(log);
    server = await startGitHttpServer(gitRoot);
    gateway = await startBenchGateway({ databaseUrl: database.url, dataDir, log });
    client = new pg.Client({ connectionString: database.url });
    await client.connect();

    const api = devSession(gateway.url, 'root');
    const setupStarted = performance.now();
    const registered = await api.expect(
      'register',
      201,
      api.post('/api/v1/marketplaces', { name: marketplace, url: `${server.baseUrl}/upstream.git` }),
    );
    const marketplaceId = registered.body.id as number;
    const ingestStarted = performance.now();
    const snapshot = await api.expect('ingest', 201, api.post(`/api/v1/marketplaces/${marketplace}/ingest`));
    const ingestMs = performance.now() - ingestStarted;
    if (snapshot.body.sha !== repo.tip || snapshot.body.state !== 'held')
      throw new Error(`ingest captured ${JSON.stringify(snapshot.body)}, expected ${repo.tip} held`);
    const approveStarted = performance.now();
    await api.expect('approve', 200, api.post(`/api/v1/snapshots/${snapshot.body.id}/approve`));
    const approveMs = performance.now() - approveStarted;
    const token = (await api.expect('token', 201, api.post('/api/v1/tokens', { name: 'bench' }))).body.token as string;
    log(
      `facade: registered, ingested (${fmt(ingestMs)} ms), approved (${fmt(approveMs)} ms, publication included) in ${fmt((performance.now() - setupStarted) / 1000, 1)} s`,
    );

    // The plain side serves the very repository the facade serves.
    const published = join(dataDir, 'git', 'published', `${marketplaceId}.git`);
    symlinkSync(published, join(gitRoot, 'published.git'));
    const urls: Record<Side, string> = {
      plain: `${server.baseUrl}/published.git`,
      facade: `${gateway.url}/git/${marketplace}.git`,
    };
    const git = gitClient(home, token);

    let cloneCount = 0;
    const cloneInto = async (variant: Variant): Promise<{ ms: number; dir: string }> => {
      const dir = join(root, 'clones', `c${cloneCount++}`);
      const ms = await git.clone(urls[variant.side], dir, variant.checkout ? [] : ['--no-checkout']);
      return { ms, dir };
    };
    // Sanity: both sides serve the approved commit.
    for (const side of ['plain', 'facade'] as const) {
      const { dir } = await cloneInto({ side, checkout: true });
      const head = await gitIn(dir, home, 'rev-parse', 'HEAD');
      if (head !== repo.tip) throw new Error(`${side} clone is at ${head}, expected ${repo.tip}`);
      rmSync(dir, { recursive: true, force: true });
    }
    for (let i = 0; i < cfg.warmup; i++) {
      for (const variant of variants) rmSync((await cloneInto(variant)).dir, { recursive: true, force: true });
    }

    // 1. Clones, interleaved; the order within an iteration alternates.
    const meter = new CpuMeter(
      () => ({ bench: process.pid, gateway: gateway?.pid, 'plain server': server?.pid }),
      await postmasterPid(client),
    );
    const samples = new Map<string, number[]>(variants.map((v) => [variantName(v), []]));
    const cpu = new Map<string, Record<string, number>>(variants.map((v) => [variantName(v), {}]));
    await waitForProjections(client);
    const headBeforeClones = await headOf(client);
    await gateway.reset();
    await server.reset();
    log(`facade: ${cfg.clones} clones per variant (${variants.map(variantName).join(', ')}), interleaved`);
    for (let i = 0; i < cfg.clones; i++) {
      const order = i % 2 === 0 ? variants : [...variants].reverse();
      for (const variant of order) {
        const before = meter.sample();
        const { ms, dir } = await cloneInto(variant);
        const used = CpuMeter.delta(before, meter.sample()).cpuSeconds;
        samples.get(variantName(variant))!.push(ms);
        const into = cpu.get(variantName(variant))!;
        for (const [group, seconds] of Object.entries(used)) into[group] = (into[group] ?? 0) + seconds;
        rmSync(dir, { recursive: true, force: true });
      }
      if ((i + 1) % 5 === 0 || i + 1 === cfg.clones) {
        log(
          `facade: clones ${i + 1}/${cfg.clones}: median plain ${fmt(median(samples.get('plain')!))} ms, facade ${fmt(median(samples.get('facade')!))} ms`,
        );
      }
    }
    const cloneGateway = await gateway.stats();
    const clonePlain = await server.stats();
    const cloneRows = await appendedSince(client, headBeforeClones);
    const projectionsAfterClones = await projectionsSettle(client, 15_000);
    if (!projectionsAfterClones.caughtUp)
      log(
        `facade: WARNING: the projections did not catch up after the clones: ${JSON.stringify(projectionsAfterClones)}`,
      );
    // With no request in flight the gateway should be idle; a projection runner stuck in its loop is not.
    const idleCheck = async (when: string) => {
      const before = meter.sample();
      await sleep(2000);
      const used = CpuMeter.delta(before, meter.sample());
      const busy = {
        gatewayPercent: round(((used.cpuSeconds['gateway (node)'] ?? 0) / used.wallSeconds) * 100, 1),
        postgresPercent: round(((used.cpuSeconds.postgres ?? 0) / used.wallSeconds) * 100, 1),
      };
      if (busy.gatewayPercent > 10)
        log(
          `facade: WARNING: ${when}, with no request in flight, the gateway used ${busy.gatewayPercent} % of a core and PostgreSQL ${busy.postgresPercent} %`,
        );
      return busy;
    };
    const idleAfterClones = await idleCheck('after the clones');
    const facadeClones = cfg.clones * 2;
    const clones = Object.fromEntries(
      variants.map((v) => {
        const name = variantName(v);
        const s = samples.get(name)!;
        return [
          name,
          {
            medianMs: round(median(s)),
            minMs: round(Math.min(...s)),
            maxMs: round(Math.max(...s)),
            samplesMs: s.map((x) => round(x, 1)),
            cpuSecondsPerClone: Object.fromEntries(
              Object.entries(cpu.get(name)!).map(([g, sec]) => [g, round(sec / s.length, 3)]),
            ),
          },
        ];
      }),
    );
    const ratio = median(samples.get('facade')!) / median(samples.get('plain')!);
    const ratioNoCheckout = median(samples.get('facade --no-checkout')!) / median(samples.get('plain --no-checkout')!);

    // 2. No-op fetches: 16 clones of the facade (one clone, copied), fetching in a loop.
    const fetchDirs = Array.from({ length: cfg.fetchClients }, (_, i) => join(root, 'fetchers', `f${i}`));
    mkdirSync(join(root, 'fetchers'));
    await git.clone(urls.facade, fetchDirs[0]!);
    for (const dir of fetchDirs.slice(1)) cpSync(fetchDirs[0]!, dir, { recursive: true });
    const fetchLoop = async (seconds: number, label: string) => {
      const result = await loadLoop(fetchDirs.length, seconds, label, (client) => git.fetch(fetchDirs[client]!));
      return { ...result, fetches: result.operations };
    };

    log(`facade: no-op fetches, ${cfg.fetchClients} clients, ${cfg.fetchSeconds} s against the facade`);
    const headBeforeFetches = await headOf(client);
    await gateway.reset();
    const fetchCpuBefore = meter.sample();
    const facadeFetch = await fetchLoop(cfg.fetchSeconds, 'facade fetches');
    const facadeFetchCpu = CpuMeter.delta(fetchCpuBefore, meter.sample());
    const fetchGateway = await gateway.stats();
    const fetchRows = await appendedSince(client, headBeforeFetches);
    const projectionsAfterFetches = await projectionsSettle(client, 15_000);
    if (!projectionsAfterFetches.caughtUp)
      log(
        `facade: WARNING: the projections did not catch up after the fetches: ${JSON.stringify(projectionsAfterFetches)}`,
      );
    log(
      `facade: ${facadeFetch.fetches} fetches in ${fmt(facadeFetch.elapsedMs / 1000, 1)} s: ${fmt(facadeFetch.rate)}/s, p50 ${fmt(facadeFetch.latencyMs.p50)} ms, p95 ${fmt(facadeFetch.latencyMs.p95)} ms`,
    );

    let plainFetch: Awaited<ReturnType<typeof fetchLoop>> | null = null;
    let plainFetchCpu: ReturnType<typeof CpuMeter.delta> | null = null;
    let plainFetchRequests: Record<string, number> = {};
    if (cfg.fetchPlainSeconds > 0) {
      for (const dir of fetchDirs) await gitIn(dir, home, 'remote', 'set-url', 'origin', urls.plain);
      log(`facade: reference: the same fetches against plain git http-backend for ${cfg.fetchPlainSeconds} s`);
      await server.reset();
      const before = meter.sample();
      plainFetch = await fetchLoop(cfg.fetchPlainSeconds, 'plain fetches');
      plainFetchCpu = CpuMeter.delta(before, meter.sample());
      plainFetchRequests = await server.stats();
      log(
        `facade: plain: ${fmt(plainFetch.rate)}/s, p50 ${fmt(plainFetch.latencyMs.p50)} ms, p95 ${fmt(plainFetch.latencyMs.p95)} ms`,
      );
    }

    // 3. The same two requests without the git client (whose CPU competes with the server on this machine).
    const agent = (await gitIn(home, home, '--version')).replace('git version ', 'git/');
    const replays: Record<
      Side,
      | (Awaited<ReturnType<typeof loadLoop>> & {
          cpu: ReturnType<typeof CpuMeter.delta>;
          server?: ReturnType<typeof perOperation>;
        })
      | null
    > = { plain: null, facade: null };
    if (cfg.replaySeconds > 0) {
      for (const side of ['facade', 'plain'] as const) {
        const operation = noOpFetchRequests(urls[side], token, agent);
        await operation();
        log(
          `facade: replay of the no-op fetch's two requests from an HTTP client, ${cfg.fetchClients} clients, ${cfg.replaySeconds} s, ${side}`,
        );
        await gateway.reset();
        const before = meter.sample();
        const result = await loadLoop(cfg.fetchClients, cfg.replaySeconds, `${side} replay`, operation);
        const cpu = CpuMeter.delta(before, meter.sample());
        replays[side] = {
          ...result,
          cpu,
          ...(side === 'facade' ? { server: perOperation(await gateway.stats(), result.operations) } : {}),
        };
        log(
          `facade: ${side} replay: ${fmt(result.rate)}/s, p50 ${fmt(result.latencyMs.p50)} ms, p95 ${fmt(result.latencyMs.p95)} ms`,
        );
      }
    }
    const projectionsAfterReplay = await projectionsSettle(client, 15_000);
    const idleAtEnd = await idleCheck('at the end');

    const figures: Figure[] = [
      figure('clone-plain', 'clone, plain git http-backend (median)', median(samples.get('plain')!), 'ms'),
      figure('clone-facade', 'clone, facade (median)', median(samples.get('facade')!), 'ms'),
      figure('clone-ratio', 'clone ratio facade / plain', ratio, '×', goals.cloneRatio),
      figure(
        'clone-ratio-no-checkout',
        'clone --no-checkout ratio facade / plain',
        ratioNoCheckout,
        '×',
        goals.cloneRatio,
        `medians ${round(median(samples.get('facade --no-checkout')!))} / ${round(median(samples.get('plain --no-checkout')!))} ms`,
      ),
      figure(
        'fetch-rate',
        `no-op fetches, ${cfg.fetchClients} clients, facade`,
        facadeFetch.rate,
        'fetches/s',
        goals.fetchRate,
      ),
      figure('fetch-p50', 'no-op fetch latency p50, facade', facadeFetch.latencyMs.p50, 'ms'),
      figure('fetch-p95', 'no-op fetch latency p95, facade', facadeFetch.latencyMs.p95, 'ms'),
      ...(plainFetch
        ? [
            figure(
              'fetch-rate-plain',
              `no-op fetches, ${cfg.fetchClients} clients, plain (reference)`,
              plainFetch.rate,
              'fetches/s',
            ),
            figure('fetch-p95-plain', 'no-op fetch latency p95, plain (reference)', plainFetch.latencyMs.p95, 'ms'),
          ]
        : []),
      ...(replays.facade
        ? [
            figure(
              'replay-facade',
              `no-op fetch requests replayed without git, ${cfg.fetchClients} clients, facade`,
              replays.facade.rate,
              'fetches/s',
              undefined,
              `p50 ${round(replays.facade.latencyMs.p50)} ms, p95 ${round(replays.facade.latencyMs.p95)} ms`,
            ),
          ]
        : []),
      ...(replays.plain
        ? [
            figure(
              'replay-plain',
              `no-op fetch requests replayed without git, ${cfg.fetchClients} clients, plain`,
              replays.plain.rate,
              'fetches/s',
              undefined,
              `p50 ${round(replays.plain.latencyMs.p50)} ms, p95 ${round(replays.plain.latencyMs.p95)} ms`,
            ),
          ]
        : []),
    ];
    const report = {
      benchmark: 'facade',
      date: new Date().toISOString(),
      machine: machine(),
      git: await gitIn(home, home, '--version'),
      counts: { ...cfg, files: repo.files, repositoryBytes: repo.bytes, packBytes: repo.packBytes },
      figures,
      setup: { ingestMs: round(ingestMs), approveMs: round(approveMs), tip: repo.tip },
      idleGateway: { afterClones: idleAfterClones, atEnd: idleAtEnd },
      clones: {
        variants: clones,
        facadeServer: perOperation(cloneGateway, facadeClones),
        plainServerRequests: Object.fromEntries(
          Object.entries(clonePlain).map(([k, n]) => [k, { count: n, perOperation: round(n / facadeClones, 3) }]),
        ),
        appended: cloneRows,
        ledgerEntriesPerClone: round(cloneRows.ledgerEntries / facadeClones, 3),
        projectionsAfter: projectionsAfterClones,
      },
      noOpFetches: {
        facade: {
          ...facadeFetch,
          cpu: facadeFetchCpu,
          server: perOperation(fetchGateway, facadeFetch.fetches),
          appended: fetchRows,
          ledgerEntriesPerFetch: round(fetchRows.ledgerEntries / Math.max(1, facadeFetch.fetches), 3),
          projectionsAfter: projectionsAfterFetches,
        },
        ...(plainFetch
          ? {
              plain: {
                ...plainFetch,
                cpu: plainFetchCpu,
                serverRequests: Object.fromEntries(
                  Object.entries(plainFetchRequests).map(([k, n]) => [
                    k,
                    { count: n, perOperation: round(n / Math.max(1, plainFetch.fetches), 3) },
                  ]),
                ),
              },
            }
          : {}),
      },
      replay: { ...replays, projectionsAfter: projectionsAfterReplay },
    };
    process.stdout.write(`\nfacade\n${figureTable(figures)}\n\n`);
    const files = writeResultFiles('facade', report, facadeMarkdown(report, figures));
    log(`wrote ${files.json} and ${files.md}`);
  };
  await withInterruptCleanup(cleanup, async () => {
    try {
      await run();
    } catch (error) {
      keep = process.env.BENCH_KEEP_ON_FAILURE === '1';
      const started = gateway as BenchGateway | null;
      if (started) log(`gateway log: ${started.logFile}${keep ? '' : ' (removed; BENCH_KEEP_ON_FAILURE=1 keeps it)'}`);
      throw error;
    } finally {
      await cleanup();
    }
  });
}

type Settled = Readonly<{ caughtUp: boolean; afterMs: number; head: number; checkpoints: Record<string, number> }>;
type Idle = Readonly<{ gatewayPercent: number; postgresPercent: number }>;
type FacadeReport = Readonly<{
  idleGateway: { afterClones: Idle; atEnd: Idle };
  date: string;
  machine: ReturnType<typeof machine>;
  git: string;
  counts: ReturnType<typeof config> & { files: number; repositoryBytes: number; packBytes: number };
  clones: {
    variants: Record<string, { medianMs: number; cpuSecondsPerClone: Record<string, number> }>;
    facadeServer: ReturnType<typeof perOperation>;
    plainServerRequests: Record<string, { perOperation: number }>;
    ledgerEntriesPerClone: number;
    projectionsAfter: Settled;
  };
  noOpFetches: {
    facade: {
      fetches: number;
      elapsedMs: number;
      failures: number;
      cpu: { machineBusyPercent: number; cpuSeconds: Record<string, number> };
      server: ReturnType<typeof perOperation>;
      ledgerEntriesPerFetch: number;
      appended: { events: Record<string, number> };
      projectionsAfter: Settled;
    };
    plain?: {
      fetches: number;
      cpu: { machineBusyPercent: number; cpuSeconds: Record<string, number> } | null;
      serverRequests: Record<string, { perOperation: number }>;
    };
  };
  replay: {
    plain: Replay | null;
    facade: Replay | null;
    projectionsAfter: Settled;
  };
}>;
type Replay = Readonly<{
  operations: number;
  elapsedMs: number;
  failures: number;
  rate: number;
  latencyMs: { p50: number; p95: number };
  cpu: { machineBusyPercent: number; cpuSeconds: Record<string, number> };
  server?: ReturnType<typeof perOperation>;
}>;

function facadeMarkdown(report: FacadeReport, figures: readonly Figure[]): string {
  const m = report.machine;
  const c = report.counts;
  const perOp = (server: ReturnType<typeof perOperation>) => [
    ...Object.entries(server.requests).map(
      ([kind, r]) =>
        `  - ${kind}: ${r.perOperation} per operation, server time mean ${r.meanMs} ms, p50 ${r.p50} ms, p95 ${r.p95} ms`,
    ),
    `  - git processes spawned by the gateway per operation: ${Object.entries(server.gitSpawns)
      .map(
        ([cmd, s]) =>
          `${cmd} ${s.perOperation}` +
          `${s.lifetimeMs ? ` (spawn to exit p50 ${s.lifetimeMs.p50} ms, p95 ${s.lifetimeMs.p95} ms)` : ''}`,
      )
      .join(', ')}; spawn() calls held the event loop ${server.spawnCallMsPerOperation} ms per operation`,
    `  - SQL per operation (call to result, pg): ${server.queries
      .slice(0, 6)
      .map((q) => `\`${q.sql.slice(0, 50)}…\` ${q.perOperation}× mean ${q.meanMs} ms`)
      .join('; ')}`,
    `  - gateway event-loop utilisation ${Math.round(server.eventLoopUtilization * 100)} %, event-loop delay p99 ${server.eventLoopDelayP99Ms} ms`,
  ];
  const cpuLine = (cpu: { machineBusyPercent: number; cpuSeconds: Record<string, number> }, operations: number) =>
    `machine ${cpu.machineBusyPercent} % busy; CPU ms per operation: ${Object.entries(cpu.cpuSeconds)
      .filter(([, s]) => s > 0)
      .map(([g, s]) => `${g} ${fmt((s * 1000) / operations, 2)}`)
      .join(', ')}`;
  const f = report.noOpFetches.facade;
  const settled = (what: string, p: Settled) =>
    p.caughtUp
      ? `- projections caught up with the ${what} ${fmt(p.afterMs)} ms after they ended`
      : `- **the projections did not catch up with the ${what}**: head ${p.head}, checkpoints ${Object.entries(
          p.checkpoints,
        )
          .map(([n, pos]) => `${n} ${pos}`)
          .join(', ')} after ${fmt(p.afterMs / 1000)} s of waiting`;
  return [
    '# Git facade benchmark',
    '',
    `${report.date} · ${m.cpuModel}, ${m.cores} cores, ${m.memoryGiB} GiB · ${m.platform} ${m.release} · Node ${m.node} · ${report.git}`,
    '',
    figureMarkdown(figures),
    '',
    `Repository: ${c.files} files (${c.plugins} plugins × ${c.filesPerPlugin} files and the manifest), ${fmt(c.repositoryBytes / 1024)} KiB of content, ` +
      `${c.commits} commits, pack ${fmt(c.packBytes / 1024)} KiB. Clones: ${c.clones} per variant after ${c.warmup} warm-up rounds, interleaved; ` +
      `no-op fetches: ${c.fetchClients} clients for ${c.fetchSeconds} s (plain reference ${c.fetchPlainSeconds} s).`,
    '',
    'The plain side is `git http-backend` behind a minimal Node HTTP server (bench/git-http-server.ts, its own process) serving the',
    "gateway's own published repository, so both sides serve the same pack and refs. The gateway runs `gateway serve` as in production",
    '(its own process, log level as BENCH_GATEWAY_LOG_LEVEL, default info, to a file). git clients: protocol v2, the token in',
    '`http.extraHeader`, `maintenance.auto=false`.',
    '',
    '## Clones',
    '',
    ...Object.entries(report.clones.variants).map(
      ([name, v]) =>
        `- ${name}: median ${v.medianMs} ms; CPU s per clone: ${Object.entries(v.cpuSecondsPerClone)
          .filter(([, s]) => s > 0)
          .map(([g, s]) => `${g} ${s}`)
          .join(', ')}`,
    ),
    `- facade, per clone (${c.clones * 2} facade clones):`,
    ...perOp(report.clones.facadeServer),
    `  - ledger entries per clone: ${report.clones.ledgerEntriesPerClone}`,
    settled('clones', report.clones.projectionsAfter),
    `- plain, requests per clone: ${Object.entries(report.clones.plainServerRequests)
      .map(([k, r]) => `${k} ${r.perOperation}`)
      .join(', ')}`,
    '',
    '## No-op fetches',
    '',
    `- facade: ${f.fetches} fetches in ${fmt(f.elapsedMs / 1000, 1)} s, ${f.failures} failed; ${cpuLine(f.cpu, f.fetches)}`,
    ...perOp(f.server),
    `  - ledger entries per fetch: ${f.ledgerEntriesPerFetch}; events appended: ${Object.entries(f.appended.events)
      .map(([k, n]) => `${k} ${n}`)
      .join(', ')}`,
    settled('fetches', f.projectionsAfter),
    ...(report.noOpFetches.plain
      ? [
          `- plain: ${report.noOpFetches.plain.fetches} fetches; ${report.noOpFetches.plain.cpu ? cpuLine(report.noOpFetches.plain.cpu, report.noOpFetches.plain.fetches) : ''}`,
          `  - requests per fetch: ${Object.entries(report.noOpFetches.plain.serverRequests)
            .map(([k, r]) => `${k} ${r.perOperation}`)
            .join(', ')}`,
        ]
      : []),
    '',
    '## Idle gateway',
    '',
    `With no request in flight for 2 s, the gateway process used ${report.idleGateway.afterClones.gatewayPercent} % of a core (PostgreSQL ${report.idleGateway.afterClones.postgresPercent} %) after the clones`,
    `and ${report.idleGateway.atEnd.gatewayPercent} % (PostgreSQL ${report.idleGateway.atEnd.postgresPercent} %) at the end. Above a few percent, something works with no request`,
    'to serve (before b7b0f6a the projection runner re-read one batch in a loop after appends landed during its catch-up: 60 % of a core, 4,700 statements/s).',
    '',
    ...(report.replay.facade || report.replay.plain
      ? [
          '## No-op fetch requests without the git client',
          '',
          `The two requests of a no-op fetch (GET info/refs, POST ls-refs, as git ${report.git.replace('git version ', '')} sends them) from ${c.fetchClients} concurrent loops in`,
          'the benchmark process (Node fetch, keep-alive): what the server side sustains when no git client competes for the CPU.',
          '',
          ...(['facade', 'plain'] as const).flatMap((side) => {
            const r = report.replay[side];
            if (!r) return [];
            return [
              `- ${side}: ${r.operations} in ${fmt(r.elapsedMs / 1000, 1)} s, ${fmt(r.rate)}/s, p50 ${r.latencyMs.p50} ms, p95 ${r.latencyMs.p95} ms, ${r.failures} failed; ${cpuLine(r.cpu, r.operations)}`,
              ...(r.server ? perOp(r.server) : []),
            ];
          }),
          settled('replayed requests', report.replay.projectionsAfter),
          '',
        ]
      : []),
    'CPU groups: "gateway (node)" is the gateway process itself, "gateway children" the git processes it spawned (reaped), "plain server" likewise',
    'for the http-backend side, "bench children" the git clients, "postgres" every PostgreSQL process. Produced by `npm run bench`',
    '(BENCH_ONLY=facade for this part alone); bench/results/facade.json holds every sample.',
    '',
  ].join('\n');
}
