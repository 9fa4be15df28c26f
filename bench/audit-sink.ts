// Audit sink push throughput: a 100,000-entry ledger pushed to a loopback receiver, entries per second
// (target ≥ 20,000/s).
//
// One embedded PostgreSQL; a ledger of BENCH_SINK_ENTRIES entries (default 100,000) written by the bulk insert of
// bench/audit.ts (fillByInsert). For each batch size of BENCH_SINK_BATCH_SIZES (default "500,5000"; 500 is the
// gateway's default gateway.audit-export.batch-size), a gateway in its own process with
// gateway.audit-export.lag 0s and gateway.audit-export.poll-interval and gateway.webhooks.poll-interval both
// BENCH_SINK_POLL_INTERVAL (default 1s: a backlog is pushed on wake-ups, not on the polls, and a shorter poll only
// adds queries); a loopback node:http receiver that parses each batch, counts its entries
// and checks they follow on from the previous batch (the first batch's signature is verified with the
// standardwebhooks package); one sink created through POST /api/v1/audit/sinks. The rate is measured from the first
// batch's arrival (a new sink waits for the push's next pass, up to the poll interval; that wait is reported apart)
// until the receiver holds every entry of the fill. Writes bench/results/audit-sink.json and .md.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { Webhook } from 'standardwebhooks';
import { fillByInsert } from './audit.ts';
import { devSession, startBenchGateway, type BenchGateway } from './bench-gateway.ts';
import { openBenchDatabase, waitForProjections, type BenchDatabase } from './database.ts';
import { envInt, log, sleep, benchScratch } from './env.ts';
import { figure, figureMarkdown, figureTable, fmt, machine, writeResultFiles, type Figure } from './report.ts';

const config = () => ({
  entries: envInt('BENCH_SINK_ENTRIES', 100_000, 1000),
  batchSizes: (process.env.BENCH_SINK_BATCH_SIZES ?? '500,5000')
    .split(',')
    .map((size) => Number(size.trim()))
    .filter((size) => Number.isInteger(size) && size > 0),
  pollInterval: process.env.BENCH_SINK_POLL_INTERVAL ?? '1s',
  timeoutSeconds: envInt('BENCH_SINK_TIMEOUT_SECONDS', 600, 1),
  marketplaces: 50,
});
type Config = ReturnType<typeof config>;

const goal = { atLeast: 20_000, unit: 'entries/s' } as const;
const round = (n: number, digits = 1) => Math.round(n * 10 ** digits) / 10 ** digits;

/** What the receiver saw of one sink: entries past the last id, batches, and whether they followed on. */
type Tally = {
  secret: string;
  lastId: number;
  entries: number;
  batches: number;
  duplicates: number;
  gaps: number;
  /** The first batch as it came, verified once the create request has answered the secret. */
  first: { body: string; headers: Record<string, string> } | null;
  /** When the first batch arrived (performance.now()), and how many entries it held. */
  firstAt: number | null;
  firstEntries: number;
  errors: string[];
};

const newTally = (): Tally => ({
  secret: '',
  lastId: 0,
  entries: 0,
  batches: 0,
  duplicates: 0,
  gaps: 0,
  first: null,
  firstAt: null,
  firstEntries: 0,
  errors: [],
});

type Batch = { data: { from: number; to: number; entries: Array<{ id: number }> } };

function count(tally: Tally, batch: Batch): void {
  if (tally.firstAt === null) {
    tally.firstAt = performance.now();
    tally.firstEntries = batch.data.entries.length;
  }
  tally.batches += 1;
  for (const entry of batch.data.entries) {
    if (entry.id <= tally.lastId) {
      tally.duplicates += 1; // at least once: a batch sent again
      continue;
    }
    if (entry.id !== tally.lastId + 1) tally.gaps += 1;
    tally.lastId = entry.id;
    tally.entries += 1;
  }
}

/** The loopback receiver: parses each batch and counts its entries; keeps the first for its signature. */
function receiver(tallies: ReadonlyMap<string, Tally>) {
  return createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      // One path per sink: an earlier run's sink (still enabled) sends its batches elsewhere.
      const tally = tallies.get(request.url ?? '');
      if (!tally) {
        response.statusCode = 204;
        response.end();
        return;
      }
      const body = Buffer.concat(chunks).toString('utf8');
      try {
        // The first batch may come before the create request has answered: its signature is checked after.
        tally.first ??= { body, headers: request.headers as Record<string, string> };
        count(tally, JSON.parse(body) as Batch);
        response.statusCode = 204;
      } catch (error) {
        tally.errors.push(error instanceof Error ? error.message : String(error));
        response.statusCode = 400;
      }
      response.end();
    });
  });
}

type Run = Readonly<{
  batchSize: number;
  /** From the create request until every entry arrived. */
  seconds: number;
  /** From the create request until the first batch arrived. */
  firstBatchSeconds: number;
  /** Entries after the first batch, per second from its arrival to the last. */
  perSecond: number;
  batches: number;
  received: number;
  duplicates: number;
  gaps: number;
  inOrder: boolean;
  /** The gateway's event-loop utilization and its costliest SQL statements over the run. */
  eventLoopUtilization: number;
  topQueries: ReadonlyArray<{ sql: string; count: number; totalMs: number; meanMs: number }>;
}>;

/** One gateway with the given batch size, one new sink, until the receiver holds entries 1..head. */
async function measure(
  cfg: Config,
  batchSize: number,
  head: number,
  start: (batchSize: number) => Promise<BenchGateway>,
  baseUrl: string,
  tallies: Map<string, Tally>,
): Promise<Run> {
  const gateway = await start(batchSize);
  try {
    const tally = newTally();
    tallies.set(`/sink/${batchSize}`, tally);
    const hookUrl = `${baseUrl}/sink/${batchSize}`;
    const api = devSession(gateway.url, 'root');
    await gateway.reset();
    const started = performance.now();
    const created = await api.expect(
      'create sink',
      201,
      api.post('/api/v1/audit/sinks', { name: `bench-sink-${batchSize}`, url: hookUrl }),
    );
    tally.secret = String(created.body.secret);
    const deadline = started + cfg.timeoutSeconds * 1000;
    while (tally.lastId < head && tally.errors.length === 0 && performance.now() < deadline) await sleep(5);
    const ended = performance.now();
    const seconds = (ended - started) / 1000;
    if (tally.errors.length > 0) throw new Error(`audit-sink: the receiver refused a batch: ${tally.errors[0]}`);
    if (tally.lastId < head)
      throw new Error(`audit-sink: ${tally.entries} of ${head} entries arrived within ${cfg.timeoutSeconds} s`);
    new Webhook(tally.secret).verify(tally.first!.body, tally.first!.headers);
    const stats = await gateway.stats();
    const run: Run = {
      batchSize,
      seconds: round(seconds, 3),
      firstBatchSeconds: round((tally.firstAt! - started) / 1000, 3),
      perSecond: round((head - tally.firstEntries) / ((ended - tally.firstAt!) / 1000)),
      batches: tally.batches,
      received: tally.entries,
      duplicates: tally.duplicates,
      gaps: tally.gaps,
      inOrder: tally.gaps === 0,
      eventLoopUtilization: round(stats.eventLoop.utilization, 3),
      topQueries: Object.entries(stats.queries)
        .sort((a, b) => b[1].totalMs - a[1].totalMs)
        .slice(0, 6)
        .map(([sql, t]) => ({ sql, count: t.count, totalMs: round(t.totalMs), meanMs: round(t.totalMs / t.count, 2) })),
    };
    log(
      `audit-sink: batch-size ${batchSize}: ${fmt(head)} entries in ${fmt(seconds, 2)} s (first batch after ` +
        `${fmt(run.firstBatchSeconds, 2)} s), ${fmt(run.perSecond)} entries/s, ${run.batches} batches, ` +
        `in order: ${run.inOrder}`,
    );
    return run;
  } finally {
    await gateway.close();
  }
}

export async function auditSinkBenchmark(): Promise<void> {
  const cfg = config();
  if (cfg.batchSizes.length === 0) throw new Error('BENCH_SINK_BATCH_SIZES: no positive integer');
  log(`audit-sink: ${fmt(cfg.entries)} entries, batch sizes ${cfg.batchSizes.join(', ')}, poll ${cfg.pollInterval}`);
  const scratch = benchScratch('gateway-bench-audit-sink-');
  const { dataDir } = scratch;
  let database: BenchDatabase | null = null;
  let client: pg.Client | null = null;
  let server: Server | null = null;
  const close = async () => {
    await client?.end().catch(() => {});
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    await database?.close().catch(() => {});
  };
  const run = async () => {
    const tallies = new Map<string, Tally>();
    server = receiver(tallies);
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const db = await openBenchDatabase(log);
    database = db;
    const start = (batchSize: number) =>
      startBenchGateway({
        databaseUrl: db.url,
        dataDir,
        log,
        env: {
          GATEWAY_AUDIT_EXPORT_LAG: '0s',
          GATEWAY_AUDIT_EXPORT_POLL_INTERVAL: cfg.pollInterval,
          GATEWAY_AUDIT_EXPORT_BATCH_SIZE: String(batchSize),
          GATEWAY_WEBHOOKS_POLL_INTERVAL: cfg.pollInterval,
        },
      });
    // The first gateway creates the projection tables; the fill goes in before any sink exists.
    const first = await start(cfg.batchSizes[0]!);
    client = new pg.Client({ connectionString: db.url });
    await client.connect();
    await waitForProjections(client);
    const fill = await fillByInsert(client, { marketplaces: cfg.marketplaces, entries: cfg.entries });
    await first.close();
    log(`audit-sink: ${fmt(cfg.entries)} ledger entries inserted in ${fmt(fill.appendMs / 1000, 1)} s`);

    const runs: Run[] = [];
    for (const batchSize of cfg.batchSizes)
      runs.push(await measure(cfg, batchSize, cfg.entries, start, baseUrl, tallies));

    const figures = runs.map((r) =>
      figure(
        `entriesPerSecond${r.batchSize}`,
        `sink push, batch-size ${r.batchSize}${r.batchSize === 500 ? ' (default)' : ''}`,
        r.perSecond,
        'entries/s',
        goal,
        `${fmt(cfg.entries)} entries in ${r.seconds} s, ${r.batches} batches, ` +
          `${r.inOrder ? 'every entry in order' : `${r.gaps} gaps`}${r.duplicates ? `, ${r.duplicates} resent` : ''}`,
      ),
    );
    const report = {
      benchmark: 'audit-sink',
      date: new Date().toISOString(),
      machine: machine(),
      config: cfg,
      fillMs: fill.appendMs,
      runs,
      figures,
    };
    process.stdout.write(`\naudit-sink\n${figureTable(figures)}\n\n`);
    const files = writeResultFiles('audit-sink', report, markdown(report));
    log(`wrote ${files.json} and ${files.md}`);
  };
  await scratch.run(run, close);
}

function markdown(report: {
  date: string;
  machine: ReturnType<typeof machine>;
  config: Config;
  runs: Run[];
  figures: Figure[];
}): string {
  const m = report.machine;
  const c = report.config;
  return [
    '# Audit sink push benchmark',
    '',
    `${report.date} · ${m.cpuModel}, ${m.cores} cores, ${m.memoryGiB} GiB · ${m.platform} ${m.release} · Node ${m.node}`,
    '',
    figureMarkdown(report.figures),
    '',
    '| batch-size | seconds | first batch after (s) | entries/s | batches | entries received | in order | resent |',
    '| ---: | ---: | ---: | ---: | ---: | ---: | :---: | ---: |',
    ...report.runs.map(
      (r) =>
        `| ${r.batchSize} | ${r.seconds} | ${r.firstBatchSeconds} | ${fmt(r.perSecond)} | ${r.batches} | ${fmt(r.received)} | ` +
        `${r.inOrder ? 'yes' : 'no'} | ${r.duplicates} |`,
    ),
    '',
    ...report.runs.flatMap((r) => [
      `Batch-size ${r.batchSize}: gateway event-loop utilization ${r.eventLoopUtilization}; costliest SQL ` +
        '(call to result, total ms over the run):',
      '',
      ...r.topQueries.map((q) => `- ${fmt(q.totalMs)} ms, ${q.count} × ${q.meanMs} ms: \`${q.sql}\``),
      '',
    ]),
    `A ledger of ${fmt(c.entries)} entries (bulk insert into ledger_entries, as BENCH_LEDGER_FILL=insert of the ` +
      'audit benchmark), then for each batch size a gateway in its own process with gateway.audit-export.lag 0s and ' +
      `gateway.audit-export.poll-interval and gateway.webhooks.poll-interval ${c.pollInterval}, and one new sink ` +
      'created through POST /api/v1/audit/sinks pointing at a loopback node:http receiver, which parses each ' +
      'batch, counts its entries and checks each follows the previous one (the first batch is verified with the ' +
      'standardwebhooks package). The rate counts the entries after the first batch, from its arrival until the ' +
      'receiver holds every entry of the fill; the wait for the first batch (the push offers a new sink its first ' +
      'batch at its next pass) is in its own column. A sink holds eight batches offered: one on its way and the others ' +
      'ready behind it, their bodies built by PostgreSQL when they are offered. A delivered batch wakes the ' +
      'dispatcher, which sends the next ready one at once while the attempt is recorded, and the push, which ' +
      'offers the one after; so the rate is bounded by the deliveries reactor applying two events per batch (the ' +
      'offer and the attempt), and a backlog does not wait for the poll intervals.',
    '',
    'Produced by `npm run bench` (BENCH_ONLY=audit-sink for this part).',
    '',
  ].join('\n');
}
