// The object-store backend, with the real git client:
//
//  1. clone: a generated marketplace (BENCH_OS_PLUGINS × BENCH_OS_FILES_PER_PLUGIN files in
//     BENCH_OS_COMMITS commits) registered, ingested and approved on a filesystem-backend gateway (its
//     own database) and on two object-store replicas (one database, one s3rver bucket); then cloned
//     BENCH_OS_CLONES times from each, interleaved: the replica that published (A) and the second one
//     (B, which started with an empty cache and pulled from the bucket) against the filesystem gateway.
//  2. propagation: BENCH_OS_APPROVALS times, a new upstream commit is ingested and approved through A,
//     and the time until B advertises it is measured (from the approve answer, and from its request).
//
// Writes bench/results/object-store.json and .md. Gateways run in child processes; s3rver in this one.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { startBenchGateway, devSession, type BenchGateway } from './bench-gateway.ts';
import { openBenchDatabase, type BenchDatabase } from './database.ts';
import { benchScratch, envInt, log, sleep } from './env.ts';
import { buildMarketplaceRepo, gitClient, gitIn, startGitHttpServer, type GitHttpServer } from './git-repos.ts';
import { figure, figureMarkdown, figureTable, fmt, machine, median, writeResultFiles } from './report.ts';
import { startS3, type TestS3 } from '../test/support/s3.ts';

const config = () => ({
  plugins: envInt('BENCH_OS_PLUGINS', 40, 1),
  filesPerPlugin: envInt('BENCH_OS_FILES_PER_PLUGIN', 50, 4),
  commits: envInt('BENCH_OS_COMMITS', 5, 1),
  clones: envInt('BENCH_OS_CLONES', 10, 1),
  approvals: envInt('BENCH_OS_APPROVALS', 5, 1),
});

const goals = {
  cloneRatio: { atMost: 1.1, unit: '× filesystem' },
  propagationMs: { atMost: 2000, unit: 'ms' },
} as const;

const marketplace = 'bench-market';
type Side = 'filesystem' | 'object-store A' | 'object-store B';
const sides: readonly Side[] = ['filesystem', 'object-store A', 'object-store B'];

async function setUp(gateway: BenchGateway, upstreamUrl: string, tip: string) {
  const api = devSession(gateway.url, 'root');
  await api.expect('register', 201, api.post('/api/v1/marketplaces', { name: marketplace, url: upstreamUrl }));
  const snapshot = await api.expect('ingest', 201, api.post(`/api/v1/marketplaces/${marketplace}/ingest`));
  if (snapshot.body.sha !== tip) throw new Error(`ingest captured ${JSON.stringify(snapshot.body)}, expected ${tip}`);
  await api.expect('approve', 200, api.post(`/api/v1/snapshots/${snapshot.body.id}/approve`));
  return (await api.expect('token', 201, api.post('/api/v1/tokens', { name: 'bench' }))).body.token as string;
}

/** Whether the gateway's facade advertises `sha` as main (one info/refs request). */
async function advertises(url: string, token: string, sha: string): Promise<boolean> {
  const response = await fetch(`${url}/git/${marketplace}.git/info/refs?service=git-upload-pack`, {
    headers: { authorization: `Basic ${Buffer.from(`bench:${token}`).toString('base64')}` },
  });
  return (await response.text()).includes(`${sha} refs/heads/main`);
}

export async function objectStoreBenchmark(): Promise<void> {
  const cfg = config();
  const scratch = benchScratch('gateway-bench-os-');
  const { root } = scratch;
  const home = join(root, 'home');
  const gitRoot = join(root, 'repos');
  for (const dir of [home, gitRoot]) mkdirSync(dir, { recursive: true });
  const open: { dbs: BenchDatabase[]; gateways: BenchGateway[]; server?: GitHttpServer; s3?: TestS3 } = {
    dbs: [],
    gateways: [],
  };
  await scratch.run(
    async () => {
      const repo = await buildMarketplaceRepo(
        gitRoot,
        'upstream',
        { plugins: cfg.plugins, filesPerPlugin: cfg.filesPerPlugin, commits: cfg.commits, seed: 42 },
        home,
      );
      log(`object-store: ${repo.files} files, pack ${fmt(repo.packBytes / 1024)} KiB`);
      open.server = await startGitHttpServer(gitRoot);
      open.s3 = await startS3(null, 'gateway-bench');
      const upstreamUrl = `${open.server.baseUrl}/upstream.git`;
      const fsDb = await openBenchDatabase(log);
      const osDb = await openBenchDatabase(log);
      open.dbs.push(fsDb, osDb);
      const start = async (name: string, databaseUrl: string, env: Record<string, string> = {}) => {
        const dataDir = join(root, name);
        mkdirSync(dataDir, { recursive: true });
        const gateway = await startBenchGateway({ databaseUrl, dataDir, env, log });
        open.gateways.push(gateway);
        return gateway;
      };
      const fsGateway = await start('fs', fsDb.url);
      const fsToken = await setUp(fsGateway, upstreamUrl, repo.tip);
      const a = await start('a', osDb.url, open.s3.env(join(root, 'a', 'cache')));
      const osToken = await setUp(a, upstreamUrl, repo.tip);
      const bStarted = performance.now();
      const b = await start('b', osDb.url, open.s3.env(join(root, 'b', 'cache')));
      const bStartMs = performance.now() - bStarted;
      if (!(await advertises(b.url, osToken, repo.tip))) throw new Error('replica B does not serve the approved tip');

      const urls: Record<Side, { url: string; token: string }> = {
        filesystem: { url: fsGateway.url, token: fsToken },
        'object-store A': { url: a.url, token: osToken },
        'object-store B': { url: b.url, token: osToken },
      };
      const samples: Record<Side, number[]> = { filesystem: [], 'object-store A': [], 'object-store B': [] };
      let count = 0;
      for (let round = -1; round < cfg.clones; round++)
        for (const side of sides) {
          const { url, token } = urls[side];
          const ms = await gitClient(home, token).clone(
            `${url}/git/${marketplace}.git`,
            join(root, 'clones', `c${count++}`),
          );
          if (round >= 0) samples[side].push(ms); // round -1 warms every side up
        }
      const medians = Object.fromEntries(sides.map((side) => [side, median(samples[side])])) as Record<Side, number>;
      log(`object-store: clone medians ${sides.map((s) => `${s} ${fmt(medians[s])} ms`).join(', ')}`);

      // Propagation: new commits approved through A, watched for on B.
      const work = join(root, 'upstream-work');
      await gitIn(root, home, 'clone', '--quiet', repo.bare, work);
      const api = devSession(a.url, 'root');
      const afterAnswer: number[] = [];
      const afterRequest: number[] = [];
      for (let i = 0; i < cfg.approvals; i++) {
        await gitIn(work, home, 'commit', '--quiet', '--allow-empty', '-m', `bench ${i}`);
        await gitIn(work, home, 'push', '--quiet', 'origin', 'HEAD:refs/heads/main');
        const snapshot = await api.expect('ingest', 201, api.post(`/api/v1/marketplaces/${marketplace}/ingest`));
        const sha = snapshot.body.sha as string;
        const requested = performance.now();
        await api.expect('approve', 200, api.post(`/api/v1/snapshots/${snapshot.body.id}/approve`));
        const answered = performance.now();
        while (!(await advertises(b.url, osToken, sha))) {
          if (performance.now() - answered > 60_000) throw new Error(`replica B never served ${sha}`);
          await sleep(10);
        }
        afterAnswer.push(performance.now() - answered);
        afterRequest.push(performance.now() - requested);
      }
      log(`object-store: propagation medians ${fmt(median(afterAnswer))} ms after the answer`);

      const figures = [
        figure(
          'clone-ratio-b',
          'clone, second replica (cached) / filesystem',
          medians['object-store B'] / medians.filesystem,
          '×',
          goals.cloneRatio,
          `median of ${cfg.clones} clones each`,
        ),
        figure(
          'clone-ratio-a',
          'clone, publishing replica / filesystem',
          medians['object-store A'] / medians.filesystem,
          '×',
          goals.cloneRatio,
        ),
        figure(
          'propagation-max',
          'approval through A served by B (slowest, from the approve request)',
          Math.max(...afterRequest),
          'ms',
          goals.propagationMs,
          `${cfg.approvals} approvals`,
        ),
        figure(
          'propagation-median',
          'approval through A served by B (median, after the approve answer)',
          median(afterAnswer),
          'ms',
        ),
        figure('cold-start', 'replica B start with an empty cache (bucket pulled)', bStartMs, 'ms'),
      ];
      const report = {
        benchmark: 'object-store',
        machine: machine(),
        config: cfg,
        upstream: { files: repo.files, packBytes: repo.packBytes, commits: repo.commits },
        clones: { samples, medians },
        propagation: { afterAnswerMs: afterAnswer, afterRequestMs: afterRequest },
        coldStartMs: bStartMs,
        figures,
      };
      const md = [
        '# Object-store backend',
        '',
        'Generated by `BENCH_ONLY=object-store npm run bench` (bench/object-store.ts): s3rver on loopback, PostgreSQL',
        'notifications between the replicas, the real git client (protocol v2).',
        '',
        figureMarkdown(figures),
        '',
        `Upstream: ${repo.files} files in ${repo.commits} commits, pack ${fmt(repo.packBytes / 1024)} KiB. Clone medians: ${sides.map((s) => `${s} ${fmt(medians[s])} ms`).join(', ')}.`,
        '',
      ].join('\n');
      const files = writeResultFiles('object-store', report, md);
      log(`object-store:\n${figureTable(figures)}\nwritten to ${files.md}`);
    },
    async () => {
      for (const gateway of open.gateways.reverse()) await gateway.close().catch(() => {});
      await open.server?.close().catch(() => {});
      await open.s3?.close().catch(() => {});
      for (const db of open.dbs) await db.close().catch(() => {});
    },
  );
}
