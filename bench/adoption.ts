// Adoption reads, p95 with 1,000,000 facade entries (target ≤ 50 ms):
// GET /api/v1/adoption?days=30, ?days=365 and GET /api/v1/adoption/staleness, sequential, p95.
//
// BENCH_ADOPTION_FETCHES facade fetch entries (default 1,000,000) are generated in PostgreSQL, one row
// per upload-pack ledger entry (BENCH_ADOPTION_PRINCIPALS principals, default 2,000, each fetching
// BENCH_ADOPTION_PER_PRINCIPAL of BENCH_ADOPTION_MARKETPLACES marketplaces plus the catalog, spread over
// the last 365 days; a marketplace's served tip moves every 30 days), then folded into the adoption
// projection's tables with the projection's own grouping (no events: the read is what is measured).
// Every marketplace has a real published repository whose main is the newest tip, so each request
// resolves served tips as in production. BENCH_ADOPTION_REQUESTS requests per endpoint (default 200)
// after BENCH_ADOPTION_WARMUP (default 20). Writes bench/results/adoption.json and .md.
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { devSession, startBenchGateway, type BenchGateway } from './bench-gateway.ts';
import { openBenchDatabase, waitForProjections, type BenchDatabase } from './database.ts';
import { envInt, log, benchScratch } from './env.ts';
import { figure, figureMarkdown, figureTable, fmt, latencies, machine, writeResultFiles } from './report.ts';

const config = () => ({
  fetches: envInt('BENCH_ADOPTION_FETCHES', 1_000_000, 1),
  principals: envInt('BENCH_ADOPTION_PRINCIPALS', 2000, 1),
  marketplaces: envInt('BENCH_ADOPTION_MARKETPLACES', 20, 1),
  perPrincipal: envInt('BENCH_ADOPTION_PER_PRINCIPAL', 3, 1),
  requests: envInt('BENCH_ADOPTION_REQUESTS', 200, 1),
  warmup: envInt('BENCH_ADOPTION_WARMUP', 20, 0),
});
type Config = ReturnType<typeof config>;

const goal = { atMost: 50, unit: 'ms' } as const;
const round = (n: number, digits = 2) => Math.round(n * 10 ** digits) / 10 ** digits;
const git = (args: string[], cwd?: string) =>
  execFileSync('git', args, {
    cwd,
    encoding: 'utf8',
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: 'b',
      GIT_AUTHOR_EMAIL: 'b@x',
      GIT_COMMITTER_NAME: 'b',
      GIT_COMMITTER_EMAIL: 'b@x',
    },
  }).trim();

/** A published repository per marketplace whose main is a real commit: the served tip the report reads. */
function publish(dataDir: string, marketplaces: number): string[] {
  const tips: string[] = [];
  for (let m = 1; m <= marketplaces; m++) {
    const repo = join(dataDir, 'git', 'published', `${m}.git`);
    mkdirSync(repo, { recursive: true });
    git(['init', '--bare', '--quiet', '--initial-branch=main', repo]);
    const tree = git(['-C', repo, 'mktree'], undefined);
    const commit = git(['-C', repo, 'commit-tree', tree, '-m', `team-skills-${m}`]);
    git(['-C', repo, 'update-ref', 'refs/heads/main', commit]);
    // Published repositories carry a refs stamp (served-view.ts); the gateway caches their refs by it.
    writeFileSync(join(repo, 'gateway-refs-stamp'), `bench-${m}`);
    tips.push(commit);
  }
  return tips;
}

/**
 * The fetch entries, then the projection's three tables from them. Snapshot k of a marketplace is served
 * from day 30k back (k = 0 the newest, whose sha is the published tip); the catalog is marketplace 0.
 */
async function fill(db: pg.Client, cfg: Config, tips: readonly string[]): Promise<Record<string, number>> {
  await db.query(
    `insert into marketplaces (id, name, origin, url, created_at, registered_by)
     select m, 'team-skills-' || m, 'upstream', 'https://git.example.com/team-skills-' || m || '.git', now(), 'root'
     from generate_series(1, $1::int) m`,
    [cfg.marketplaces],
  );
  await db.query(`create unlogged table bench_fetches (marketplace text, sha text, principal text, ts timestamptz)`);
  await db.query(
    `insert into bench_fetches
     select case when m = 0 then 'catalog' else 'team-skills-' || m end,
       case when m > 0 and k = 0 then ($5::text[])[m] else lpad(to_hex(m), 8, '0') || lpad(to_hex(k), 8, '0') || repeat('b', 24) end,
       'user-' || p, ts
     from (
       select p, ((p + (i % $4)) * 7919) % ($3 + 1) as m, ts, (extract(epoch from now() - ts) / 86400 / 30)::int as k
       from (
         select i, ((i::bigint * 104729) % $2)::int as p, now() - (random() * 365 * 86400) * interval '1 second' as ts
         from generate_series(1, $1::int) i
       ) x
     ) y`,
    [cfg.fetches, cfg.principals, cfg.marketplaces, cfg.perPrincipal, tips],
  );
  await db.query(`insert into adoption_daily (marketplace, sha, day, fetches, last_fetch)
    select marketplace, sha, (ts at time zone 'UTC')::date, count(*), max(ts) from bench_fetches group by 1, 2, 3`);
  await db.query(`insert into adoption_snapshot_fetchers (marketplace, sha, principal, last_fetch)
    select marketplace, sha, principal, max(ts) from bench_fetches group by 1, 2, 3`);
  await db.query(`insert into adoption_identity_days (marketplace, sha, day, identities)
    select marketplace, sha, (last_fetch at time zone 'UTC')::date, count(*) from adoption_snapshot_fetchers
    group by 1, 2, 3`);
  await db.query(`insert into adoption_latest (marketplace, principal, last_fetch, position, shas)
    select distinct on (marketplace, principal) marketplace, principal, ts, 0, array[sha]
    from bench_fetches order by marketplace, principal, ts desc`);
  const counts: Record<string, number> = {};
  for (const table of [
    'bench_fetches',
    'adoption_daily',
    'adoption_snapshot_fetchers',
    'adoption_identity_days',
    'adoption_latest',
  ]) {
    if (table !== 'bench_fetches') await db.query(`vacuum (analyze) ${table}`);
    counts[table] = Number((await db.query<{ n: string }>(`select count(*) as n from ${table}`)).rows[0]?.n ?? 0);
  }
  await db.query('drop table bench_fetches');
  await db.query('vacuum (analyze) marketplaces');
  return counts;
}

async function measure(get: () => Promise<{ status: number; text: string }>, cfg: Config) {
  for (let i = 0; i < cfg.warmup; i++) await get();
  const samples: number[] = [];
  let last = '';
  for (let i = 0; i < cfg.requests; i++) {
    const started = performance.now();
    const answer = await get();
    samples.push(performance.now() - started);
    if (answer.status !== 200) throw new Error(`adoption: ${answer.status} ${answer.text.slice(0, 300)}`);
    last = answer.text;
  }
  return { ms: latencies(Float64Array.from(samples)), body: JSON.parse(last) as unknown[], bytes: last.length };
}

export async function adoptionBenchmark(): Promise<void> {
  const cfg = config();
  log(`adoption: ${fmt(cfg.fetches)} fetch entries, ${cfg.principals} principals, ${cfg.marketplaces} marketplaces`);
  const scratch = benchScratch('gateway-bench-adoption-');
  const { dataDir } = scratch;
  let database: BenchDatabase | null = null;
  let gateway: BenchGateway | null = null;
  let client: pg.Client | null = null;
  const close = async () => {
    await client?.end().catch(() => {});
    await gateway?.close().catch(() => {});
    await database?.close().catch(() => {});
  };
  const run = async () => {
    database = await openBenchDatabase(log);
    gateway = await startBenchGateway({ databaseUrl: database.url, dataDir, log });
    client = new pg.Client({ connectionString: database.url });
    await client.connect();
    await waitForProjections(client);
    const tips = publish(dataDir, cfg.marketplaces);
    const filling = performance.now();
    const counts = await fill(client, cfg, tips);
    log(`adoption: filled in ${fmt((performance.now() - filling) / 1000, 1)} s: ${JSON.stringify(counts)}`);
    const api = devSession(gateway.url, 'root');
    const results = {
      days30: await measure(() => api.get('/api/v1/adoption?days=30'), cfg),
      days365: await measure(() => api.get('/api/v1/adoption?days=365'), cfg),
      staleness: await measure(() => api.get('/api/v1/adoption/staleness'), cfg),
    };
    const report365 = results.days365.body as Array<{ servedSha: string | null; fetches: number }>;
    const served = report365.filter((entry) => entry.servedSha !== null).length;
    const total365 = report365.reduce((sum, entry) => sum + entry.fetches, 0);
    const figures = [
      ...(
        [
          ['days30', 'GET /api/v1/adoption?days=30'],
          ['days365', 'GET /api/v1/adoption?days=365'],
          ['staleness', 'GET /api/v1/adoption/staleness'],
        ] as const
      ).map(([id, label]) =>
        figure(
          id,
          `${label}, p95`,
          results[id].ms.p95,
          'ms',
          goal,
          `p50 ${round(results[id].ms.p50)} ms, p99 ${round(results[id].ms.p99)} ms; ${results[id].body.length} entries, ` +
            `${fmt(results[id].bytes)} bytes`,
        ),
      ),
    ];
    log(
      `adoption: p95 days=30 ${fmt(results.days30.ms.p95, 1)} ms, days=365 ${fmt(results.days365.ms.p95, 1)} ms, ` +
        `staleness ${fmt(results.staleness.ms.p95, 1)} ms; 365-day total ${fmt(total365)} fetches, ` +
        `${served} marketplaces with a served tip`,
    );
    const report = {
      benchmark: 'adoption',
      date: new Date().toISOString(),
      machine: machine(),
      postgres: (await client.query<{ v: string }>('select version() as v')).rows[0]?.v.split(' on ')[0] ?? '',
      config: cfg,
      counts: { ...counts, fetchesIn365Days: total365, servedMarketplaces: served },
      figures,
      ms: { days30: results.days30.ms, days365: results.days365.ms, staleness: results.staleness.ms },
    };
    process.stdout.write(`\nadoption\n${figureTable(figures)}\n\n`);
    const files = writeResultFiles('adoption', report, markdown(report));
    log(`wrote ${files.json} and ${files.md}`);
  };
  await scratch.run(run, close);
}

function markdown(report: {
  date: string;
  machine: ReturnType<typeof machine>;
  postgres: string;
  config: Config;
  counts: Record<string, number>;
  figures: ReturnType<typeof figure>[];
}): string {
  const m = report.machine;
  const c = report.config;
  return [
    '# Adoption read benchmark',
    '',
    `${report.date} · ${m.cpuModel}, ${m.cores} cores, ${m.memoryGiB} GiB · ${m.platform} ${m.release} · ` +
      `Node ${m.node} · ${report.postgres}`,
    '',
    figureMarkdown(report.figures),
    '',
    `${fmt(c.fetches)} facade fetch entries (upload-pack, one per want) by ${fmt(c.principals)} principals, each ` +
      `fetching ${c.perPrincipal} of ${c.marketplaces} marketplaces and the catalog over the last 365 days, a tip ` +
      `every 30 days; folded into the adoption projection: ${fmt(report.counts.adoption_daily ?? 0)} day rows, ` +
      `${fmt(report.counts.adoption_snapshot_fetchers ?? 0)} (snapshot, principal) rows (not read by a report), ` +
      `${fmt(report.counts.adoption_identity_days ?? 0)} (snapshot, day of a principal's latest fetch) rows, ` +
      `${fmt(report.counts.adoption_latest ?? 0)} (marketplace, principal) rows. ` +
      `${c.requests} sequential requests per endpoint after ${c.warmup} warm-up, one admin session; each ` +
      'request resolves the served tips from the published repositories (real git repositories).',
    '',
    'Produced by `npm run bench` (BENCH_ONLY=adoption for this part).',
    '',
  ].join('\n');
}
