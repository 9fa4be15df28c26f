// Retention passes (issue 17: "evaluate and compact over 10,000 snapshots in 100 marketplaces, seconds per pass
// (target: evaluate ≤ 2 s, a compaction that purges 1,000 ≤ 60 s), and disk reclaimed").
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
// as a restore by hand records them) and a third pass soft-deletes them all (1,000 by default: the issue's
// "evaluate ... over 10,000 snapshots in 100 marketplaces", target 2 s, with a pass that acts on 1,000); then
// POST /api/v1/retention/compact twice (the first purges, the second has nothing to do), and `du` of <data-dir>/git/quarantine before and after the purge (every repository repacked
// with `git gc` first, so the figure is what the purge reclaimed, not what packing gained). Writes
// bench/results/retention.json and .md.
import { execFileSync } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { NewEvent } from '../src/adapters/eventstore/port.ts';
import { PostgresEventStore } from '../src/adapters/eventstore/postgres/postgres-event-store.ts';
import { Listener } from '../src/adapters/postgres/listener.ts';
import { openPool, type DatabasePool } from '../src/adapters/postgres/pool.ts';
import { streams } from '../src/domain/shared/streams.ts';
import { devSession, startBenchGateway, type BenchGateway } from './bench-gateway.ts';
import { openBenchDatabase, waitForProjections, type BenchDatabase } from './database.ts';
import { benchScratch, envInt, log } from './env.ts';
import { figure, figureMarkdown, figureTable, fmt, machine, writeResultFiles, type Figure } from './report.ts';

const config = () => ({
  marketplaces: envInt('BENCH_RETENTION_MARKETPLACES', 100, 1),
  snapshots: envInt('BENCH_RETENTION_SNAPSHOTS', 100, 3),
  purge: envInt('BENCH_RETENTION_PURGE', 10, 0),
  eligible: envInt('BENCH_RETENTION_ELIGIBLE', 2, 0),
  parked: envInt('BENCH_RETENTION_PARKED', 10, 0),
  fileKb: envInt('BENCH_RETENTION_FILE_KB', 8, 1),
});
type Config = ReturnType<typeof config>;

const day = 86_400_000;
const ago = (ms: number) => new Date(Date.now() - ms).toISOString();
const round = (n: number, digits = 2) => Math.round(n * 10 ** digits) / 10 ** digits;
const identity = {
  GIT_AUTHOR_NAME: 'b',
  GIT_AUTHOR_EMAIL: 'b@x',
  GIT_COMMITTER_NAME: 'b',
  GIT_COMMITTER_EMAIL: 'b@x',
};
const git = (args: string[], input?: string | Buffer) =>
  execFileSync('git', args, { input, encoding: 'utf8', env: { ...process.env, ...identity }, maxBuffer: 1 << 28 });

/**
 * One marketplace's quarantine: a base commit and `count` children of it, each with a file of its own, pinned
 * as refs/quarantine/<sha> like ingestion pins them. Answers the snapshot commits, oldest first.
 */
function quarantine(repo: string, count: number, fileKb: number): string[] {
  mkdirSync(repo, { recursive: true });
  git(['init', '--bare', '--quiet', '--initial-branch=main', repo]);
  git(['-C', repo, 'config', 'core.logAllRefUpdates', 'false']);
  git(['-C', repo, 'config', 'gc.auto', '0']);
  const chunks: Buffer[] = [];
  const put = (text: string | Buffer) => chunks.push(Buffer.isBuffer(text) ? text : Buffer.from(text));
  const data = (content: Buffer) => {
    put(`data ${content.length}\n`);
    put(content);
    put('\n');
  };
  const shared = ['README.md', 'plugins/alpha/SKILL.md', 'plugins/beta/SKILL.md'];
  shared.forEach((_, i) => {
    put(`blob\nmark :${i + 1}\n`);
    data(Buffer.from(randomBytes(16 * 1024).toString('base64')));
  });
  put(`commit refs/bench/base\nmark :10\ncommitter b <b@x> 1700000000 +0000\n`);
  data(Buffer.from('base'));
  shared.forEach((path, i) => put(`M 100644 :${i + 1} ${path}\n`));
  put('\n');
  for (let k = 0; k < count; k++) {
    put(`blob\nmark :${100 + 2 * k}\n`);
    data(Buffer.from(randomBytes(fileKb * 768).toString('base64')));
    put(`commit refs/bench/s${k}\nmark :${101 + 2 * k}\ncommitter b <b@x> ${1700000000 + k} +0000\n`);
    data(Buffer.from(`snapshot ${k}`));
    put(`from :10\nM 100644 :${100 + 2 * k} notes/${k}.md\n\n`);
  }
  const scratch = mkdtempSync(join(tmpdir(), 'bench-marks-'));
  const marks = join(scratch, 'marks');
  git(['-C', repo, 'fast-import', '--quiet', `--export-marks=${marks}`], Buffer.concat(chunks));
  const byMark = new Map(
    readFileSync(marks, 'utf8')
      .trim()
      .split('\n')
      .map((line) => line.split(' ') as [string, string]),
  );
  rmSync(scratch, { recursive: true, force: true });
  const commits = Array.from({ length: count }, (_, k) => byMark.get(`:${101 + 2 * k}`)!);
  const refs = git(['-C', repo, 'for-each-ref', '--format=%(refname)', 'refs/bench/']).trim().split('\n');
  git(
    ['-C', repo, 'update-ref', '--stdin'],
    [...commits.map((sha) => `create refs/quarantine/${sha} ${sha}`), ...refs.map((ref) => `delete ${ref}`), ''].join(
      '\n',
    ),
  );
  return commits;
}

/** One marketplace's history, as its stream holds it: registered, every capture, the approval, the deletions. */
function history(m: number, commits: readonly string[], cfg: Config, firstId: number): NewEvent[] {
  const name = `team-skills-${m}`;
  const home = { marketplaceId: m, marketplace: name };
  const meta = (at: string, principal = 'root') => ({
    principal,
    actorType: principal === 'root' ? ('human' as const) : ('system' as const),
    correlationId: randomUUID(),
    at,
  });
  const registeredAt = ago(400 * day);
  const events: NewEvent[] = [
    {
      type: 'marketplace-registered',
      data: {
        marketplaceId: m,
        name,
        origin: 'upstream',
        url: `https://git.example.com/${name}.git`,
        pushPolicy: null,
        registeredAt,
        registeredBy: 'root',
      },
      metadata: meta(registeredAt),
    },
  ];
  const last = commits.length - 1;
  const oldHeld = cfg.purge + cfg.eligible + cfg.parked;
  commits.forEach((sha, k) => {
    const old = k < cfg.purge ? 120 * day : k < oldHeld ? 100 * day : k === last ? day : (k % 20) * day;
    const capturedAt = ago(old + 1000);
    const snapshotId = firstId + k;
    events.push({
      type: 'snapshot-captured',
      data: {
        ...home,
        snapshotId,
        sha,
        upstreamSha: sha,
        state: 'held',
        violation: null,
        capturedAt,
        ingestedBy: 'root',
        trigger: 'on-demand',
        committedAt: capturedAt,
        description: null,
        unresolved: [],
        leftOut: [],
      },
      metadata: meta(capturedAt),
    });
    if (k === last) {
      const at = ago(day);
      const data = { ...home, snapshotId, sha, approvedAt: at, approvedBy: 'root', overrideReason: null };
      events.push({ type: 'snapshot-approved', data, metadata: meta(at) });
    }
  });
  for (let k = 0; k < cfg.purge; k++) {
    const deletedAt = ago(20 * day);
    events.push({
      type: 'snapshot-soft-deleted',
      data: {
        ...home,
        snapshotId: firstId + k,
        sha: commits[k]!,
        reason: 'held-too-long',
        deletedAt,
        deletedBy: 'retention-policy',
        purgeAfter: ago(6 * day),
      },
      metadata: meta(deletedAt, 'retention-policy'),
    });
  }
  for (const { snapshotId, sha } of parked(m, commits, cfg, firstId)) {
    const deletedAt = ago(10 * day);
    events.push({
      type: 'snapshot-soft-deleted',
      data: { ...home, snapshotId, sha, reason: 'manual', deletedAt, deletedBy: 'root', purgeAfter: ago(-20 * day) },
      metadata: meta(deletedAt),
    });
  }
  return events;
}

/** The snapshots a marketplace holds back (held, old, deleted by hand) until the batch pass. */
const parked = (m: number, commits: readonly string[], cfg: Config, firstId = (m - 1) * cfg.snapshots + 1) =>
  Array.from({ length: cfg.parked }, (_, i) => {
    const k = cfg.purge + cfg.eligible + i;
    return { snapshotId: firstId + k, sha: commits[k]! };
  });

/** Restore every parked snapshot, as POST /api/v1/snapshots/{id}/restore records it: one append per marketplace. */
async function restoreParked(pool: DatabasePool, listener: Listener, shas: ReadonlyMap<number, string[]>, cfg: Config) {
  const store = await PostgresEventStore.open(pool, { listener });
  const restoredAt = new Date().toISOString();
  const metadata = { principal: 'root', actorType: 'human' as const, correlationId: randomUUID(), at: restoredAt };
  for (const [m, commits] of shas) {
    const home = { marketplaceId: m, marketplace: `team-skills-${m}` };
    const events = parked(m, commits, cfg).map(({ snapshotId, sha }) => ({
      type: 'snapshot-restored',
      data: { ...home, snapshotId, sha, restoredAt, restoredBy: 'root' },
      metadata,
    }));
    if (events.length > 0) await store.append(streams.marketplace(m), events, 'any');
  }
}

async function buildEstate(pool: DatabasePool, listener: Listener, dataDir: string, cfg: Config) {
  const store = await PostgresEventStore.open(pool, { listener });
  const started = performance.now();
  let events = 0;
  const shas = new Map<number, string[]>();
  for (let m = 1; m <= cfg.marketplaces; m++) {
    const commits = quarantine(join(dataDir, 'git', 'quarantine', `${m}.git`), cfg.snapshots, cfg.fileKb);
    shas.set(m, commits);
    const name = `team-skills-${m}`;
    const reserved = {
      principal: 'root',
      actorType: 'human' as const,
      correlationId: randomUUID(),
      at: ago(400 * day),
    };
    await store.append(
      streams.marketplaceName(name),
      [{ type: 'marketplace-name-reserved', data: { name, marketplaceId: m }, metadata: reserved }],
      'no-stream',
    );
    const stream = history(m, commits, cfg, (m - 1) * cfg.snapshots + 1);
    await store.append(streams.marketplace(m), stream, 'no-stream');
    events += stream.length + 1;
    if (m % 20 === 0) log(`retention: ${m}/${cfg.marketplaces} marketplaces built`);
  }
  return { events, buildMs: performance.now() - started, shas };
}

const du = (path: string) => Number(execFileSync('du', ['-sb', path], { encoding: 'utf8' }).split('\t')[0]);

/** Every quarantine repository packed (all reachable), so `du` compares like with like. */
function packAll(dataDir: string, marketplaces: number) {
  for (let m = 1; m <= marketplaces; m++)
    git(['-C', join(dataDir, 'git', 'quarantine', `${m}.git`), 'gc', '--quiet', '--prune=now']);
}

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
