// Retention passes: evaluate and compact over 10,000 snapshots in 100 marketplaces, seconds per pass
// (target: evaluate ≤ 2 s, a compaction that purges 1,000 ≤ 60 s), and disk reclaimed.
//
// The estate is built without ingesting: BENCH_RETENTION_MARKETPLACES marketplaces (default 100) of
// BENCH_RETENTION_SNAPSHOTS snapshots each (default 100), their events appended straight to the event store (as
// the deciders write them) and their quarantine repositories written with git plumbing (one `git fast-import`
// each). Each snapshot's commit is a child of one shared base commit (a few shared files) and adds a file of its
// own (BENCH_RETENTION_FILE_KB, default 8 KB of base64 noise), so a purge has something only it reaches. Per
// marketplace: the newest snapshot approved (a day old), BENCH_RETENTION_PURGE (default 10) soft-deleted with
// purgeAfter passed (120 days old), BENCH_RETENTION_ELIGIBLE (default 2) held and 100 days old (held-too-long
// and superseded: the first evaluate pass soft-deletes them), BENCH_RETENTION_PARKED (default 10) held and 100
// days old but soft-deleted by hand (purgeAfter still ahead), the rest held and younger than every criterion.
// Measured over HTTP on a gateway in its own process: POST /api/v1/retention/evaluate twice (the first acts,
// the second finds nothing new); then the parked snapshots are restored (events appended straight to the store,
// as a restore by hand records them) and a third pass soft-deletes them all (1,000 by default: an evaluation
// over 10,000 snapshots in 100 marketplaces, target 2 s, with a pass that acts on 1,000); then
// POST /api/v1/retention/compact twice (the first purges, the second has nothing to do), and `du` of <data-dir>/git/quarantine before and after the purge (every repository repacked
// with `git gc` first, so the figure is what the purge reclaimed, not what packing gained). Writes
// bench/results/retention.json and .md.
import { join } from 'node:path';
import pg from 'pg';
import { Listener } from '../src/adapters/postgres/listener.ts';
import { openPool, type DatabasePool } from '../src/adapters/postgres/pool.ts';
import { devSession, startBenchGateway, type BenchGateway } from './bench-gateway.ts';
import { openBenchDatabase, waitForProjections, type BenchDatabase } from './database.ts';
import { benchScratch, log } from './env.ts';
import { figure, figureMarkdown, figureTable, fmt, machine, writeResultFiles, type Figure } from './report.ts';
import { buildEstate, config, du, packAll, restoreParked, round, type Config } from './retention-estate.ts';

type Pass = Readonly<{ seconds: number; body: Record<string, unknown> }>;

async function timedPost(api: ReturnType<typeof devSession>, path: string): Promise<Pass | null> {
  const started = performance.now();
  const answer = await api.post(path);
  const seconds = (performance.now() - started) / 1000;
  if (answer.status === 404) return null;
  if (answer.status !== 200) throw new Error(`${path}: ${answer.status} ${answer.text.slice(0, 300)}`);
  return { seconds, body: answer.body };
}

export async function retentionBenchmark(): Promise<void> {
  const cfg = config();
  if (cfg.purge + cfg.eligible + cfg.parked >= cfg.snapshots)
    throw new Error('BENCH_RETENTION_SNAPSHOTS must exceed PURGE + ELIGIBLE + PARKED (the newest is approved)');
  const total = cfg.marketplaces * cfg.snapshots;
  log(
    `retention: ${fmt(total)} snapshots in ${cfg.marketplaces} marketplaces; ${fmt(cfg.marketplaces * cfg.purge)} due`,
  );
  const scratch = benchScratch('gateway-bench-retention-');
  const { dataDir } = scratch;
  let database: BenchDatabase | null = null;
  let gateway: BenchGateway | null = null;
  let client: pg.Client | null = null;
  let pool: DatabasePool | null = null;
  let listener: Listener | null = null;
  const close = async () => {
    await client?.end().catch(() => {});
    await gateway?.close().catch(() => {});
    await listener?.close().catch(() => {});
    await pool?.end().catch(() => {});
    await database?.close().catch(() => {});
  };
  const run = async () => {
    database = await openBenchDatabase(log);
    gateway = await startBenchGateway({
      databaseUrl: database.url,
      dataDir,
      log,
      env: { GATEWAY_CATALOG_ENABLED: 'false', GATEWAY_RETENTION_ENABLED: 'false' },
    });
    client = new pg.Client({ connectionString: database.url });
    await client.connect();
    await waitForProjections(client);
    pool = await openPool(database.url);
    listener = new Listener(database.url);
    const estate = await buildEstate(pool, listener, dataDir, cfg);
    await waitForProjections(client, { timeoutMs: 1_800_000 });
    log(`retention: estate built in ${fmt(estate.buildMs / 1000, 1)} s (${fmt(estate.events)} events)`);
    packAll(dataDir, cfg.marketplaces);
    const quarantineDir = join(dataDir, 'git', 'quarantine');
    const before = du(quarantineDir);
    const api = devSession(gateway.url, 'root');
    const evaluate = [
      await timedPost(api, '/api/v1/retention/evaluate'),
      await timedPost(api, '/api/v1/retention/evaluate'),
    ];
    if (evaluate[0] === null) log('retention: POST /api/v1/retention/evaluate answers 404: compaction only');
    await restoreParked(pool, listener, estate.shas, cfg);
    await waitForProjections(client, { timeoutMs: 600_000 });
    log(`retention: ${fmt(cfg.marketplaces * cfg.parked)} parked snapshots restored; the batch pass`);
    const batch = await timedPost(api, '/api/v1/retention/evaluate');
    const compact = [
      await timedPost(api, '/api/v1/retention/compact'),
      await timedPost(api, '/api/v1/retention/compact'),
    ];
    const after = du(quarantineDir);
    const rows = Number((await client.query<{ n: string }>('select count(*) as n from snapshots')).rows[0]?.n ?? 0);
    const report = results(cfg, estate, { evaluate, batch, compact, before, after, rows });
    process.stdout.write(`\nretention\n${figureTable(report.figures)}\n\n`);
    const files = writeResultFiles('retention', report, markdown(report, cfg));
    log(`wrote ${files.json} and ${files.md}`);
  };
  await scratch.run(run, close);
}

type Measured = Readonly<{
  evaluate: ReadonlyArray<Pass | null>;
  /** The pass after the parked snapshots were restored (acting on marketplaces × parked). */
  batch: Pass | null;
  compact: ReadonlyArray<Pass | null>;
  before: number;
  after: number;
  rows: number;
}>;

function results(cfg: Config, estate: { events: number; buildMs: number }, measured: Measured) {
  const { evaluate, batch, compact, before, after } = measured;
  const [firstCompact, secondCompact] = compact as [Pass, Pass];
  const figures: Figure[] = [];
  evaluate.forEach((pass, i) => {
    if (pass)
      figures.push(
        figure(
          `evaluate${i + 1}`,
          `POST /api/v1/retention/evaluate, pass ${i + 1}`,
          round(pass.seconds),
          's',
          { atMost: 2, unit: 's' },
          JSON.stringify(pass.body),
        ),
      );
  });
  if (batch)
    figures.push(
      figure(
        'evaluateBatch',
        `POST /api/v1/retention/evaluate soft-deleting ${fmt(Number(batch.body.acted))}`,
        round(batch.seconds),
        's',
        { atMost: 2, unit: 's' },
        JSON.stringify(batch.body),
      ),
    );
  const purged = Number(firstCompact.body.acted);
  figures.push(
    figure('compact', `POST /api/v1/retention/compact purging ${fmt(purged)}`, round(firstCompact.seconds), 's', {
      atMost: 60,
      unit: 's',
    }),
    figure('compactIdle', 'POST /api/v1/retention/compact, nothing due', round(secondCompact.seconds), 's'),
    figure(
      'reclaimed',
      'quarantine disk reclaimed by the purge',
      round((before - after) / 1024 / 1024, 2),
      'MiB',
      undefined,
      `${fmt(before)} bytes before, ${fmt(after)} after`,
    ),
  );
  return {
    benchmark: 'retention',
    date: new Date().toISOString(),
    machine: machine(),
    config: cfg,
    estate: { events: estate.events, buildSeconds: round(estate.buildMs / 1000, 1), rowsAfter: measured.rows },
    passes: { evaluate, batch, compact },
    disk: { before, after },
    figures,
  };
}

function markdown(report: ReturnType<typeof results>, cfg: Config): string {
  const m = report.machine;
  return [
    '# Retention benchmark',
    '',
    `${report.date} · ${m.cpuModel}, ${m.cores} cores, ${m.memoryGiB} GiB · ${m.platform} ${m.release} · Node ${m.node}`,
    '',
    figureMarkdown(report.figures),
    '',
    `${fmt(cfg.marketplaces * cfg.snapshots)} snapshots in ${cfg.marketplaces} marketplaces (${fmt(report.estate.events)} ` +
      `events appended straight to the store, quarantine repositories written with git fast-import): per ` +
      `marketplace the newest approved, ${cfg.purge} soft-deleted past purgeAfter, ${cfg.eligible} held and 100 days ` +
      `old, ${cfg.parked} held and 100 days old but soft-deleted by hand, the rest held and recent. Each snapshot ` +
      `commit is a child of one shared base commit with a ${cfg.fileKb} KB file of its own. The first evaluate ` +
      'pass soft-deletes the old held ones, the second finds nothing new; then the parked ones are restored ' +
      `(events appended to the store) and a third pass soft-deletes those ${fmt(cfg.marketplaces * cfg.parked)} ` +
      '(one command per marketplace); the first compaction purges, the second has nothing due. Disk: `du -sb` of the quarantine ' +
      'repositories, each repacked with `git gc` before, against after the purging pass.',
    '',
    `Snapshot rows after: ${fmt(report.estate.rowsAfter)}.`,
    '',
    'Produced by `npm run bench` (BENCH_ONLY=retention for this part).',
    '',
  ].join('\n');
}
