// Throughput of the PostgreSQL event store and of a full projection rebuild (part of npm run bench).
//
//   BENCH_EVENTS       events in the store at the end (default 100000)
//   BENCH_APPENDS      single-event appends in each measured append phase (default 20000)
//   BENCH_CONCURRENCY  appenders in the concurrent phase (default 8)
//   BENCH_BATCH_SIZE   runner and subscription batch size (default 500, gateway.projections.batch-size)
//   BENCH_DATABASE_URL a server to use instead of starting an embedded PostgreSQL
//
// The events beyond the two measured append phases are appended first, 100 per append, so the
// measured appends land on a store that already holds most of its events. A measurement, not a
// test: it exits 0 when a figure is below its target, non-zero only on an error.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import pg from 'pg';
import { PostgresEventStore } from '../src/adapters/eventstore/postgres/postgres-event-store.ts';
import type { EventStore } from '../src/adapters/eventstore/port.ts';
import { Listener } from '../src/adapters/postgres/listener.ts';
import { openPool, trustedSql, type DatabasePool } from '../src/adapters/postgres/pool.ts';
import { GitStore } from '../src/adapters/git/git-store.ts';
import { projectionsFor } from '../src/projections/registry.ts';
import type { Projection } from '../src/projections/runner/projection.ts';
import { ProjectionRunner } from '../src/projections/runner/runner.ts';
import { openBenchDatabase, type BenchDatabase } from './database.ts';
import { envInt, log } from './env.ts';
import { EventGenerator, expectedLedgerRows, newTally, type Tally } from './events.ts';
import {
  latencies,
  machine,
  PhaseProgress,
  textTable,
  verdict,
  writeReport,
  type PhaseResult,
  type Target,
} from './report.ts';

const configFromEnv = () => ({
  events: envInt('BENCH_EVENTS', 100_000, 1),
  appends: envInt('BENCH_APPENDS', 20_000, 1),
  concurrency: envInt('BENCH_CONCURRENCY', 8, 1),
  batchSize: envInt('BENCH_BATCH_SIZE', 500, 1),
  bulkPerAppend: 100,
});
let config = configFromEnv();

const targets = {
  concurrentAppends: { min: 2000, unit: 'appends/s' },
  rebuild: { min: 10_000, unit: 'events/s' },
} as const satisfies Record<string, Target>;

const silent = pino({ level: 'silent' });

const addTally = (into: Tally, from: Tally) => {
  for (const key of Object.keys(into) as Array<keyof Tally>) into[key] += from[key];
};

/** Appends `count` events through `generator`, one append call at a time. */
async function appendLoop(
  store: EventStore,
  generator: EventGenerator,
  take: () => boolean,
  samples: number[],
  onAppended: () => void,
): Promise<void> {
  while (take()) {
    const append = generator.next();
    const started = performance.now();
    await store.append(append.streamId, append.events, append.expected);
    samples.push(performance.now() - started);
    onAppended();
  }
}

async function bulkPhase(store: EventStore, count: number, tally: Tally): Promise<PhaseResult | null> {
  if (count <= 0) return null;
  const label = `bulk seed (${config.bulkPerAppend}/append)`;
  const progress = new PhaseProgress(label, count);
  const generator = new EventGenerator('bulk', 1);
  let appended = 0;
  let calls = 0;
  const started = performance.now();
  while (appended < count) {
    const append = generator.nextBatch(Math.min(config.bulkPerAppend, count - appended));
    await store.append(append.streamId, append.events, append.expected);
    appended += append.events.length;
    calls++;
    progress.update(appended);
  }
  const durationMs = performance.now() - started;
  addTally(tally, generator.tally);
  const result: PhaseResult = {
    id: 'bulk-seed',
    label,
    events: appended,
    appends: calls,
    durationMs,
    rate: appended / (durationMs / 1000),
    unit: 'events/s',
    notes: 'not a target: fills the store before the measured phases',
  };
  progress.done(result);
  return result;
}

async function appendPhase(
  store: EventStore,
  id: string,
  label: string,
  count: number,
  concurrency: number,
  seed: number,
  tally: Tally,
  target?: Target,
): Promise<PhaseResult> {
  const progress = new PhaseProgress(label, count);
  const generators = Array.from({ length: concurrency }, (_, i) => new EventGenerator(`${id}${i}`, seed + i));
  let issued = 0;
  let done = 0;
  const take = () => (issued < count ? (issued++, true) : false);
  const samples: number[] = [];
  const started = performance.now();
  await Promise.all(
    generators.map((generator) => appendLoop(store, generator, take, samples, () => progress.update(++done))),
  );
  const durationMs = performance.now() - started;
  for (const generator of generators) addTally(tally, generator.tally);
  const rate = count / (durationMs / 1000);
  const status = verdict(rate, target);
  const result: PhaseResult = {
    id,
    label,
    events: count,
    appends: count,
    concurrency,
    durationMs,
    rate,
    unit: 'appends/s',
    latencyMs: latencies(Float64Array.from(samples)),
    ...(target ? { target } : {}),
    ...(status ? { status } : {}),
  };
  progress.done(result);
  return result;
}

async function catchUpPhase(store: EventStore, total: number): Promise<PhaseResult> {
  const label = 'subscription catch-up';
  const progress = new PhaseProgress(label, total);
  let delivered = 0;
  const started = performance.now();
  let finished = () => {};
  let failed: (error: unknown) => void = () => {};
  const all = new Promise<void>((resolve, reject) => {
    finished = resolve;
    failed = reject;
  });
  const subscription = store.subscribeToAll(
    0n,
    async () => {
      delivered++;
      progress.update(delivered);
      if (delivered === total) finished();
    },
    (error) => failed(error),
  );
  try {
    await all;
  } finally {
    await subscription.close();
  }
  const durationMs = performance.now() - started;
  const result: PhaseResult = {
    id: 'catch-up',
    label,
    events: delivered,
    durationMs,
    rate: delivered / (durationMs / 1000),
    unit: 'events/s',
    notes: `subscribeToAll(0n) with a handler that does nothing, batch size ${config.batchSize}`,
  };
  progress.done(result);
  return result;
}

/** The store with its reads timed, to split the rebuild's time between reading and applying. */
function timedReads(store: EventStore, into: { readAllMs: number; readAllCalls: number }): EventStore {
  return {
    backend: store.backend,
    append: (streamId, events, expected) => store.append(streamId, events, expected),
    readStream: (streamId) => store.readStream(streamId),
    readAll: async (after, limit) => {
      const started = performance.now();
      try {
        return await store.readAll(after, limit);
      } finally {
        into.readAllMs += performance.now() - started;
        into.readAllCalls++;
      }
    },
    subscribeToAll: (after, handle, onError) => store.subscribeToAll(after, handle, onError),
    watch: (onAppend) => store.watch(onAppend),
    head: () => store.head(),
    ping: () => store.ping(),
    close: () => store.close(),
  };
}

async function rebuildPhase(pool: DatabasePool, store: EventStore, total: number): Promise<PhaseResult> {
  const label = 'full rebuild';
  const split = { readAllMs: 0, readAllCalls: 0 };
  const applyMs = new Map<string, number>();
  // The registry's projections, each apply() timed (the work itself is unchanged).
  const projections = projectionsFor({ gitStore: new GitStore(mkdtempSync(join(tmpdir(), 'bench-git-'))) });
  const timed: Projection[] = projections.map((projection) => ({
    ...projection,
    apply: async (tx, events) => {
      const started = performance.now();
      try {
        await projection.apply(tx, events);
      } finally {
        applyMs.set(projection.name, (applyMs.get(projection.name) ?? 0) + performance.now() - started);
      }
    },
  }));
  const runner = new ProjectionRunner(pool, timedReads(store, split), timed, {
    batchSize: config.batchSize,
    idlePollMs: 1000,
    logger: silent,
  });
  await runner.prepare();
  const progress = new PhaseProgress(label, total);
  const started = performance.now();
  const reached = await runner.rebuild(({ position }) => progress.update(Number(position)));
  const durationMs = performance.now() - started;
  const rate = Number(reached) / (durationMs / 1000);
  const status = verdict(rate, targets.rebuild);
  const applied = [...applyMs].map(([name, ms]) => `${name} apply ${(ms / 1000).toFixed(2)} s`).join(', ');
  const rest = durationMs - split.readAllMs - [...applyMs.values()].reduce((a, b) => a + b, 0);
  const result: PhaseResult = {
    id: 'rebuild',
    label,
    events: Number(reached),
    durationMs,
    rate,
    unit: 'events/s',
    target: targets.rebuild,
    ...(status ? { status } : {}),
    breakdownMs: {
      readAll: Math.round(split.readAllMs),
      ...Object.fromEntries([...applyMs].map(([name, ms]) => [`apply:${name}`, Math.round(ms)])),
      'checkpoints, transactions, rest': Math.round(rest),
    },
    notes:
      `ProjectionRunner.rebuild() with the registry's projections (${projections.map((p) => p.name).join(', ')}), batch size ${config.batchSize}; ` +
      `readAll ${(split.readAllMs / 1000).toFixed(2)} s in ${split.readAllCalls} calls, ${applied}, checkpoints/transactions/rest ${(rest / 1000).toFixed(2)} s`,
  };
  progress.done(result);
  return result;
}

async function postgresFacts(url: string): Promise<Record<string, string>> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const facts: Record<string, string> = {};
    facts.version =
      String((await client.query<{ v: string }>('select version() as v')).rows[0]?.v ?? '').split(' on ')[0] ?? '';
    for (const setting of [
      'shared_buffers',
      'synchronous_commit',
      'fsync',
      'wal_sync_method',
      'max_wal_size',
      'work_mem',
    ]) {
      const row = (await client.query<{ s: string }>(`select current_setting('${setting}') as s`)).rows[0];
      facts[setting] = row?.s ?? '';
    }
    return facts;
  } finally {
    await client.end();
  }
}

export async function eventStoreBenchmark(): Promise<void> {
  config = configFromEnv();
  const measured = config.appends * 2;
  const bulk = Math.max(0, config.events - measured);
  const total = bulk + measured;
  log(
    `events ${total} (bulk ${bulk}, measured appends ${config.appends} + ${config.appends}), concurrency ${config.concurrency}, batch size ${config.batchSize}`,
  );

  let database: BenchDatabase | null = null;
  let pool: DatabasePool | null = null;
  let listener: Listener | null = null;
  const cleanup = async () => {
    await listener?.close().catch(() => {});
    await pool?.end().catch(() => {});
    await database?.close();
  };
  const interrupted = () => {
    log('interrupted: cleaning up');
    void cleanup().finally(() => process.exit(130));
  };
  process.once('SIGINT', interrupted);
  process.once('SIGTERM', interrupted);
  try {
    database = await openBenchDatabase(log);
    // The gateway's own pool settings (openCore): the default size of 10 covers 8 appenders.
    pool = await openPool(database.url);
    listener = new Listener(database.url);
    const store = await PostgresEventStore.open(pool, { listener, batchSize: config.batchSize });
    const postgres = await postgresFacts(database.url);
    log(
      `${postgres.version}, synchronous_commit=${postgres.synchronous_commit}, shared_buffers=${postgres.shared_buffers}`,
    );

    const tally = newTally();
    const phases: PhaseResult[] = [];
    const seeded = await bulkPhase(store, bulk, tally);
    if (seeded) phases.push(seeded);
    phases.push(await appendPhase(store, 'single', 'appends, 1 appender', config.appends, 1, 1000, tally));
    phases.push(
      await appendPhase(
        store,
        'concurrent',
        `appends, ${config.concurrency} appenders`,
        config.appends,
        config.concurrency,
        2000,
        tally,
        config.concurrency === 8 ? targets.concurrentAppends : undefined,
      ),
    );

    const head = await store.head();
    if (head !== BigInt(total) || tally.events !== total) {
      throw new Error(`the store holds ${head} events, expected ${total} (generated ${tally.events})`);
    }
    // A long-running store is vacuumed and analysed by autovacuum; do it now so the read phases
    // do not pay for freshly inserted rows (hint bits) or run on missing statistics.
    const vacuumStarted = performance.now();
    await pool.query(trustedSql('vacuum (analyze) es.events'));
    log(`vacuum (analyze) es.events: ${((performance.now() - vacuumStarted) / 1000).toFixed(1)} s (not measured)`);

    phases.push(await catchUpPhase(store, total));
    phases.push(await rebuildPhase(pool, store, total));

    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    const count = async (table: string) =>
      Number((await client.query<{ n: string }>(`select count(*)::text as n from ${table}`)).rows[0]?.n);
    const ledgerRows = await count('ledger_entries');
    const marketplaceRows = await count('marketplaces');
    const storeBytes = (await client.query<{ b: string }>(`select pg_total_relation_size('es.events')::text as b`))
      .rows[0]?.b;
    await client.end();
    const checks = {
      head: Number(head),
      ledgerRows,
      ledgerRowsExpected: expectedLedgerRows(tally),
      marketplaceRows,
      marketplaceRowsExpected: tally.registered,
      eventsTableBytes: Number(storeBytes ?? 0),
      mix: tally,
    };
    if (ledgerRows !== checks.ledgerRowsExpected || marketplaceRows !== checks.marketplaceRowsExpected) {
      throw new Error(`read models after the rebuild do not match the events: ${JSON.stringify(checks)}`);
    }

    process.stdout.write(`\n${textTable(phases)}\n\n`);
    process.stdout.write(
      `store: ${total.toLocaleString('en-US')} events (${tally.registered} marketplace-registered, ${tally.infoRefs} info-refs, ${tally.uploadPacks} upload-pack with ${tally.wants} wants); ledger ${ledgerRows.toLocaleString('en-US')} rows; es.events ${(checks.eventsTableBytes / 2 ** 20).toFixed(0)} MiB\n`,
    );
    const files = writeReport({
      benchmark: 'eventstore-postgres',
      date: new Date().toISOString(),
      machine: machine(),
      postgres: { ...postgres, embedded: String(database.embedded) },
      counts: {
        events: total,
        bulk,
        singleAppends: config.appends,
        concurrentAppends: config.appends,
        concurrency: config.concurrency,
        batchSize: config.batchSize,
        bulkPerAppend: config.bulkPerAppend,
      },
      phases,
      checks,
    });
    log(`wrote ${files.json} and ${files.md}`);
  } finally {
    process.off('SIGINT', interrupted);
    process.off('SIGTERM', interrupted);
    await cleanup();
  }
}
