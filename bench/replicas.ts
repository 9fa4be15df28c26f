// Several replicas: time for a replica to serve a new approval made on another replica (target ≤ 2 s),
// leader failover time (target ≤ 10 s).
//
// Two `gateway serve` processes (test/support/replicas.ts) on one database, the git store on a directory
// shared by both (every <data-dir>/git on it). An upstream marketplace behind git http-backend.
//   approval on A → served by B: BENCH_REPLICAS_APPROVALS rounds (default 10) of an upstream commit, an ingest
//     and an approval through A, then B's info/refs polled every 5 ms until it advertises the approved commit
//     as refs/heads/main; timed from A's answer to the approval (and from the request).
//   failover: BENCH_REPLICAS_FAILOVERS rounds (default 3) of kill -9 of the replica whose log says it holds the
//     leader lock, a command (a hosted marketplace registered) sent through the survivor at once, and the
//     marketplaces read model polled every 10 ms until the survivor's projections have applied it; timed from
//     the kill. The killed replica is started again (a follower) before the next round.
// Writes bench/results/replicas.json and .md.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import {
  objectStore,
  sharedDirectory,
  startReplicaSet,
  type Replica,
  type ReplicaSet,
  type ReplicaStorage,
} from '../test/support/replicas.ts';
import { devSession } from './bench-gateway.ts';
import { openBenchDatabase, type BenchDatabase } from './database.ts';
import { benchScratch, envChoice, envInt, log, sleep } from './env.ts';
import { buildMarketplaceRepo, gitIn, startGitHttpServer, type GitHttpServer } from './git-repos.ts';
import { figure, figureMarkdown, figureTable, latencies, machine, writeResultFiles, type Figure } from './report.ts';

const config = () => ({
  approvals: envInt('BENCH_REPLICAS_APPROVALS', 10, 1),
  failovers: envInt('BENCH_REPLICAS_FAILOVERS', 3, 1),
  storage: envChoice('BENCH_REPLICAS_STORAGE', ['shared-directory', 'object-store'], 'shared-directory'),
});
type Config = ReturnType<typeof config>;

const serveGoal = { atMost: 2000, unit: 'ms' } as const;
const failoverGoal = { atMost: 10_000, unit: 'ms' } as const;
const round = (n: number, digits = 1) => Math.round(n * 10 ** digits) / 10 ** digits;

type Upstream = Readonly<{ url: string; commit(round: number): Promise<void> }>;

async function upstreamMarketplace(root: string, server: (root: string) => Promise<GitHttpServer>) {
  const repos = join(root, 'upstream');
  const home = join(root, 'home');
  mkdirSync(repos, { recursive: true });
  mkdirSync(home, { recursive: true });
  const shape = { plugins: 5, filesPerPlugin: 6, commits: 1, seed: 20 };
  await buildMarketplaceRepo(repos, 'acme', shape, home);
  const http = await server(repos);
  const work = join(repos, 'acme-work');
  const upstream: Upstream = {
    url: `${http.baseUrl}/acme.git`,
    async commit(n) {
      writeFileSync(join(work, 'ROUND.md'), `round ${n}\n`);
      await gitIn(work, home, 'add', '-A');
      await gitIn(work, home, 'commit', '--quiet', '-m', `round ${n}`);
      await gitIn(work, home, 'push', '--quiet', join(repos, 'acme.git'), 'HEAD:refs/heads/main');
    },
  };
  return { upstream, http };
}

/** Polls `replica`'s protocol v0 advertisement until refs/heads/main is `sha`. */
async function servedAt(replica: Replica, token: string, sha: string): Promise<{ at: number; polls: number }> {
  const authorization = `Basic ${Buffer.from(`bench:${token}`).toString('base64')}`;
  for (let polls = 1, deadline = Date.now() + 60_000; Date.now() < deadline; polls++) {
    const response = await replica.fetch('/git/acme.git/info/refs?service=git-upload-pack', {
      headers: { authorization },
    });
    const text = await response.text();
    if (response.status === 200 && text.includes(`${sha} refs/heads/main`)) return { at: performance.now(), polls };
    await sleep(5);
  }
  throw new Error(`replica ${replica.name} did not serve ${sha} within 60 s`);
}

async function approvalsServed(set: ReplicaSet, upstream: Upstream, cfg: Config) {
  const [a, b] = set.replicas as [Replica, Replica];
  const onA = devSession(a.url, 'root');
  await onA.expect('register', 201, onA.post('/api/v1/marketplaces', { name: 'acme', url: upstream.url }));
  const onB = devSession(b.url, 'root');
  const token = String((await onB.expect('token', 201, onB.post('/api/v1/tokens', { name: 'b' }))).body.token);
  const fromAnswer: number[] = [];
  const fromRequest: number[] = [];
  const polls: number[] = [];
  for (let n = 0; n < cfg.approvals; n++) {
    if (n > 0) await upstream.commit(n);
    const snapshot = (await onA.expect('ingest', 201, onA.post('/api/v1/marketplaces/acme/ingest'))).body;
    const sent = performance.now();
    await onA.expect('approve', 200, onA.post(`/api/v1/snapshots/${String(snapshot.id)}/approve`));
    const answered = performance.now();
    const served = await servedAt(b, token, String(snapshot.sha));
    fromAnswer.push(served.at - answered);
    fromRequest.push(served.at - sent);
    polls.push(served.polls);
  }
  return { fromAnswer, fromRequest, polls };
}

type Failover = Readonly<{ leader: string; appliedMs: number; lockMs: number; answerMs: number; status: number }>;

async function applied(client: pg.Client, name: string): Promise<number> {
  for (const deadline = Date.now() + 120_000; Date.now() < deadline;) {
    const { rowCount } = await client.query('select 1 from marketplaces where name = $1', [name]);
    if (rowCount) return performance.now();
    await sleep(10);
  }
  throw new Error(`the survivor did not apply ${name} within 120 s`);
}

async function failover(set: ReplicaSet, client: pg.Client, n: number): Promise<Failover> {
  let leader: Replica | null = null;
  for (const deadline = Date.now() + 30_000; !leader && Date.now() < deadline; await sleep(50)) leader = set.leader();
  if (!leader) throw new Error('no replica leads');
  const survivor = set.replicas.find((replica) => replica !== leader)!;
  const api = devSession(survivor.url, 'root');
  await api.get('/actuator/health'); // the XSRF cookie, before the clock starts
  const name = `failover-${n}`;
  const killedAt = performance.now();
  const killedAtWall = Date.now();
  await leader.kill();
  const command = api.post('/api/v1/marketplaces', { name, origin: 'hosted' }).then((answer) => ({
    status: answer.status,
    at: performance.now(),
  }));
  const appliedAt = await applied(client, name);
  const answer = await command;
  const lockMs = survivor.leadingSince === null ? Number.NaN : survivor.leadingSince - killedAtWall;
  log(
    `replicas: failover ${n + 1}: ${leader.name} killed; ${survivor.name} applied the command's event after ` +
      `${Math.round(appliedAt - killedAt)} ms (lock after ${Math.round(lockMs)} ms, answer ${answer.status} after ` +
      `${Math.round(answer.at - killedAt)} ms)`,
  );
  await leader.start(); // back as a follower for the next round
  return {
    leader: leader.name,
    appliedMs: appliedAt - killedAt,
    lockMs,
    answerMs: answer.at - killedAt,
    status: answer.status,
  };
}

export async function replicasBenchmark(): Promise<void> {
  const cfg = config();
  log(`replicas: ${cfg.approvals} approvals on A served by B, ${cfg.failovers} leader failovers`);
  const scratch = benchScratch('gateway-bench-replicas-');
  let database: BenchDatabase | null = null;
  let set: ReplicaSet | null = null;
  let http: GitHttpServer | null = null;
  let client: pg.Client | null = null;
  let closeS3 = async () => {};
  const close = async () => {
    await client?.end().catch(() => {});
    await set?.close().catch(() => {});
    await closeS3().catch(() => {});
    await http?.close().catch(() => {});
    await database?.close().catch(() => {});
  };
  const run = async () => {
    database = await openBenchDatabase(log);
    const made = await upstreamMarketplace(scratch.root, startGitHttpServer);
    http = made.http;
    let storage: ReplicaStorage = sharedDirectory(scratch.root);
    if (cfg.storage === 'object-store') {
      // s3rver on loopback (test/support/s3.ts), loaded only for this variant.
      const { startS3 } = await import('../test/support/s3.ts');
      const s3 = await startS3(null);
      closeS3 = s3.close;
      storage = objectStore({ bucket: s3.bucket, region: 'us-east-1', endpoint: s3.endpoint });
    }
    set = await startReplicaSet({
      databaseUrl: database.url,
      root: scratch.root,
      storage,
      env: {
        GATEWAY_LOG_LEVEL: process.env.BENCH_GATEWAY_LOG_LEVEL ?? 'info',
        GATEWAY_PROJECTIONS_WAIT_TIMEOUT: '120s',
      },
    });
    log(`replicas: ${set.replicas.map((r) => `${r.name} ${r.url} (pid ${r.pid})`).join(', ')}; ${storage.describe}`);
    client = new pg.Client({ connectionString: database.url });
    await client.connect();
    const served = await approvalsServed(set, made.upstream, cfg);
    const failovers: Failover[] = [];
    for (let n = 0; n < cfg.failovers; n++) failovers.push(await failover(set, client, n));
    report(cfg, storage.describe, served, failovers);
  };
  await scratch.run(run, close);
}

function report(
  cfg: Config,
  storage: string,
  served: { fromAnswer: number[]; fromRequest: number[]; polls: number[] },
  failovers: Failover[],
): void {
  const answer = latencies(Float64Array.from(served.fromAnswer));
  const request = latencies(Float64Array.from(served.fromRequest));
  const appliedMs = latencies(Float64Array.from(failovers.map((f) => f.appliedMs)));
  const lockMs = latencies(Float64Array.from(failovers.map((f) => f.lockMs)));
  const answerMs = latencies(Float64Array.from(failovers.map((f) => f.answerMs)));
  const figures: Figure[] = [
    figure(
      'servedOnB',
      'approval answered on A → served by B, max',
      answer.max,
      'ms',
      serveGoal,
      `p50 ${round(answer.p50)} ms over ${cfg.approvals} approvals, B's first request served the commit in ` +
        `${served.polls.filter((p) => p === 1).length} of them; from the approval request: p50 ${round(request.p50)} ms, max ${round(request.max)} ms`,
    ),
    figure(
      'failover',
      'kill -9 of the leader → survivor applied a new event, max',
      appliedMs.max,
      'ms',
      failoverGoal,
      `p50 ${round(appliedMs.p50)} ms over ${cfg.failovers} failovers`,
    ),
    figure('lockTaken', 'kill -9 → survivor logs the leader lock taken, max', lockMs.max, 'ms', undefined),
    figure('commandAnswered', 'kill -9 → command through the survivor answered, max', answerMs.max, 'ms', undefined),
  ];
  process.stdout.write(`\nreplicas\n${figureTable(figures)}\n\n`);
  const data = {
    benchmark: 'replicas',
    date: new Date().toISOString(),
    machine: machine(),
    config: cfg,
    storage,
    figures,
    ms: { servedFromAnswer: served.fromAnswer.map((n) => round(n)), pollsUntilServed: served.polls, failovers },
  };
  const name = cfg.storage === 'object-store' ? 'replicas-object-store' : 'replicas';
  const files = writeResultFiles(name, data, markdown(data, figures));
  log(`wrote ${files.json} and ${files.md}`);
}

function markdown(
  data: {
    date: string;
    machine: ReturnType<typeof machine>;
    config: Config;
    storage: string;
    ms: { failovers: Failover[] };
  },
  figures: Figure[],
): string {
  const m = data.machine;
  const rounds = data.ms.failovers
    .map(
      (f, i) =>
        `| ${i + 1} | ${f.leader} | ${round(f.lockMs, 0)} | ${round(f.appliedMs, 0)} | ${round(f.answerMs, 0)} (${f.status}) |`,
    )
    .join('\n');
  return `# Replicas benchmark

${data.date} · ${m.cpuModel}, ${m.cores} cores, ${m.memoryGiB} GiB · ${m.platform} ${m.release} · Node ${m.node}

${figureMarkdown(figures)}

Two \`gateway serve\` processes on one PostgreSQL database; ${data.storage}.

**Approval on A, served by B**: ${data.config.approvals} rounds of an upstream commit, an ingest and an approval
through A; then B's \`info/refs\` (protocol v0) polled every 5 ms until it advertises the commit as
\`refs/heads/main\`. ${
    data.config.storage === 'shared-directory'
      ? "On a shared directory the approval answers only once the leader's publication projection has converged " +
        "the published repository (read-your-writes), and B's in-memory refs are dropped by the repository's stamp " +
        'file, so B serves the commit on its first request.'
      : "On the object store B serves from its own cache, which it brings up to date when the leader's new " +
        'generation of the repository is announced (a PostgreSQL notification, or the poll as a fallback).'
  }

**Failover**: ${data.config.failovers} rounds of \`kill -9\` of the replica holding the leader lock, a command
(a hosted marketplace registered) sent through the survivor at once, and the \`marketplaces\` read model polled every
10 ms until the survivor's projections have applied it. PostgreSQL ends the killed process's session as soon as its
socket closes, releasing the session-level advisory lock; the survivor tries the lock every 2 s
(\`Leadership\`'s retry interval, src/projections/runner/leader.ts), then starts its duties (read-model preparation,
catch-up, publication reconciliation, the runner), so the failover is bounded by about 2 s plus that start.
A host that vanishes without closing its socket holds the lock until PostgreSQL's TCP keepalive gives up
(docs/operations.md).

| round | killed | lock taken (ms) | event applied (ms) | command answered (ms) |
| ---: | --- | ---: | ---: | ---: |
${rounds}

Produced by \`npm run bench\` (BENCH_ONLY=replicas for this part; BENCH_REPLICAS_STORAGE=${data.config.storage}).
`;
}
