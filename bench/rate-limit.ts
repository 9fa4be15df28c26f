// Rate limiting's cost (fetches per second with rate limiting on vs off, target ≥ 0.95×):
// BENCH_RATE_LIMIT_CLIENTS clones of one served marketplace (default 8), each with its own personal access
// token, run no-op `git fetch` (protocol v2: info/refs + ls-refs, two requests) in a loop for
// BENCH_RATE_LIMIT_SECONDS (default 10) per round, alternating a gateway with gateway.rate-limit.enabled false
// and one with it true (ABBA order), BENCH_RATE_LIMIT_ROUNDS times each (default 4), on one database and data directory.
// With limiting on, every request is counted against its address and its token (the per-credential
// budget at its default); the per-address budget is raised because every client here shares 127.0.0.1,
// so the figure is the cost of counting, not of refusing. A refused fetch would count as a failure.
// Writes bench/results/rate-limit.json and .md.
import { chmodSync, cpSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { devSession, startBenchGateway, type BenchGateway } from './bench-gateway.ts';
import { openBenchDatabase, type BenchDatabase } from './database.ts';
import { envInt, log, withInterruptCleanup } from './env.ts';
import { buildMarketplaceRepo, gitClient, gitIn, startGitHttpServer, type GitHttpServer } from './git-repos.ts';
import { figure, figureMarkdown, figureTable, fmt, machine, median, writeResultFiles } from './report.ts';

const config = () => ({
  clients: envInt('BENCH_RATE_LIMIT_CLIENTS', 8, 1),
  seconds: envInt('BENCH_RATE_LIMIT_SECONDS', 10, 1),
  rounds: envInt('BENCH_RATE_LIMIT_ROUNDS', 4, 1),
});
const goal = { atLeast: 0.95, unit: '×' } as const;
const marketplace = 'bench-limits';

type Round = Readonly<{ limiting: boolean; fetches: number; failures: number; rate: number; lastError: string }>;

async function fetchLoop(clients: ReadonlyArray<() => Promise<number>>, seconds: number, limiting: boolean) {
  let fetches = 0;
  let failures = 0;
  let lastError = '';
  const started = performance.now();
  const deadline = started + seconds * 1000;
  await Promise.all(
    clients.map(async (fetchOnce) => {
      while (performance.now() < deadline) {
        try {
          await fetchOnce();
          fetches++;
        } catch (error) {
          failures++;
          lastError = error instanceof Error ? error.message : String(error);
        }
      }
    }),
  );
  const rate = fetches / ((performance.now() - started) / 1000);
  return { limiting, fetches, failures, rate, lastError } satisfies Round;
}

export async function rateLimitBenchmark(): Promise<void> {
  const cfg = config();
  const root = mkdtempSync(join(tmpdir(), 'gateway-bench-rate-limit-'));
  chmodSync(root, 0o755);
  const home = join(root, 'home');
  const gitRoot = join(root, 'served');
  const dataDir = join(root, 'gateway-data');
  for (const dir of [home, gitRoot, dataDir, join(root, 'fetchers')]) mkdirSync(dir, { recursive: true });
  let database: BenchDatabase | null = null;
  let server: GitHttpServer | null = null;
  let gateway: BenchGateway | null = null;
  const cleanup = async () => {
    await gateway?.close().catch(() => {});
    await server?.close().catch(() => {});
    await database?.close().catch(() => {});
    rmSync(root, { recursive: true, force: true });
  };
  await withInterruptCleanup(cleanup, async () => {
    await buildMarketplaceRepo(gitRoot, 'upstream', { plugins: 20, filesPerPlugin: 5, commits: 3, seed: 7 }, home);
    database = await openBenchDatabase(log);
    server = await startGitHttpServer(gitRoot);
    const start = async (limiting: boolean) =>
      startBenchGateway({
        databaseUrl: database!.url,
        dataDir,
        log,
        env: {
          GATEWAY_LOG_LEVEL: 'warn',
          GATEWAY_RATE_LIMIT_ENABLED: String(limiting),
          GATEWAY_RATE_LIMIT_FACADE_PER_ADDRESS: '1000000000',
        },
      });

    gateway = await start(false);
    const api = devSession(gateway.url, 'root');
    const upstream = `${server.baseUrl}/upstream.git`;
    await api.expect('register', 201, api.post('/api/v1/marketplaces', { name: marketplace, url: upstream }));
    const snapshot = await api.expect('ingest', 201, api.post(`/api/v1/marketplaces/${marketplace}/ingest`));
    await api.expect('approve', 200, api.post(`/api/v1/snapshots/${String(snapshot.body.id)}/approve`));
    const tokens: string[] = [];
    for (let i = 0; i < cfg.clients; i++)
      tokens.push((await api.expect('token', 201, api.post('/api/v1/tokens', { name: `c${i}` }))).body.token as string);
    const dirs = tokens.map((_, i) => join(root, 'fetchers', `f${i}`));
    await gitClient(home, tokens[0]!).clone(`${gateway.url}/git/${marketplace}.git`, dirs[0]!);
    for (const dir of dirs.slice(1)) cpSync(dirs[0]!, dir, { recursive: true });
    const clients = tokens.map((token, i) => () => gitClient(home, token).fetch(dirs[i]!));

    const rounds: Round[] = [];
    for (let round = 0; round < cfg.rounds; round++) {
      // ABBA: the side measured first alternates, so that a drift in machine load favours neither.
      for (const limiting of round % 2 === 0 ? [false, true] : [true, false]) {
        if (round > 0 || limiting) {
          await gateway.close();
          gateway = await start(limiting);
        }
        for (const dir of dirs)
          await gitIn(dir, home, 'remote', 'set-url', 'origin', `${gateway.url}/git/${marketplace}.git`);
        const result = await fetchLoop(clients, cfg.seconds, limiting);
        rounds.push(result);
        log(
          `rate-limit: round ${round + 1}, limiting ${limiting ? 'on ' : 'off'}: ${result.fetches} fetches, ${fmt(result.rate, 1)}/s` +
            (result.failures ? `, ${result.failures} failed (${result.lastError.slice(0, 200)})` : ''),
        );
      }
    }
    report(cfg, rounds);
  });
  await cleanup();
}

function report(cfg: ReturnType<typeof config>, rounds: readonly Round[]): void {
  const on = median(rounds.filter((r) => r.limiting).map((r) => r.rate));
  const off = median(rounds.filter((r) => !r.limiting).map((r) => r.rate));
  const failures = rounds.reduce((sum, r) => sum + r.failures, 0);
  const how = `${cfg.clients} clients, own token each, no-op git fetch (v2), ${cfg.rounds}×${cfg.seconds} s per side, median`;
  const figures = [
    figure('fetch-rate-off', 'no-op fetches per second, rate limiting off', off, 'fetches/s', undefined, how),
    figure('fetch-rate-on', 'no-op fetches per second, rate limiting on', on, 'fetches/s', undefined, how),
    figure('ratio', 'on / off', off === 0 ? 0 : on / off, '×', goal),
    figure('failures', 'fetches failed (a 429 would be one)', failures, 'fetches'),
  ];
  log(`rate-limit:\n${figureTable(figures)}`);
  const md = [
    '# Rate limiting on vs off (bench/rate-limit.ts)',
    '',
    `${how}. Limiting on: per-credential budget at its default, per-address budget raised (every client`,
    'shares 127.0.0.1 here), so every request is counted twice and none is refused: the cost of counting.',
    '',
    figureMarkdown(figures),
    '',
    '| round | limiting | fetches | fetches/s | failed |',
    '| ---: | --- | ---: | ---: | ---: |',
    ...rounds.map(
      (r, i) =>
        `| ${Math.floor(i / 2) + 1} | ${r.limiting ? 'on' : 'off'} | ${r.fetches} | ${fmt(r.rate, 1)} | ${r.failures} |`,
    ),
    '',
    `Machine: ${JSON.stringify(machine())}`,
    '',
  ].join('\n');
  writeResultFiles('rate-limit', { config: cfg, machine: machine(), figures, rounds }, md);
}
