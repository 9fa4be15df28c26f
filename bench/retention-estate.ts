// The estate of the retention benchmark (bench/retention.ts): events appended straight to the store and
// quarantine repositories written with git plumbing, as that file's header describes.
import { execFileSync } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { NewEvent } from '../src/adapters/eventstore/port.ts';
import { PostgresEventStore } from '../src/adapters/eventstore/postgres/postgres-event-store.ts';
import { Listener } from '../src/adapters/postgres/listener.ts';
import type { DatabasePool } from '../src/adapters/postgres/pool.ts';
import { streams } from '../src/domain/kernel/streams.ts';
import { envInt, log } from './env.ts';

export const config = () => ({
  marketplaces: envInt('BENCH_RETENTION_MARKETPLACES', 100, 1),
  snapshots: envInt('BENCH_RETENTION_SNAPSHOTS', 100, 3),
  purge: envInt('BENCH_RETENTION_PURGE', 10, 0),
  eligible: envInt('BENCH_RETENTION_ELIGIBLE', 2, 0),
  parked: envInt('BENCH_RETENTION_PARKED', 10, 0),
  fileKb: envInt('BENCH_RETENTION_FILE_KB', 8, 1),
});
export type Config = ReturnType<typeof config>;

export const day = 86_400_000;
const ago = (ms: number) => new Date(Date.now() - ms).toISOString();
export const round = (n: number, digits = 2) => Math.round(n * 10 ** digits) / 10 ** digits;
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
export async function restoreParked(
  pool: DatabasePool,
  listener: Listener,
  shas: ReadonlyMap<number, string[]>,
  cfg: Config,
) {
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

export async function buildEstate(pool: DatabasePool, listener: Listener, dataDir: string, cfg: Config) {
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

export const du = (path: string) => Number(execFileSync('du', ['-sb', path], { encoding: 'utf8' }).split('\t')[0]);

/** Every quarantine repository packed (all reachable), so `du` compares like with like. */
export function packAll(dataDir: string, marketplaces: number) {
  for (let m = 1; m <= marketplaces; m++)
    git(['-C', join(dataDir, 'git', 'quarantine', `${m}.git`), 'gc', '--quiet', '--prune=now']);
}
