// The audit ledger's read side on a large ledger:
//
//  3. GET /api/v1/audit with BENCH_LEDGER_ENTRIES entries: the default page, with marketplace= (a
//     busy and a rare marketplace) and with before= deep in the ledger, BENCH_AUDIT_REQUESTS
//     sequential requests each after a warm-up; p50/p95 client-side, the gateway's own time per
//     request, and EXPLAIN ANALYZE of the queries behind it.
//  4. GET /api/v1/audit/export paged through the whole ledger with limit=BENCH_EXPORT_LIMIT and the
//     cursor header (GATEWAY_AUDIT_EXPORT_LAG=0s), entries/s.
//
// The ledger is filled the way the gateway fills it (BENCH_LEDGER_FILL=projection, the default):
// facade access events appended straight to the event store in large multi-event appends (mostly
// upload-pack with 4 wants, which the ledger mapping expands to 4 entries), and the gateway's own
// projection runner catching up. BENCH_LEDGER_FILL=insert writes the rows into ledger_entries in
// bulk instead (no events). Writes bench/results/audit.json and .md.
import { chmodSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { NewEvent } from '../src/adapters/eventstore/port.ts';
import { PostgresEventStore } from '../src/adapters/eventstore/postgres/postgres-event-store.ts';
import { Listener } from '../src/adapters/postgres/listener.ts';
import { openPool, type DatabasePool } from '../src/adapters/postgres/pool.ts';
import { streams } from '../src/domain/kernel/streams.ts';
import { startBenchGateway, type BenchGateway, type GatewayStats } from './bench-gateway.ts';
import { CpuMeter } from './cpu.ts';
import {
  openBenchDatabase,
  postmasterPid,
  projectionProgress,
  waitForProjections,
  type BenchDatabase,
} from './database.ts';
import { envChoice, envInt, log, withInterruptCleanup } from './env.ts';
import { seededRandom } from './events.ts';
import {
  figure,
  figureMarkdown,
  figureTable,
  fmt,
  latencies,
  machine,
  median,
  writeResultFiles,
  type Figure,
} from './report.ts';

const config = () => ({
  entries: envInt('BENCH_LEDGER_ENTRIES', 1_000_000, 1000),
  fill: envChoice('BENCH_LEDGER_FILL', ['projection', 'insert'] as const, 'projection'),
  eventsPerAppend: envInt('BENCH_LEDGER_EVENTS_PER_APPEND', 1000, 1),
  wantsPerUploadPack: 4,
  marketplaces: 50,
  requests: envInt('BENCH_AUDIT_REQUESTS', 200, 1),
  warmup: envInt('BENCH_AUDIT_WARMUP', 20, 0),
  exportLimit: envInt('BENCH_EXPORT_LIMIT', 10_000, 1),
});

const goals = {
  pageP95: { atMost: 50, unit: 'ms' },
  exportRate: { atLeast: 50_000, unit: 'entries/s' },
} as const;

const round = (n: number, digits = 2) => Math.round(n * 10 ** digits) / 10 ** digits;
const words = ['platform', 'security', 'data', 'devtools', 'research', 'mobile', 'infra', 'web', 'ml', 'payments'];
const hex = (random: () => number, length: number): string => {
  let out = '';
  while (out.length < length)
    out += Math.floor(random() * 0x100000000)
      .toString(16)
      .padStart(8, '0');
  return out.slice(0, length);
};

type Market = Readonly<{ id: number; name: string; weight: number }>;

/** Marketplaces looked at unevenly (weights ∝ 1/rank), plus one rare one only touched at the start. */
function marketplacesOf(count: number): { markets: Market[]; rare: Market } {
  const markets = Array.from({ length: count - 1 }, (_, i) => ({
    id: i + 1,
    name: `${words[i % words.length]}-skills-${i + 1}`,
    weight: 1 / (i + 1),
  }));
  return { markets, rare: { id: count, name: 'legacy-rare-tools', weight: 0 } };
}

/** Appends the ledger's events straight to the event store, in multi-event appends on the access streams. */
async function appendLedgerEvents(
  store: PostgresEventStore,
  cfg: ReturnType<typeof config>,
  progress: () => Promise<string>,
) {
  const random = seededRandom(7);
  const { markets, rare } = marketplacesOf(cfg.marketplaces);
  const totalWeight = markets.reduce((sum, m) => sum + m.weight, 0);
  const pickMarket = (): Market => {
    let r = random() * totalWeight;
    for (const m of markets) {
      r -= m.weight;
      if (r <= 0) return m;
    }
    return markets[0]!;
  };
  const principals = Array.from({ length: 300 }, (_, i) => (i % 5 === 0 ? `ci-bot-${i}` : `user${i}@example.com`));
  const tags = Array.from({ length: 30 }, (_, i) => `refs/tags/v${1 + (i % 4)}.${i}.0`);
  const accessEvent = (m: Market): { event: NewEvent; entries: number } => {
    const who = principals[Math.floor(random() * principals.length)]!;
    const metadata = {
      principal: who,
      actorType: who.startsWith('ci-bot') ? ('machine' as const) : ('human' as const),
      correlationId: randomUUID(),
      source: `10.${Math.floor(random() * 256)}.${Math.floor(random() * 256)}.${1 + Math.floor(random() * 254)}`,
      credentialId: 1 + Math.floor(random() * 2000),
      at: new Date().toISOString(),
    };
    const credentialKind = random() < 0.8 ? 'pat' : 'idp';
    if (random() < 0.2) {
      return {
        entries: 1,
        event: {
          type: 'info-refs',
          data: {
            marketplaceId: m.id,
            marketplace: m.name,
            ref: 'refs/heads/main',
            sha: hex(random, 40),
            credentialKind,
          },
          metadata,
        },
      };
    }
    const wants = Array.from({ length: cfg.wantsPerUploadPack }, (_, i) => ({
      sha: hex(random, 40),
      ref: i === 0 ? 'refs/heads/main' : tags[Math.floor(random() * tags.length)]!,
    }));
    return {
      entries: wants.length,
      event: {
        type: 'upload-pack',
        data: { marketplaceId: m.id, marketplace: m.name, wants, credentialKind },
        metadata,
      },
    };
  };

  const started = performance.now();
  let entries = 0;
  let events = 0;
  let appends = 0;
  // Registrations (one ledger entry each), as the decider writes them.
  for (const m of [...markets, rare]) {
    const metadata = {
      principal: 'root',
      actorType: 'human' as const,
      correlationId: randomUUID(),
      at: new Date().toISOString(),
    };
    await store.append(
      streams.marketplaceName(m.name),
      [{ type: 'marketplace-name-reserved', data: { name: m.name, marketplaceId: m.id }, metadata }],
      'no-stream',
    );
    await store.append(
      streams.marketplace(m.id),
      [
        {
          type: 'marketplace-registered',
          data: {
            marketplaceId: m.id,
            name: m.name,
            origin: 'upstream',
            url: `https://git.example.com/${m.name}.git`,
            pushPolicy: null,
            registeredAt: metadata.at,
            registeredBy: 'root',
          },
          metadata,
        },
      ],
      'no-stream',
    );
    entries++;
    events += 2;
    appends += 2;
  }
  // The rare marketplace's whole history: a few fetches at the very start.
  const rareBatch = Array.from({ length: 20 }, () => accessEvent(rare));
  await store.append(
    streams.access(rare.id),
    rareBatch.map((e) => e.event),
    'any',
  );
  entries += rareBatch.reduce((sum, e) => sum + e.entries, 0);
  events += rareBatch.length;
  appends++;

  let lastLog = performance.now();
  while (entries < cfg.entries) {
    const m = pickMarket();
    const batch: NewEvent[] = [];
    while (batch.length < cfg.eventsPerAppend && entries < cfg.entries) {
      const { event, entries: n } = accessEvent(m);
      batch.push(event);
      entries += n;
    }
    await store.append(streams.access(m.id), batch, 'any');
    events += batch.length;
    appends++;
    const now = performance.now();
    if (now - lastLog > 5000) {
      lastLog = now;
      log(
        `audit: appended ${fmt(events)} events (${fmt(entries)} ledger entries), ${fmt(events / ((now - started) / 1000))} events/s; ${await progress()}`,
      );
    }
  }
  const appendMs = performance.now() - started;
  log(
    `audit: appended ${fmt(events)} events in ${fmt(appends)} appends (${fmt(appendMs / 1000, 1)} s, ${fmt(events / (appendMs / 1000))} events/s)`,
  );
  return { events, appends, expectedEntries: entries, appendMs: round(appendMs), busy: markets[0]!, rare };
}

/** The same rows written straight into ledger_entries (no events), for runs short of time. */
export async function fillByInsert(client: pg.Client, cfg: Readonly<{ marketplaces: number; entries: number }>) {
  const { markets, rare } = marketplacesOf(cfg.marketplaces);
  const started = performance.now();
  const names = [
    ...markets.flatMap((m) => Array.from({ length: Math.max(1, Math.round(m.weight * 100)) }, () => m.name)),
  ];
  await client.query(
    `
    insert into ledger_entries (id, position, ts, source, principal, actor_type, marketplace, marketplace_id, event, ref, sha, detail, token_id, credential_kind, hash, prev_hash)
    select g, g, now(), '10.' || (g % 256) || '.' || ((g / 256) % 256) || '.1', 'user' || (g % 300) || '@example.com', 'human',
      case when g <= 70 then $2 else ($1::text[])[1 + (hashint4(g::int) & 2147483647) % cardinality($1::text[])] end,
      null, case when g % 5 = 0 then 'info-refs' else 'upload-pack' end,
      case when g % 4 = 0 then 'refs/heads/main' else 'refs/tags/v1.' || (g % 30) || '.0' end,
      md5(g::text) || substr(md5((g + 1)::text), 1, 8), null, g % 2000, 'pat',
      -- placeholders of the chain's shape: these rows are read and pushed, never verified
      lpad(to_hex(g), 64, '0'), lpad(to_hex(g - 1), 64, '0')
    from generate_series(1, $3::bigint) g`,
    [names, rare.name, cfg.entries],
  );
  const ms = performance.now() - started;
  return { events: 0, appends: 0, expectedEntries: cfg.entries, appendMs: round(ms), busy: markets[0]!, rare };
}

/** The SQL of ledger.queries.ts, with literals, for EXPLAIN ANALYZE and raw timing. */
const pageSql = (before: number, limit: number, marketplace: string | null) =>
  `select id, ts, source, principal, actor_type, marketplace, marketplace_id, event, ref, sha, detail, token_id, credential_kind from ledger_entries
   where true ${before > 0 ? `and id < ${before}` : ''} ${marketplace === null ? '' : `and marketplace = '${marketplace}'`} order by id desc limit ${limit}`;
const totalSql = 'select count(*)::int as n from (select 1 from ledger_entries limit 100000) capped';
const exportSql = (after: number, limit: number) =>
  `select id, ts, source, principal, actor_type, marketplace, marketplace_id, event, ref, sha, detail, token_id, credential_kind from ledger_entries
   where id > ${after} and ts <= now() order by id limit ${limit}`;

async function explain(client: pg.Client, sql: string): Promise<{ plan: string; executionMs: number }> {
  const rows = (await client.query<{ 'QUERY PLAN': string }>(`explain (analyze, buffers) ${sql}`)).rows.map(
    (r) => r['QUERY PLAN'],
  );
  const executionMs = Number(/Execution Time: ([\d.]+) ms/.exec(rows.join('\n'))?.[1] ?? NaN);
  return { plan: rows.join('\n'), executionMs };
}

/** Median wall time of a query run from this process through pg (no row validation). */
async function rawQueryMs(client: pg.Client, sql: string, runs: number): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    await client.query(sql);
    times.push(performance.now() - started);
  }
  return round(median(times));
}

const serverTimes = (stats: GatewayStats, kind: string) => {
  const t = stats.requests[kind];
  return t
    ? { count: t.count, meanMs: round(t.totalMs / Math.max(1, t.count)), ...latencies(Float64Array.from(t.samples)) }
    : null;
};

export async function auditBenchmark(): Promise<void> {
  const cfg = config();
  log(
    `audit: ${fmt(cfg.entries)} ledger entries (fill: ${cfg.fill}), ${cfg.requests} requests per variant, export limit ${cfg.exportLimit}`,
  );
  const root = mkdtempSync(join(tmpdir(), 'gateway-bench-audit-'));
  chmodSync(root, 0o755);
  const dataDir = join(root, 'gateway-data');
  mkdirSync(dataDir);

  let database: BenchDatabase | null = null;
  let gateway: BenchGateway | null = null;
  let client: pg.Client | null = null;
  let pool: DatabasePool | null = null;
  let listener: Listener | null = null;
  let keep = false;
  let cleaned = false;
  const cleanup = async () => {
    if (cleaned) return;
    cleaned = true;
    await listener?.close().catch(() => {});
    await pool?.end().catch(() => {});
    await client?.end().catch(() => {});
    await gateway?.close().catch(() => {});
    await database?.close().catch(() => {});
    if (!keep) rmSync(root, { recursive: true, force: true });
  };
  const run = async () => {
    database = await openBenchDatabase(log);
    gateway = await startBenchGateway({
      databaseUrl: database.url,
      dataDir,
      log,
      // The measured requests (1,000 reads, then the whole export in pages of 10,000) would outrun the management
      // API's default budget per credential on a fast machine: the benchmark measures reads, not the limiter.
      env: { GATEWAY_AUDIT_EXPORT_LAG: '0s', GATEWAY_RATE_LIMIT_API_PER_CREDENTIAL: '0' },
    });
    const gw: BenchGateway = gateway;
    client = new pg.Client({ connectionString: database.url });
    await client.connect();
    const db = client;
    await waitForProjections(db);
    const meter = new CpuMeter(() => ({ bench: process.pid, gateway: gw.pid }), await postmasterPid(db));

    // Fill, with the gateway running: its projection runner applies the events as they come.
    let fill;
    let catchUp: { caughtUpMs: number; lagAfterAppendsMs: number; cpu: ReturnType<typeof CpuMeter.delta> } | null =
      null;
    if (cfg.fill === 'projection') {
      pool = await openPool(database.url);
      listener = new Listener(database.url);
      const before = meter.sample();
      const started = performance.now();
      fill = await appendLedgerEvents(await PostgresEventStore.open(pool, { listener }), cfg, async () => {
        const { position } = await projectionProgress(db, 'ledger');
        return `ledger projection at event ${fmt(Number(position))}`;
      });
      const appendsDone = performance.now();
      let last = appendsDone;
      await waitForProjections(db, {
        timeoutMs: 1_800_000,
        onProgress: ({ head, position }) => {
          const now = performance.now();
          if (now - last < 5000) return;
          last = now;
          log(`audit: projections at ${fmt(Number(position))}/${fmt(Number(head))} events`);
        },
      });
      const caughtUp = performance.now();
      catchUp = {
        caughtUpMs: round(caughtUp - started),
        lagAfterAppendsMs: round(caughtUp - appendsDone),
        cpu: CpuMeter.delta(before, meter.sample()),
      };
      log(
        `audit: projections caught up ${fmt(catchUp.caughtUpMs / 1000, 1)} s after the first append, ${fmt(catchUp.lagAfterAppendsMs / 1000, 1)} s after the last`,
      );
      await listener.close();
      listener = null;
      await pool.end();
      pool = null;
    } else {
      fill = await fillByInsert(db, cfg);
    }
    const entries = Number(
      (await db.query<{ n: string }>('select count(*)::text as n from ledger_entries')).rows[0]?.n ?? 0,
    );
    const maxId = Number(
      (await db.query<{ n: string }>('select coalesce(max(id), 0)::text as n from ledger_entries')).rows[0]?.n ?? 0,
    );
    if (entries < fill.expectedEntries)
      throw new Error(`the ledger holds ${entries} entries, expected at least ${fill.expectedEntries}`);
    log(`audit: ledger holds ${fmt(entries)} entries`);
    const vacuumStarted = performance.now();
    await db.query('vacuum (analyze) ledger_entries');
    const vacuumMs = performance.now() - vacuumStarted;
    const tableBytes = Number(
      (await db.query<{ b: string }>(`select pg_total_relation_size('ledger_entries')::text as b`)).rows[0]?.b ?? 0,
    );
    log(
      `audit: vacuum (analyze) ledger_entries: ${fmt(vacuumMs / 1000, 1)} s (not measured); table and indexes ${fmt(tableBytes / 2 ** 20)} MiB`,
    );

    // 3. GET /api/v1/audit.
    const headers = { 'x-dev-user': 'root' };
    const deep = Math.max(2, Math.floor(maxId * 0.05));
    const variants = [
      {
        id: 'default',
        label: 'GET /api/v1/audit (default page)',
        query: '',
        target: true,
        sql: pageSql(0, 1001, null),
      },
      {
        id: 'busy',
        label: `GET /api/v1/audit?marketplace= (busiest, ${fill.busy.name})`,
        query: `?marketplace=${fill.busy.name}`,
        target: true,
        sql: pageSql(0, 1001, fill.busy.name),
      },
      {
        id: 'rare',
        label: 'GET /api/v1/audit?marketplace= (rare, oldest entries only)',
        query: `?marketplace=${fill.rare.name}`,
        target: true,
        sql: pageSql(0, 1001, fill.rare.name),
      },
      {
        id: 'deep',
        label: `GET /api/v1/audit?before=${deep} (5 % from the oldest)`,
        query: `?before=${deep}`,
        target: true,
        sql: pageSql(deep, 1001, null),
      },
      {
        id: 'limit50',
        label: 'GET /api/v1/audit?limit=50 (reference)',
        query: '?limit=50',
        target: false,
        sql: pageSql(0, 51, null),
      },
    ];
    const pageResults: PageResult[] = [];
    const figures: Figure[] = [];
    for (const variant of variants) {
      const url = `${gw.url}/api/v1/audit${variant.query}`;
      const first = await fetch(url, { headers });
      const body = (await first.json()) as {
        entries?: unknown[];
        nextBefore?: number;
        total?: number;
        totalIsEstimate?: boolean;
      };
      if (first.status !== 200 || !Array.isArray(body.entries))
        throw new Error(`${url}: ${first.status} ${JSON.stringify(body).slice(0, 300)}`);
      for (let i = 0; i < cfg.warmup; i++) await (await fetch(url, { headers })).arrayBuffer();
      await gw.reset();
      const samples: number[] = [];
      let bytes = 0;
      for (let i = 0; i < cfg.requests; i++) {
        const started = performance.now();
        const response = await fetch(url, { headers });
        const buffer = await response.arrayBuffer();
        samples.push(performance.now() - started);
        bytes = buffer.byteLength;
        if (response.status !== 200) throw new Error(`${url}: ${response.status}`);
      }
      const server = serverTimes(await gw.stats(), 'GET /api/v1/audit');
      const measured = latencies(Float64Array.from(samples));
      const page = await explain(db, variant.sql);
      const total = await explain(db, totalSql);
      const result: PageResult = {
        id: variant.id,
        label: variant.label,
        query: variant.query,
        entriesReturned: body.entries.length,
        nextBefore: body.nextBefore ?? null,
        total: body.total,
        totalIsEstimate: body.totalIsEstimate,
        responseBytes: bytes,
        clientMs: { ...measured, mean: round(samples.reduce((a, b) => a + b, 0) / samples.length) },
        serverMs: server,
        sql: {
          pageExecutionMs: page.executionMs,
          totalExecutionMs: total.executionMs,
          pageRawMs: await rawQueryMs(db, variant.sql, 30),
          totalRawMs: await rawQueryMs(db, totalSql, 30),
          pagePlan: page.plan,
          totalPlan: total.plan,
        },
      };
      pageResults.push(result);
      log(
        `audit: ${variant.label}: ${body.entries.length} entries, ${fmt(bytes / 1024)} KiB; p50 ${fmt(measured.p50, 1)} ms, p95 ${fmt(measured.p95, 1)} ms ` +
          `(gateway ${fmt(server?.p50 ?? 0, 1)} / ${fmt(server?.p95 ?? 0, 1)} ms; SQL page ${result.sql.pageRawMs} ms + total ${result.sql.totalRawMs} ms)`,
      );
      figures.push(
        figure(
          `page-${variant.id}-p95`,
          `${variant.label} p95`,
          measured.p95,
          'ms',
          variant.target ? goals.pageP95 : undefined,
          `p50 ${round(measured.p50)} ms, ${body.entries.length} entries, ${Math.round(bytes / 1024)} KiB`,
        ),
      );
    }

    // 4. Export, the whole ledger.
    log(`audit: export, limit=${cfg.exportLimit}, through ${fmt(entries)} entries`);
    await gw.reset();
    const exportCpuBefore = meter.sample();
    const pages: number[] = [];
    let exported = 0;
    let cursor = 0;
    let bytes = 0;
    let lastId = 0;
    const exportStarted = performance.now();
    let lastLog = exportStarted;
    for (;;) {
      const started = performance.now();
      const response = await fetch(`${gw.url}/api/v1/audit/export?after=${cursor}&limit=${cfg.exportLimit}`, {
        headers,
      });
      const text = await response.text();
      pages.push(performance.now() - started);
      if (response.status !== 200) throw new Error(`export: ${response.status} ${text.slice(0, 300)}`);
      const next = Number(response.headers.get('x-gateway-audit-cursor'));
      let lines = 0;
      for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) lines++;
      bytes += Buffer.byteLength(text);
      if (lines === 0) break;
      const lastLine = text.slice(text.lastIndexOf('\n', text.length - 2) + 1);
      lastId = (JSON.parse(lastLine) as { id: number }).id;
      if (next !== lastId) throw new Error(`export cursor ${next} is not the last entry's id ${lastId}`);
      exported += lines;
      cursor = next;
      const now = performance.now();
      if (now - lastLog > 5000) {
        lastLog = now;
        log(`audit: exported ${fmt(exported)} entries, ${fmt(exported / ((now - exportStarted) / 1000))}/s`);
      }
    }
    const exportMs = performance.now() - exportStarted;
    const exportCpu = CpuMeter.delta(exportCpuBefore, meter.sample());
    const exportServer = serverTimes(await gw.stats(), 'GET /api/v1/audit/export');
    if (exported !== entries) throw new Error(`the export delivered ${exported} entries, the ledger holds ${entries}`);
    const exportRate = exported / (exportMs / 1000);
    const midAfter = Math.floor(maxId / 2);
    const exportPlan = await explain(db, exportSql(midAfter, cfg.exportLimit));
    const exportRawMs = await rawQueryMs(db, exportSql(midAfter, cfg.exportLimit), 5);
    const pageLatency = latencies(Float64Array.from(pages));
    log(
      `audit: exported ${fmt(exported)} entries (${fmt(bytes / 2 ** 20)} MiB) in ${pages.length} pages, ${fmt(exportMs / 1000, 1)} s: ${fmt(exportRate)} entries/s; ` +
        `page p50 ${fmt(pageLatency.p50)} ms (gateway ${fmt(exportServer?.p50 ?? 0)} ms, SQL ${exportRawMs} ms)`,
    );
    figures.push(
      figure(
        'export-rate',
        `GET /api/v1/audit/export, limit=${cfg.exportLimit}, whole ledger`,
        exportRate,
        'entries/s',
        goals.exportRate,
        `${exported} entries in ${pages.length} pages, page p50 ${round(pageLatency.p50)} ms`,
      ),
    );
    if (catchUp) {
      figures.unshift(
        figure(
          'append',
          'ledger fill: events appended (multi-event appends)',
          fill.events / (fill.appendMs / 1000),
          'events/s',
          undefined,
          `${fill.events} events in ${round(fill.appendMs / 1000, 1)} s`,
        ),
        figure(
          'catch-up',
          'ledger fill: projected (first append to caught up)',
          entries / (catchUp.caughtUpMs / 1000),
          'entries/s',
          undefined,
          `${fill.events} events, ${entries} entries in ${round(catchUp.caughtUpMs / 1000, 1)} s; caught up ${round(catchUp.lagAfterAppendsMs / 1000, 1)} s after the last append`,
        ),
      );
    } else {
      figures.unshift(
        figure(
          'insert',
          'ledger fill: bulk insert into ledger_entries',
          entries / (fill.appendMs / 1000),
          'entries/s',
          undefined,
          `${entries} entries in ${round(fill.appendMs / 1000, 1)} s`,
        ),
      );
    }

    const report = {
      benchmark: 'audit',
      date: new Date().toISOString(),
      machine: machine(),
      postgres: (await db.query<{ v: string }>('select version() as v')).rows[0]?.v.split(' on ')[0] ?? '',
      counts: {
        entries,
        maxId,
        requests: cfg.requests,
        warmup: cfg.warmup,
        exportLimit: cfg.exportLimit,
        marketplaces: cfg.marketplaces,
        eventsPerAppend: cfg.eventsPerAppend,
        wantsPerUploadPack: cfg.wantsPerUploadPack,
      },
      fill: { mode: cfg.fill, ...fill, catchUp, vacuumMs: round(vacuumMs), tableBytes },
      figures,
      pages: pageResults,
      export: {
        entries: exported,
        pages: pages.length,
        bytes,
        ms: round(exportMs),
        rate: round(exportRate),
        pageMs: pageLatency,
        serverMs: exportServer,
        cpu: exportCpu,
        sqlMidLedgerPage: { rawMs: exportRawMs, executionMs: exportPlan.executionMs, plan: exportPlan.plan },
      },
    };
    process.stdout.write(`\naudit\n${figureTable(figures)}\n\n`);
    const files = writeResultFiles('audit', report, auditMarkdown(report, figures));
    log(`wrote ${files.json} and ${files.md}`);
  };
  await withInterruptCleanup(cleanup, async () => {
    try {
      await run();
    } catch (error) {
      keep = process.env.BENCH_KEEP_ON_FAILURE === '1';
      if (gateway)
        log(
          `gateway log: ${(gateway as BenchGateway).logFile}${keep ? '' : ' (removed; BENCH_KEEP_ON_FAILURE=1 keeps it)'}`,
        );
      throw error;
    } finally {
      await cleanup();
    }
  });
}

type Percentiles = ReturnType<typeof latencies>;
type PageResult = Readonly<{
  id: string;
  label: string;
  query: string;
  entriesReturned: number;
  nextBefore: number | null;
  total: number | undefined;
  totalIsEstimate: boolean | undefined;
  responseBytes: number;
  clientMs: Percentiles & { mean: number };
  serverMs: ReturnType<typeof serverTimes>;
  sql: {
    pageExecutionMs: number;
    totalExecutionMs: number;
    pageRawMs: number;
    totalRawMs: number;
    pagePlan: string;
    totalPlan: string;
  };
}>;

type AuditReport = Readonly<{
  date: string;
  machine: ReturnType<typeof machine>;
  postgres: string;
  counts: {
    entries: number;
    marketplaces: number;
    eventsPerAppend: number;
    wantsPerUploadPack: number;
    warmup: number;
    requests: number;
  };
  fill: {
    mode: string;
    events: number;
    appends: number;
    appendMs: number;
    vacuumMs: number;
    tableBytes: number;
    catchUp: {
      caughtUpMs: number;
      lagAfterAppendsMs: number;
      cpu: { machineBusyPercent: number; cpuSeconds: Record<string, number> };
    } | null;
  };
  pages: PageResult[];
  export: {
    entries: number;
    pages: number;
    bytes: number;
    ms: number;
    pageMs: { p50: number; p95: number };
    serverMs: { p50: number; p95: number } | null;
    cpu: { machineBusyPercent: number; cpuSeconds: Record<string, number> };
    sqlMidLedgerPage: { rawMs: number; executionMs: number };
  };
}>;

function auditMarkdown(report: AuditReport, figures: readonly Figure[]): string {
  const m = report.machine;
  const c = report.counts;
  const cpuText = (cpu: { machineBusyPercent: number; cpuSeconds: Record<string, number> }) =>
    `machine ${cpu.machineBusyPercent} % busy; CPU s: ${Object.entries(cpu.cpuSeconds)
      .filter(([, s]) => s > 0)
      .map(([g, s]) => `${g} ${s}`)
      .join(', ')}`;
  const f = report.fill;
  return [
    '# Audit ledger benchmark',
    '',
    `${report.date} · ${m.cpuModel}, ${m.cores} cores, ${m.memoryGiB} GiB · ${m.platform} ${m.release} · Node ${m.node} · ${report.postgres}`,
    '',
    figureMarkdown(figures),
    '',
    `Ledger: ${fmt(c.entries)} entries, ${c.marketplaces} marketplaces, table and indexes ${fmt(f.tableBytes / 2 ** 20)} MiB. ` +
      (f.catchUp
        ? `Filled through the event store: ${fmt(f.events)} events in ${fmt(f.appends)} appends of up to ${c.eventsPerAppend} events (upload-pack with ${c.wantsPerUploadPack} wants, 20 % info-refs), ` +
          `appended in ${fmt(f.appendMs / 1000, 1)} s with the gateway running; its projection runner had applied all of it ${fmt(f.catchUp.caughtUpMs / 1000, 1)} s after the first append, ` +
          `${fmt(f.catchUp.lagAfterAppendsMs / 1000, 1)} s after the last (${cpuText(f.catchUp.cpu)}).`
        : `Filled by a bulk insert into ledger_entries in ${fmt(f.appendMs / 1000, 1)} s (no events).`),
    `Then \`vacuum (analyze) ledger_entries\` (${fmt(f.vacuumMs / 1000, 1)} s, as autovacuum would), ${c.warmup} warm-up requests per variant, ${c.requests} measured requests each, sequential.`,
    '',
    '| request | entries | KiB | client p50 / p95 ms | gateway p50 / p95 ms | SQL page ms | SQL total ms |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...report.pages.map(
      (p) =>
        `| ${p.label} | ${p.entriesReturned} | ${fmt(p.responseBytes / 1024)} | ${fmt(p.clientMs.p50, 1)} / ${fmt(p.clientMs.p95, 1)} | ` +
        `${fmt(p.serverMs?.p50 ?? 0, 1)} / ${fmt(p.serverMs?.p95 ?? 0, 1)} | ${p.sql.pageRawMs} | ${p.sql.totalRawMs} |`,
    ),
    '',
    '"SQL page" and "SQL total" are the two queries behind a page (ledgerPage, ledgerTotal in src/projections/ledger/ledger.queries.ts) run',
    'from the benchmark through pg (median of 30); their plans (EXPLAIN ANALYZE, BUFFERS) are in bench/results/audit.json.',
    '',
    `Export: ${fmt(report.export.entries)} entries, ${fmt(report.export.bytes / 2 ** 20)} MiB of NDJSON in ${report.export.pages} pages, ${fmt(report.export.ms / 1000, 1)} s; ` +
      `page p50 ${fmt(report.export.pageMs.p50)} ms (gateway ${fmt(report.export.serverMs?.p50 ?? 0)} ms; the SQL of one page alone ${report.export.sqlMidLedgerPage.rawMs} ms through pg, ` +
      `${report.export.sqlMidLedgerPage.executionMs} ms server execution); ${cpuText(report.export.cpu)}.`,
    '',
    'The gateway runs in its own process (bench/gateway-process.ts) with GATEWAY_AUDIT_EXPORT_LAG=0s; requests are made by the benchmark',
    'process with the development sign-in hatch as the configured admin `root`. Produced by `npm run bench` (BENCH_ONLY=audit for this part).',
    '',
  ].join('\n');
}
