// Webhook delivery latency from the event's append to the receiver, p95 with poll-interval 1 s
// (target ≤ 1.5 s).
//
// A gateway in its own process with gateway.webhooks.poll-interval BENCH_WEBHOOK_POLL_INTERVAL (default 1s) and
// batch-size BENCH_WEBHOOK_BATCH_SIZE (default 50, the gateway's default); a loopback node:http receiver that
// verifies each delivery with the standardwebhooks package; one subscriber of marketplace.registered. The bench
// registers BENCH_WEBHOOK_EVENTS hosted marketplaces (default 200; no upstream is read) at a steady
// BENCH_WEBHOOK_RATE per second (default 10), one POST /api/v1/marketplaces each. Latency is the receiver's
// arrival time minus the event's recordedAt (the body's `timestamp`, the append); the same minus the API's
// answer time is reported beside it. Writes bench/results/webhooks.json and .md.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { Webhook } from 'standardwebhooks';
import { devSession, startBenchGateway, type BenchGateway } from './bench-gateway.ts';
import { openBenchDatabase, waitForProjections, type BenchDatabase } from './database.ts';
import { envInt, log, sleep, benchScratch } from './env.ts';
import { figure, figureMarkdown, figureTable, fmt, latencies, machine, writeResultFiles } from './report.ts';

const config = () => ({
  events: envInt('BENCH_WEBHOOK_EVENTS', 200, 1),
  ratePerSecond: envInt('BENCH_WEBHOOK_RATE', 10, 1),
  pollInterval: process.env.BENCH_WEBHOOK_POLL_INTERVAL ?? '1s',
  batchSize: envInt('BENCH_WEBHOOK_BATCH_SIZE', 50, 1),
});
type Config = ReturnType<typeof config>;

const goal = { atMost: 1500, unit: 'ms' } as const;
const round = (n: number, digits = 1) => Math.round(n * 10 ** digits) / 10 ** digits;

type Arrival = Readonly<{ name: string; arrivedAt: number; recordedAt: number; webhookId: string }>;

/** The loopback receiver: verifies every delivery as a receiver would, keeps its arrival time. */
function receiver(secretOf: () => string, arrivals: Map<string, Arrival>, errors: string[]) {
  return createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const arrivedAt = Date.now();
      const body = Buffer.concat(chunks).toString('utf8');
      try {
        const payload = new Webhook(secretOf()).verify(body, request.headers as Record<string, string>) as {
          timestamp: string;
          data: { name: string };
        };
        const webhookId = String(request.headers['webhook-id']);
        // At least once: the first arrival of a name counts.
        if (!arrivals.has(payload.data.name))
          arrivals.set(payload.data.name, {
            name: payload.data.name,
            arrivedAt,
            recordedAt: Date.parse(payload.timestamp),
            webhookId,
          });
        response.statusCode = 204;
      } catch (error) {
        errors.push(error instanceof Error ? error.message : String(error));
        response.statusCode = 400;
      }
      response.end();
    });
  });
}

/** Registers cfg.events hosted marketplaces at a steady rate; answers each name's API answer time. */
async function append(api: ReturnType<typeof devSession>, cfg: Config): Promise<Map<string, number>> {
  const answered = new Map<string, number>();
  const interval = 1000 / cfg.ratePerSecond;
  const started = performance.now();
  for (let i = 0; i < cfg.events; i++) {
    const wait = started + i * interval - performance.now();
    if (wait > 0) await sleep(wait);
    const name = `bench-hook-${i}`;
    await api.expect(`register ${name}`, 201, api.post('/api/v1/marketplaces', { name, origin: 'hosted' }));
    answered.set(name, Date.now());
  }
  return answered;
}

export async function webhooksBenchmark(): Promise<void> {
  const cfg = config();
  log(`webhooks: ${cfg.events} events at ${cfg.ratePerSecond}/s, poll-interval ${cfg.pollInterval}`);
  const scratch = benchScratch('gateway-bench-webhooks-');
  const { dataDir } = scratch;
  let database: BenchDatabase | null = null;
  let gateway: BenchGateway | null = null;
  let client: pg.Client | null = null;
  let server: Server | null = null;
  const close = async () => {
    await client?.end().catch(() => {});
    await gateway?.close().catch(() => {});
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    await database?.close().catch(() => {});
  };
  const run = async () => {
    let secret = '';
    const arrivals = new Map<string, Arrival>();
    const errors: string[] = [];
    server = receiver(() => secret, arrivals, errors);
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const hookUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
    database = await openBenchDatabase(log);
    gateway = await startBenchGateway({
      databaseUrl: database.url,
      dataDir,
      log,
      env: {
        GATEWAY_WEBHOOKS_ENABLED: 'true',
        GATEWAY_WEBHOOKS_POLL_INTERVAL: cfg.pollInterval,
        GATEWAY_WEBHOOKS_BATCH_SIZE: String(cfg.batchSize),
      },
    });
    client = new pg.Client({ connectionString: database.url });
    await client.connect();
    await waitForProjections(client);
    const api = devSession(gateway.url, 'root');
    const created = await api.expect(
      'subscribe',
      201,
      api.post('/api/v1/webhooks', { url: hookUrl, events: ['marketplace.registered'] }),
    );
    secret = String(created.body.secret);

    const appendStarted = Date.now();
    const answered = await append(api, cfg);
    const appendSeconds = (Date.now() - appendStarted) / 1000;
    const deadline = Date.now() + 60_000;
    while (arrivals.size < cfg.events && errors.length === 0 && Date.now() < deadline) await sleep(50);
    if (errors.length > 0) throw new Error(`webhooks: receiver refused a delivery: ${errors[0]}`);
    if (arrivals.size < cfg.events)
      throw new Error(`webhooks: ${arrivals.size} of ${cfg.events} deliveries arrived within 60 s`);

    const all = [...arrivals.values()];
    const fromAppend = latencies(Float64Array.from(all.map((a) => a.arrivedAt - a.recordedAt)));
    const fromAnswer = latencies(Float64Array.from(all.map((a) => a.arrivedAt - answered.get(a.name)!)));
    const firstRecorded = Math.min(...all.map((a) => a.recordedAt));
    const lastArrival = Math.max(...all.map((a) => a.arrivedAt));
    const perSecond = all.length / ((lastArrival - firstRecorded) / 1000);
    const delivered = await client.query<{ state: string; n: string }>(
      `select state, count(*) as n from webhook_deliveries group by state`,
    );
    const states = Object.fromEntries(delivered.rows.map((r) => [r.state, Number(r.n)]));
    const figures = [
      figure(
        'latency',
        'append → receiver, p95',
        fromAppend.p95,
        'ms',
        goal,
        `p50 ${round(fromAppend.p50)} ms, p99 ${round(fromAppend.p99)} ms, max ${round(fromAppend.max)} ms`,
      ),
      figure(
        'latencyFromAnswer',
        'API answer → receiver, p95',
        fromAnswer.p95,
        'ms',
        undefined,
        `p50 ${round(fromAnswer.p50)} ms, max ${round(fromAnswer.max)} ms`,
      ),
      figure(
        'deliveriesPerSecond',
        'deliveries per second',
        perSecond,
        '/s',
        undefined,
        'first append to last arrival',
      ),
    ];
    log(
      `webhooks: append → receiver p50 ${fmt(fromAppend.p50)} ms, p95 ${fmt(fromAppend.p95)} ms, ` +
        `max ${fmt(fromAppend.max)} ms; ${fmt(perSecond, 1)} deliveries/s; states ${JSON.stringify(states)}`,
    );
    const report = {
      benchmark: 'webhooks',
      date: new Date().toISOString(),
      machine: machine(),
      config: cfg,
      counts: { received: all.length, appendSeconds: round(appendSeconds, 2), states },
      figures,
      ms: { fromAppend, fromAnswer },
    };
    process.stdout.write(`\nwebhooks\n${figureTable(figures)}\n\n`);
    const files = writeResultFiles('webhooks', report, markdown(report));
    log(`wrote ${files.json} and ${files.md}`);
  };
  await scratch.run(run, close);
}

function markdown(report: {
  date: string;
  machine: ReturnType<typeof machine>;
  config: Config;
  counts: { received: number; appendSeconds: number };
  figures: ReturnType<typeof figure>[];
  ms: { fromAppend: ReturnType<typeof latencies>; fromAnswer: ReturnType<typeof latencies> };
}): string {
  const a = report.ms.fromAppend;
  const b = report.ms.fromAnswer;
  const m = report.machine;
  const c = report.config;
  return [
    '# Webhook delivery latency benchmark',
    '',
    `${report.date} · ${m.cpuModel}, ${m.cores} cores, ${m.memoryGiB} GiB · ${m.platform} ${m.release} · Node ${m.node}`,
    '',
    figureMarkdown(report.figures),
    '',
    `Append → receiver: p50 ${fmt(a.p50)} ms, p95 ${fmt(a.p95)} ms, p99 ${fmt(a.p99)} ms, max ${fmt(a.max)} ms. ` +
      `API answer → receiver: p50 ${fmt(b.p50)} ms, p95 ${fmt(b.p95)} ms, max ${fmt(b.max)} ms.`,
    '',
    `${c.events} marketplace.registered events (hosted marketplaces registered through POST /api/v1/marketplaces ` +
      `at ${c.ratePerSecond}/s, ${report.counts.appendSeconds} s in all), one subscriber, a loopback node:http ` +
      `receiver verifying each delivery with the standardwebhooks package; gateway.webhooks.poll-interval ` +
      `${c.pollInterval}, batch-size ${c.batchSize}. Latency: the receiver's arrival time minus the event's ` +
      'recordedAt (the body timestamp, the append); the dispatcher polls, so it is about the reactor lag plus up ' +
      'to one poll interval plus the send.',
    '',
    'Produced by `npm run bench` (BENCH_ONLY=webhooks for this part).',
    '',
  ].join('\n');
}
