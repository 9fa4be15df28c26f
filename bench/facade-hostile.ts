// The git facade under hostile upload-pack requests: BENCH_HOSTILE_ATTACKERS clients
// (default 4) each send decompression bombs back to back for BENCH_HOSTILE_SECONDS (default 10) with a
// valid token: 60 MiB of flush packets in ~60 KiB of gzip (v2, v2 after a fetch, v0), and a well-formed
// ls-refs inflating past the 8 MiB limit. Meanwhile one prober asks /actuator/health every
// BENCH_HOSTILE_PROBE_MS (default 20 ms). Measured: the gateway process's RSS (sampled from /proc every
// 5 ms) above its idle RSS, and the health latency p99 during the attack, against the same prober
// without the attack. Targets: ≤ 150 MB above idle, p99 ≤ 100 ms. Writes bench/results/facade-hostile.*.
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { devSession, startBenchGateway, type BenchGateway } from './bench-gateway.ts';
import { openBenchDatabase, type BenchDatabase } from './database.ts';
import { envInt, log, sleep, withInterruptCleanup } from './env.ts';
import { buildMarketplaceRepo, startGitHttpServer, type GitHttpServer } from './git-repos.ts';
import { encodePktLine, flushPkt } from '../src/adapters/git/pkt-line.ts';
import { figure, figureMarkdown, figureTable, fmt, latencies, machine, writeResultFiles } from './report.ts';

const config = () => ({
  attackers: envInt('BENCH_HOSTILE_ATTACKERS', 4, 1),
  seconds: envInt('BENCH_HOSTILE_SECONDS', 10, 1),
  probeMs: envInt('BENCH_HOSTILE_PROBE_MS', 20, 1),
});
const goals = {
  rss: { atMost: 150, unit: 'MB above idle' },
  healthP99: { atMost: 100, unit: 'ms' },
} as const;
const mb = 1024 * 1024;
const round = (n: number, digits = 1) => Math.round(n * 10 ** digits) / 10 ** digits;

/** The resident set of a process, from /proc (Linux), in bytes. */
const rssOf = (pid: number): number =>
  Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'latin1'))?.[1] ?? 0) * 1024;

/** The bombs, each a gzip body and the headers it is sent with. */
function bombs(tip: string) {
  const flushes = Buffer.alloc(60 * mb, 0x30);
  const v2 = { 'git-protocol': 'version=2' };
  const option = encodePktLine(`server-option=${'x'.repeat(65_000)}\n`);
  const fetch = [encodePktLine('command=fetch'), Buffer.from('0001'), encodePktLine(`want ${tip}\n`)];
  return [
    { name: 'v2 flushes', body: gzipSync(flushes, { level: 9 }), headers: v2 },
    { name: 'v2 fetch then flushes', body: gzipSync(Buffer.concat([...fetch, flushes]), { level: 9 }), headers: v2 },
    { name: 'v0 flushes', body: gzipSync(flushes, { level: 9 }), headers: {} },
    {
      name: 'ls-refs past 8 MiB',
      body: gzipSync(Buffer.concat([encodePktLine('command=ls-refs\n'), ...Array(140).fill(option), flushPkt])),
      headers: v2,
    },
  ];
}

/** Health latencies while `busy` runs, and the gateway's peak RSS over the same time. */
async function probe(url: string, pid: number, probeMs: number, busy: () => Promise<void>) {
  const samples: number[] = [];
  const statuses: Record<string, number> = {};
  let peak = rssOf(pid);
  const sampler = setInterval(() => {
    peak = Math.max(peak, rssOf(pid));
  }, 5);
  let running = true;
  const prober = (async () => {
    while (running) {
      const started = performance.now();
      const response = await fetch(`${url}/actuator/health`);
      await response.arrayBuffer();
      samples.push(performance.now() - started);
      statuses[response.status] = (statuses[response.status] ?? 0) + 1;
      await sleep(probeMs);
    }
  })();
  await busy();
  running = false;
  await prober;
  clearInterval(sampler);
  return { health: latencies(Float64Array.from(samples)), probes: samples.length, statuses, peak };
}

async function attack(url: string, token: string, tip: string, cfg: ReturnType<typeof config>) {
  const authorization = `Basic ${Buffer.from(`bench:${token}`).toString('base64')}`;
  const all = bombs(tip);
  const answers: Record<string, number> = {};
  const until = performance.now() + cfg.seconds * 1000;
  const attacker = async (index: number) => {
    for (let n = index; performance.now() < until; n++) {
      const bomb = all[n % all.length]!;
      const response = await fetch(`${url}/git/bench-hostile/git-upload-pack`, {
        method: 'POST',
        body: bomb.body,
        headers: {
          authorization,
          'content-type': 'application/x-git-upload-pack-request',
          'content-encoding': 'gzip',
          ...bomb.headers,
        },
      }).catch(() => null);
      await response?.arrayBuffer().catch(() => null);
      const key = `${bomb.name}: ${response?.status ?? 'no answer'}`;
      answers[key] = (answers[key] ?? 0) + 1;
    }
  };
  await Promise.all(Array.from({ length: cfg.attackers }, (_, i) => attacker(i)));
  return { answers, bombBytes: Object.fromEntries(all.map((b) => [b.name, b.body.length])) };
}

export async function facadeHostileBenchmark(): Promise<void> {
  const cfg = config();
  log(`facade-hostile: ${cfg.attackers} attackers for ${cfg.seconds} s, health probed every ${cfg.probeMs} ms`);
  const root = mkdtempSync(join(tmpdir(), 'gateway-bench-hostile-'));
  chmodSync(root, 0o755);
  const [home, gitRoot, dataDir] = ['home', 'served', 'gateway-data'].map((dir) => join(root, dir)) as [
    string,
    string,
    string,
  ];
  for (const dir of [home, gitRoot, dataDir]) mkdirSync(dir, { recursive: true });
  let database: BenchDatabase | null = null;
  let gateway: BenchGateway | null = null;
  let server: GitHttpServer | null = null;
  const cleanup = async () => {
    await gateway?.close().catch(() => {});
    await server?.close().catch(() => {});
    await database?.close().catch(() => {});
    rmSync(root, { recursive: true, force: true });
  };
  const run = async () => {
    const repo = await buildMarketplaceRepo(
      gitRoot,
      'upstream',
      { plugins: 4, filesPerPlugin: 8, commits: 1, seed: 7 },
      home,
    );
    database = await openBenchDatabase(log);
    server = await startGitHttpServer(gitRoot);
    gateway = await startBenchGateway({ databaseUrl: database.url, dataDir, log });
    const gw: BenchGateway = gateway;
    const api = devSession(gw.url, 'root');
    const url = `${server.baseUrl}/upstream.git`;
    await api.expect('register', 201, api.post('/api/v1/marketplaces', { name: 'bench-hostile', url }));
    const snapshot = await api.expect('ingest', 201, api.post('/api/v1/marketplaces/bench-hostile/ingest'));
    await api.expect('approve', 200, api.post(`/api/v1/snapshots/${String(snapshot.body.id)}/approve`));
    const token = (await api.expect('token', 201, api.post('/api/v1/tokens', { name: 'bench' }))).body.token as string;

    await sleep(1000);
    const idle = await probe(gw.url, gw.pid, cfg.probeMs, () => sleep(Math.min(5, cfg.seconds) * 1000));
    const idleRss = rssOf(gw.pid);
    await gw.reset();
    const outcome: { attack: Awaited<ReturnType<typeof attack>> | null } = { attack: null };
    const during = await probe(gw.url, gw.pid, cfg.probeMs, async () => {
      outcome.attack = await attack(gw.url, token, repo.tip, cfg);
    });
    const answers = JSON.stringify(outcome.attack?.answers ?? {});
    // The gateway's own event-loop delay tells a blocked loop from a machine short of CPU.
    const { eventLoop } = await gw.stats();
    const rssAbove = (during.peak - idleRss) / mb;
    log(
      `facade-hostile: peak RSS ${fmt(during.peak / mb)} MB (idle ${fmt(idleRss / mb)} MB, +${fmt(rssAbove, 1)} MB); ` +
        `health p99 ${fmt(during.health.p99, 1)} ms during the attack (${fmt(idle.health.p99, 1)} ms idle), ` +
        `max ${fmt(during.health.max, 1)} ms; event-loop delay p99 ${fmt(eventLoop.delayP99Ms, 1)} ms, ` +
        `max ${fmt(eventLoop.delayMaxMs, 1)} ms; answers ${answers}`,
    );
    const figures = [
      figure('rss-above-idle', 'gateway peak RSS above idle, under the attack', round(rssAbove), 'MB', goals.rss),
      figure(
        'health-p99',
        '/actuator/health latency p99 during the attack',
        round(during.health.p99),
        'ms',
        goals.healthP99,
        `p50 ${round(during.health.p50)} ms, max ${round(during.health.max)} ms, ${during.probes} probes`,
      ),
      figure(
        'health-p99-idle',
        '/actuator/health latency p99 without the attack (reference)',
        round(idle.health.p99),
        'ms',
      ),
    ];
    process.stderr.write(`${figureTable(figures)}\n`);
    const report = {
      machine: machine(),
      config: cfg,
      figures,
      idle,
      during,
      idleRss,
      eventLoop,
      attack: outcome.attack,
    };
    const md = [
      '# Facade under decompression bombs',
      '',
      `${cfg.attackers} attackers, ${cfg.seconds} s, health probed every ${cfg.probeMs} ms.`,
      '',
      figureMarkdown(figures),
      '',
      `Answers: ${answers}`,
      '',
    ].join('\n');
    const files = writeResultFiles('facade-hostile', report, md);
    log(`facade-hostile: wrote ${files.json} and ${files.md}`);
  };
  await withInterruptCleanup(cleanup, async () => {
    try {
      await run();
    } finally {
      await cleanup();
    }
  });
}
