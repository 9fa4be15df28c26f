// The revocation check (POST /status/v1/snapshots) under load: BENCH_HOLDINGS_CALLERS concurrent
// callers (default 16), each sending requests of BENCH_HOLDINGS_PAIRS pairs (default 256, the limit)
// back to back until BENCH_HOLDINGS_REQUESTS requests are answered, after BENCH_HOLDINGS_WARMUP
// warm-up requests. p50/p95/p99 client-side, the gateway's own time per request, and the SQL
// statements it sent per request (target: none once the token is known, p95 ≤ 20 ms).
//
// The read models the check starts from (marketplaces, snapshots) are filled by a bulk insert of
// BENCH_HOLDINGS_MARKETPLACES marketplaces (one in ten removed) with BENCH_HOLDINGS_SNAPSHOTS
// snapshots each, in every state; no events, as nothing changes while measuring. The gateway is then
// started again, so that its memory of the captures is loaded from these rows. Each request asks a
// mix: captured commits (approved, revoked, held, rejected; live and removed marketplaces), unknown
// commits, unknown marketplaces. The callers' bodies are made before the clock starts and the answers read
// after it stops (they share the cores with the gateway). The same load against a bare Node HTTP server
// (bench/http-floor.ts) gives the floor this machine puts under the target. Writes
// bench/results/holdings.json and .md.
import { chmodSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { devSession, startBenchGateway, type BenchGateway, type GatewayStats } from './bench-gateway.ts';
import { CpuMeter } from './cpu.ts';
import { openBenchDatabase, postmasterPid, waitForProjections, type BenchDatabase } from './database.ts';
import { envInt, log, withInterruptCleanup } from './env.ts';
import { seededRandom } from './events.ts';
import { startHttpFloor } from './http-floor.ts';
import { figure, figureMarkdown, figureTable, fmt, latencies, machine, writeResultFiles } from './report.ts';

const config = () => ({
  marketplaces: envInt('BENCH_HOLDINGS_MARKETPLACES', 200, 1),
  snapshotsPerMarketplace: envInt('BENCH_HOLDINGS_SNAPSHOTS', 100, 1),
  pairs: envInt('BENCH_HOLDINGS_PAIRS', 256, 1),
  callers: envInt('BENCH_HOLDINGS_CALLERS', 16, 1),
  requests: envInt('BENCH_HOLDINGS_REQUESTS', 2000, 1),
  warmup: envInt('BENCH_HOLDINGS_WARMUP', 200, 0),
});

const goals = { p95: { atMost: 20, unit: 'ms' } } as const;
const round = (n: number, digits = 2) => Math.round(n * 10 ** digits) / 10 ** digits;
const nameOf = (i: number) => `team-skills-${i}`;
const shaOf = (marketplace: number, snapshot: number) =>
  `${marketplace.toString(16).padStart(8, '0')}${snapshot.toString(16).padStart(8, '0')}`.padEnd(40, 'a');

/** Marketplaces and their snapshots, as the projections would hold them after a long life. */
async function fill(db: pg.Client, cfg: ReturnType<typeof config>): Promise<number> {
  await db.query(
    `insert into marketplaces (id, name, origin, url, created_at, registered_by, removed_at)
     select m, 'team-skills-' || m, 'upstream', 'https://git.example.com/team-skills-' || m || '.git', now(), 'root',
       case when m % 10 = 0 then now() end
     from generate_series(1, $1::int) m`,
    [cfg.marketplaces],
  );
  const { rowCount } = await db.query(
    `insert into snapshots (id, marketplace_id, sha, upstream_sha, state, created_at, approved_at, revoked_at,
       was_revoked, administrative)
     select m * 100000 + s, m, sha, sha,
       (array['approved', 'approved', 'revoked', 'held', 'rejected'])[1 + s % 5], now(),
       case when s % 5 < 2 then now() end, case when s % 5 = 2 then now() end, s % 7 = 0, m % 10 = 0 and s % 5 = 2
     from generate_series(1, $1::int) m, generate_series(1, $2::int) s,
       lateral (select lpad(to_hex(m), 8, '0') || lpad(to_hex(s), 8, '0') || repeat('a', 24) as sha) k`,
    [cfg.marketplaces, cfg.snapshotsPerMarketplace],
  );
  await db.query('vacuum (analyze) marketplaces');
  await db.query('vacuum (analyze) snapshots');
  return rowCount ?? 0;
}

/** One request's pairs: 80 % captured commits, 15 % unknown commits, 5 % unknown marketplaces. */
function pairsFor(random: () => number, cfg: ReturnType<typeof config>) {
  return Array.from({ length: cfg.pairs }, () => {
    const m = 1 + Math.floor(random() * cfg.marketplaces);
    const s = 1 + Math.floor(random() * cfg.snapshotsPerMarketplace);
    const roll = random();
    if (roll < 0.8) return { marketplace: nameOf(m), sha: shaOf(m, s) };
    if (roll < 0.95) return { marketplace: nameOf(m), sha: shaOf(m, cfg.snapshotsPerMarketplace + s) };
    return { marketplace: `nowhere-${m}`, sha: shaOf(m, s) };
  });
}

/** One POST on a kept-alive connection: what the benchmark's callers send, with as little client work as Node allows. */
function post(agent: http.Agent, url: URL, headers: Record<string, string>, body: Buffer) {
  return new Promise<{ status: number; text: string }>((resolve, reject) => {
    const request = http.request(url, {
      method: 'POST',
      agent,
      headers: { ...headers, 'content-length': body.length },
    });
    request.on('error', reject);
    request.on('response', (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('error', reject);
      response.on('end', () => resolve({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString() }));
    });
    request.end(body);
  });
}

/**
 * `total` requests from `cfg.callers` callers, each sending the next one as soon as its last is answered. The
 * bodies are made before the clock starts and the answers read after it stops: the callers share the
 * machine's two cores with the gateway, so their own work would queue the requests measured.
 */
async function load(url: string, token: string, cfg: ReturnType<typeof config>, total: number, seed: number) {
  const headers = {
    authorization: `Basic ${Buffer.from(`bench:${token}`).toString('base64')}`,
    'content-type': 'application/json',
  };
  const random = seededRandom(seed);
  const bodies = Array.from({ length: total }, () => Buffer.from(JSON.stringify({ holdings: pairsFor(random, cfg) })));
  const target = new URL('/status/v1/snapshots', url);
  const agent = new http.Agent({ keepAlive: true, maxSockets: cfg.callers });
  const samples: number[] = [];
  const answers: string[] = [];
  let sent = 0;
  const caller = async () => {
    while (sent < total) {
      const body = bodies[sent++]!;
      const started = performance.now();
      const response = await post(agent, target, headers, body);
      samples.push(performance.now() - started);
      if (response.status !== 200) throw new Error(`holdings: ${response.status} ${response.text.slice(0, 300)}`);
      answers.push(response.text);
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: cfg.callers }, () => caller()));
  const ms = performance.now() - started;
  agent.destroy();
  const states: Record<string, number> = {};
  for (const text of answers)
    for (const result of (JSON.parse(text) as { results: Array<{ state: string }> }).results)
      states[result.state] = (states[result.state] ?? 0) + 1;
  return { samples, states, ms, firstAnswer: answers[0] ?? '' };
}

/**
 * The floor under the target: the same callers and bodies against bench/http-floor.ts answering one of the
 * gateway's answers (same size), with the CPU each side spent per request.
 */
async function measureFloor(token: string, cfg: ReturnType<typeof config>, answer: string) {
  const floor = await startHttpFloor(answer);
  try {
    await load(floor.url, token, cfg, cfg.warmup, 1000);
    const meter = new CpuMeter(() => ({ bench: process.pid, server: floor.pid }));
    const before = meter.sample();
    const measured = await load(floor.url, token, cfg, cfg.requests, 1);
    const cpu = CpuMeter.delta(before, meter.sample()).cpuSeconds;
    const perRequest = (group: string) => round(((cpu[group] ?? 0) * 1000) / measured.samples.length);
    const { p50, p95 } = latencies(Float64Array.from(measured.samples));
    return { p50, p95, benchMs: perRequest('bench (node)'), serverMs: perRequest('server (node)') };
  } finally {
    await floor.close();
  }
}

/** The gateway's SQL per request while measuring, by statement (the credential check included). */
const queriesPerRequest = (stats: GatewayStats, requests: number) =>
  Object.entries(stats.queries)
    .map(([statement, t]) => ({ statement, perRequest: round(t.count / requests), meanMs: round(t.totalMs / t.count) }))
    .filter((q) => q.perRequest >= 0.01)
    .sort((a, b) => b.perRequest - a.perRequest);

/** The SQL of capturesOfPairs (snapshots.queries.ts) for one request's pairs, as PostgreSQL runs it. */
async function explainPairs(db: pg.Client, pairs: ReturnType<typeof pairsFor>) {
  const rows = await db.query<{ 'QUERY PLAN': string }>(
    `explain (analyze, buffers)
     select h.marketplace, h.sha, s.state, s.revoked_at, s.was_revoked, m.removed_at is null as live
     from unnest($1::text[], $2::text[]) as h(marketplace, sha)
     join marketplaces m on m.name = h.marketplace
     join snapshots s on s.marketplace_id = m.id and s.sha = h.sha
     where s.sha = any($2::text[])`,
    [pairs.map((p) => p.marketplace), pairs.map((p) => p.sha)],
  );
  const plan = rows.rows.map((r) => r['QUERY PLAN']).join('\n');
  return { plan, executionMs: Number(/Execution Time: ([\d.]+) ms/.exec(plan)?.[1] ?? NaN) };
}

export async function holdingsBenchmark(): Promise<void> {
  const cfg = config();
  log(
    `holdings: ${cfg.callers} callers, ${cfg.pairs} pairs per request, ` +
      `${cfg.requests} requests (+${cfg.warmup} warm-up); ` +
      `${cfg.marketplaces} marketplaces × ${cfg.snapshotsPerMarketplace} snapshots`,
  );
  const root = mkdtempSync(join(tmpdir(), 'gateway-bench-holdings-'));
  chmodSync(root, 0o755);
  const dataDir = join(root, 'gateway-data');
  mkdirSync(dataDir);
  let database: BenchDatabase | null = null;
  let gateway: BenchGateway | null = null;
  let client: pg.Client | null = null;
  let keep = false;
  let cleaned = false;
  const cleanup = async () => {
    if (cleaned) return;
    cleaned = true;
    await client?.end().catch(() => {});
    await gateway?.close().catch(() => {});
    await database?.close().catch(() => {});
    if (!keep) rmSync(root, { recursive: true, force: true });
  };
  const run = async () => {
    database = await openBenchDatabase(log);
    const first = await startBenchGateway({ databaseUrl: database.url, dataDir, log });
    gateway = first;
    client = new pg.Client({ connectionString: database.url });
    await client.connect();
    await waitForProjections(client);
    const snapshots = await fill(client, cfg);
    // The check answers from a memory loaded from the read models at start: started again on the rows filled.
    await first.close();
    gateway = await startBenchGateway({ databaseUrl: database.url, dataDir, log });
    const gw: BenchGateway = gateway;
    const api = devSession(gw.url, 'root');
    const token = (await api.expect('token', 201, api.post('/api/v1/tokens', { name: 'bench' }))).body.token as string;

    await load(gw.url, token, cfg, cfg.warmup, 1000);
    const meter = new CpuMeter(() => ({ bench: process.pid, gateway: gw.pid }), await postmasterPid(client));
    await gw.reset();
    const cpuBefore = meter.sample();
    const measured = await load(gw.url, token, cfg, cfg.requests, 1);
    const cpu = CpuMeter.delta(cpuBefore, meter.sample());
    const stats = await gw.stats();
    // CPU milliseconds per request, by process group: where a full machine's time goes.
    const cpuPerRequest = Object.fromEntries(
      Object.entries(cpu.cpuSeconds)
        .filter(([, seconds]) => seconds > 0)
        .map(([group, seconds]) => [group, round((seconds * 1000) / measured.samples.length)]),
    );
    // Service time without queueing: one caller, sequential requests.
    const alone = await load(gw.url, token, { ...cfg, callers: 1 }, Math.max(1, Math.floor(cfg.requests / 10)), 2);
    const alone95 = latencies(Float64Array.from(alone.samples));
    const floor = await measureFloor(token, cfg, measured.firstAnswer);
    const explained = await explainPairs(client, pairsFor(seededRandom(3), cfg));
    const client95 = latencies(Float64Array.from(measured.samples));
    const server = stats.requests['POST /status/v1/snapshots'];
    const server95 = server ? latencies(Float64Array.from(server.samples)) : null;
    const queries = queriesPerRequest(stats, measured.samples.length);
    const statements = queries.reduce((sum, q) => sum + q.perRequest, 0);
    const rate = measured.samples.length / (measured.ms / 1000);
    log(
      `holdings: p50 ${fmt(client95.p50, 1)} ms, p95 ${fmt(client95.p95, 1)} ms, p99 ${fmt(client95.p99, 1)} ms ` +
        `(gateway p95 ${fmt(server95?.p95 ?? 0, 1)} ms), ${fmt(rate)} requests/s; ` +
        `${fmt(statements, 2)} SQL statements per request; ` +
        `one caller alone: p50 ${fmt(alone95.p50, 1)} ms, p95 ${fmt(alone95.p95, 1)} ms; ` +
        `the holdings query executes in ${explained.executionMs} ms; machine ${cpu.machineBusyPercent} % busy, ` +
        `CPU ms per request: ${Object.entries(cpuPerRequest)
          .map(([group, ms]) => `${group} ${ms}`)
          .join(', ')}`,
    );
    const figures = [
      figure(
        'p95',
        `POST /status/v1/snapshots, ${cfg.pairs} pairs, ${cfg.callers} concurrent callers, p95`,
        client95.p95,
        'ms',
        goals.p95,
        `p50 ${round(client95.p50)} ms, p99 ${round(client95.p99)} ms, ${measured.samples.length} requests`,
      ),
      figure('rate', 'requests answered', rate, 'requests/s', undefined, `${round(rate * cfg.pairs)} pairs/s`),
      figure(
        'alone-p95',
        'the same, one caller alone, p95',
        alone95.p95,
        'ms',
        undefined,
        `p50 ${round(alone95.p50)} ms, ${alone.samples.length} sequential requests`,
      ),
      figure(
        'floor-p95',
        'the same callers against a bare Node HTTP server (parses the body, answers a stored answer), p95',
        floor.p95,
        'ms',
        undefined,
        `p50 ${round(floor.p50)} ms; CPU ms per request: bench ${floor.benchMs}, server ${floor.serverMs}`,
      ),
      figure(
        'sql',
        `the holdings query for ${cfg.pairs} pairs (the answer without a memory), server execution`,
        explained.executionMs,
        'ms',
        undefined,
        'EXPLAIN ANALYZE; the plan is in bench/results/holdings.json',
      ),
    ];
    const report = {
      benchmark: 'holdings',
      date: new Date().toISOString(),
      machine: machine(),
      postgres: (await client.query<{ v: string }>('select version() as v')).rows[0]?.v.split(' on ')[0] ?? '',
      counts: { ...cfg, snapshots },
      figures,
      clientMs: client95,
      serverMs: server95,
      states: measured.states,
      queries,
      statementsPerRequest: round(statements),
      eventLoop: stats.eventLoop,
      aloneMs: alone95,
      cpu: { machineBusyPercent: cpu.machineBusyPercent, msPerRequest: cpuPerRequest },
      floor,
      sql: explained,
    };
    process.stdout.write(`\nholdings\n${figureTable(figures)}\n\n`);
    const files = writeResultFiles('holdings', report, holdingsMarkdown(report));
    log(`wrote ${files.json} and ${files.md}`);
  };
  await withInterruptCleanup(cleanup, async () => {
    try {
      await run();
    } catch (error) {
      keep = process.env.BENCH_KEEP_ON_FAILURE === '1';
      if (gateway) log(`gateway log: ${(gateway as BenchGateway).logFile}${keep ? '' : ' (removed)'}`);
      throw error;
    } finally {
      await cleanup();
    }
  });
}

function holdingsMarkdown(report: {
  date: string;
  machine: ReturnType<typeof machine>;
  postgres: string;
  counts: ReturnType<typeof config> & { snapshots: number };
  figures: ReturnType<typeof figure>[];
  serverMs: ReturnType<typeof latencies> | null;
  states: Record<string, number>;
  queries: Array<{ statement: string; perRequest: number; meanMs: number }>;
  statementsPerRequest: number;
  cpu: { machineBusyPercent: number; msPerRequest: Record<string, number> };
  floor: Awaited<ReturnType<typeof measureFloor>>;
  eventLoop: { utilization: number };
}): string {
  const m = report.machine;
  const c = report.counts;
  return [
    '# Revocation check benchmark',
    '',
    `${report.date} · ${m.cpuModel}, ${m.cores} cores, ${m.memoryGiB} GiB · ${m.platform} ${m.release} · ` +
      `Node ${m.node} · ${report.postgres}`,
    '',
    figureMarkdown(report.figures),
    '',
    `${c.callers} callers send requests of ${c.pairs} pairs back to back ` +
      `(${c.warmup} warm-up requests, then ${c.requests} measured), against ${c.marketplaces} marketplaces ` +
      `(one in ten removed) holding ${fmt(c.snapshots)} snapshots in every state. ` +
      `Gateway time per request: p50 ${fmt(report.serverMs?.p50 ?? 0, 1)} ms, ` +
      `p95 ${fmt(report.serverMs?.p95 ?? 0, 1)} ms. ` +
      `Answers: ${Object.entries(report.states)
        .map(([state, n]) => `${state} ${fmt(n)}`)
        .join(', ')}.`,
    '',
    `While measuring, the machine was ${report.cpu.machineBusyPercent} % busy; CPU ms per request: ` +
      `${Object.entries(report.cpu.msPerRequest)
        .map(([group, ms]) => `${group} ${ms}`)
        .join(', ')}. The gateway's event loop was ${fmt(report.eventLoop.utilization * 100, 1)} % busy: its ` +
      `requests are handled on one thread, so with ${c.callers} callers they queue for it and the mean latency ` +
      "is about callers × the gateway's CPU per request.",
    '',
    "The bare server's row is the floor under the target: the same callers, bodies and answer size against a " +
      'node:http server that only parses the body and answers (bench/http-floor.ts), so no gateway code runs. ' +
      `Against it: p50 ${fmt(report.floor.p50, 1)} ms; CPU ms per request: bench ${report.floor.benchMs}, ` +
      `server ${report.floor.serverMs}. The gateway can come near the floor, not below it.`,
    '',
    `SQL statements per request while measuring: ${fmt(report.statementsPerRequest, 2)}. The check answers from ` +
      "the gateway's memory of the captures and of the tokens in use (docs/facade.md, Revocation check); a " +
      'statement below 0.01 per request is left out.',
    '',
    ...(report.queries.length === 0
      ? []
      : [
          '| SQL statement (first words) | per request | mean ms |',
          '| --- | ---: | ---: |',
          ...report.queries.map((q) => `| \`${q.statement.replaceAll('|', '\\|')}\` | ${q.perRequest} | ${q.meanMs} |`),
          '',
        ]),
    'The gateway runs in its own process (bench/gateway-process.ts); the callers are the benchmark process,',
    'with one personal access token as HTTP Basic password.',
    'Produced by `npm run bench` (BENCH_ONLY=holdings for this part).',
    '',
  ].join('\n');
}
