// The portal, measured in a real Chromium (Debian's, through playwright-core) on loopback:
//
//  1. JavaScript shipped: every script of a fresh `vite build`, gzip -9 as a server would send it; the
//     total and what the first screen loads (target: total <= 300 KB gzipped).
//  2. The marketplace list with BENCH_PORTAL_MARKETPLACES (500) registered marketplaces, and 3. the ledger
//     browser at BENCH_PORTAL_LEDGER_ENTRIES (1,000,000) entries: from navigation start until the first row of
//     the table is on screen, BENCH_PORTAL_RUNS times each, every run in a fresh browser profile (nothing
//     cached: the scripts, the session's first API answers and the page all count). Target <= 1 s.
//
// The gateway runs in its own process (bench/gateway-process.ts) on the development hatch; the browser sends
// X-Dev-User with every request, which is how the hatch signs a caller in. Writes bench/results/portal.{json,md}.
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import pg from 'pg';
import { chromium, type Browser, type Page } from 'playwright-core';
import { chromiumPath } from '../test/support/browser.ts';
import { fillByInsert } from './audit.ts';
import { devSession, startBenchGateway, type BenchGateway } from './bench-gateway.ts';
import { openBenchDatabase, type BenchDatabase } from './database.ts';
import { envInt, log, withInterruptCleanup } from './env.ts';
import { figure, figureMarkdown, figureTable, fmt, machine, median, writeResultFiles, type Figure } from './report.ts';

const config = () => ({
  marketplaces: envInt('BENCH_PORTAL_MARKETPLACES', 500, 1),
  ledgerEntries: envInt('BENCH_PORTAL_LEDGER_ENTRIES', 1_000_000, 1000),
  runs: envInt('BENCH_PORTAL_RUNS', 10, 1),
});

const goals = {
  shippedKb: { atMost: 300, unit: 'KB gz' },
  firstScreenMs: { atMost: 1000, unit: 'ms' },
} as const;

/** A fresh production build, then the gzip size of each script. */
function shippedScripts(): { total: number; entry: number; files: Array<{ file: string; gz: number }> } {
  execFileSync(process.execPath, ['node_modules/vite/bin/vite.js', 'build', '--logLevel', 'warn'], {
    cwd: 'portal',
    stdio: 'inherit',
  });
  const dir = 'dist/portal/assets';
  const files = readdirSync(dir)
    .filter((file) => file.endsWith('.js'))
    .map((file) => ({ file, gz: gzipSync(readFileSync(join(dir, file)), { level: 9 }).length }));
  const index = readFileSync('dist/portal/index.html', 'utf8');
  const entryFile = /src="\/assets\/([^"]+\.js)"/.exec(index)?.[1];
  return {
    total: files.reduce((sum, f) => sum + f.gz, 0),
    entry: files.find((f) => f.file === entryFile)?.gz ?? 0,
    files,
  };
}

/** Navigation start → `ready` visible, in a fresh profile each run; the milliseconds of every run. */
async function firstScreen(browser: Browser, url: string, ready: (page: Page) => Promise<void>, runs: number) {
  const times: number[] = [];
  for (let i = 0; i <= runs; i++) {
    const context = await browser.newContext({ extraHTTPHeaders: { 'x-dev-user': 'root' } });
    const page = await context.newPage();
    const started = performance.now();
    await page.goto(url, { waitUntil: 'commit' });
    await ready(page);
    const ms = performance.now() - started;
    if (i > 0) times.push(ms); // the first run warms the gateway's own caches and Chromium's start
    await context.close();
  }
  return times;
}

export async function portalBenchmark(): Promise<void> {
  const cfg = config();
  const executablePath = chromiumPath();
  if (!executablePath) throw new Error('portal: Chromium is missing (apt-get install chromium)');
  const root = mkdtempSync(join(tmpdir(), 'gateway-bench-portal-'));
  chmodSync(root, 0o755);
  const dataDir = join(root, 'gateway-data');
  mkdirSync(dataDir);
  let database: BenchDatabase | null = null;
  let gateway: BenchGateway | null = null;
  let client: pg.Client | null = null;
  let browser: Browser | null = null;
  const cleanup = async () => {
    await browser?.close().catch(() => {});
    await client?.end().catch(() => {});
    await gateway?.close().catch(() => {});
    await database?.close().catch(() => {});
    rmSync(root, { recursive: true, force: true });
  };
  await withInterruptCleanup(cleanup, async () => {
    try {
      const shipped = shippedScripts();
      log(`portal: ${shipped.files.length} scripts, ${fmt(shipped.total / 1024, 1)} KB gzipped in all`);
      database = await openBenchDatabase(log);
      gateway = await startBenchGateway({
        databaseUrl: database.url,
        dataDir,
        log,
        env: { GATEWAY_LOG_LEVEL: 'warn' },
      });
      // The ledger first: the projection numbers the registrations' entries after the highest id there.
      client = new pg.Client({ connectionString: database.url });
      await client.connect();
      await fillByInsert(client, { marketplaces: 50, entries: cfg.ledgerEntries });
      await client.query('analyze ledger_entries');
      log(`portal: ${fmt(cfg.ledgerEntries)} ledger entries written`);
      const api = devSession(gateway.url, 'root');
      for (let i = 0; i < cfg.marketplaces; i++) {
        const name = `team-${String(i).padStart(4, '0')}-skills`;
        await api.expect(`register ${name}`, 201, api.post('/api/v1/marketplaces', { name, origin: 'hosted' }));
      }
      log(`portal: ${cfg.marketplaces} marketplaces registered`);
      browser = await chromium.launch({ executablePath, headless: true, args: ['--no-sandbox'] });
      const firstRow = async (page: Page) => {
        await page.locator('main table tbody tr').first().waitFor();
      };
      const list = await firstScreen(browser, `${gateway.url}/marketplaces`, firstRow, cfg.runs);
      const ledger = await firstScreen(browser, `${gateway.url}/audit`, firstRow, cfg.runs);
      const p = (times: number[], q: number) => [...times].sort((a, b) => a - b)[Math.ceil(q * times.length) - 1]!;
      const figures: Figure[] = [
        figure('shipped', 'JavaScript shipped (all scripts, gzip -9)', shipped.total / 1024, 'KB gz', goals.shippedKb),
        figure('entry', 'JavaScript of the entry script (gzip -9)', shipped.entry / 1024, 'KB gz'),
        figure(
          'list-median',
          `marketplace list, ${cfg.marketplaces} marketplaces: first screen, median`,
          median(list),
          'ms',
        ),
        figure(
          'list-max',
          `marketplace list: first screen, slowest of ${cfg.runs}`,
          p(list, 1),
          'ms',
          goals.firstScreenMs,
        ),
        figure(
          'ledger-median',
          `ledger browser, ${fmt(cfg.ledgerEntries)} entries: first screen, median`,
          median(ledger),
          'ms',
        ),
        figure(
          'ledger-max',
          `ledger browser: first screen, slowest of ${cfg.runs}`,
          p(ledger, 1),
          'ms',
          goals.firstScreenMs,
        ),
      ];
      process.stderr.write(`${figureTable(figures)}\n`);
      const report = {
        machine: machine(),
        config: cfg,
        chromium: browser.version(),
        figures,
        scripts: shipped.files,
        runsMs: { list, ledger },
      };
      const md = [
        '# Portal benchmark',
        '',
        `Chromium ${browser.version()}, fresh profile per run, loopback; ${cfg.runs} runs after one warm-up.`,
        '',
        figureMarkdown(figures),
        '',
      ].join('\n');
      const files = writeResultFiles('portal', report, md);
      log(`portal: wrote ${files.json} and ${files.md}`);
    } finally {
      await cleanup();
    }
  });
}
