import { secretBox } from '../../src/adapters/system/secret-box.ts';
import pino from 'pino';
import type { Test } from 'tap';
import type { NewEvent } from '../../src/adapters/eventstore/port.ts';
import { PostgresEventStore } from '../../src/adapters/eventstore/postgres/postgres-event-store.ts';
import { postgresIdAllocator } from '../../src/adapters/postgres/id-allocator.ts';
import { postgresQuarantineLocks } from '../../src/adapters/postgres/quarantine-locks.ts';
import { Listener } from '../../src/adapters/postgres/listener.ts';
import { SessionStore } from '../../src/adapters/postgres/session-store.ts';
import { systemClock } from '../../src/adapters/system/clock.ts';
import { createMetrics } from '../../src/adapters/system/metrics.ts';
import { IngestRegistry } from '../../src/application/marketplaces/ingest-registry.ts';
import type { HttpDeps } from '../../src/http/http-deps.ts';
import { GitStore } from '../../src/adapters/git/git-store.ts';
import { OutboundBoundary } from '../../src/adapters/outbound/outbound-boundary.ts';
import { defaultDenyNetworks } from '../../src/domain/outbound/networks.ts';
import { projectionsFor } from '../../src/projections/registry.ts';
import type { Projection } from '../../src/projections/runner/projection.ts';
import { ProjectionRunner } from '../../src/projections/runner/runner.ts';
import { ProjectionWaiter } from '../../src/projections/runner/wait-for.ts';
import { testPool } from './database.ts';

export const silentLogger = pino({ level: 'silent' });

/** Event store, runner and waiter on a database of the test's own. */
export async function testCore(t: Test, options: { projections?: readonly Projection[]; waitTimeoutMs?: number } = {}) {
  const { pool, url } = await testPool(t);
  const listener = new Listener(url);
  t.teardown(() => listener.close());
  const store = await PostgresEventStore.open(pool, { listener });
  const gitStore = new GitStore(t.testdir());
  const projections = options.projections ?? projectionsFor({ gitStore, store });
  const runner = new ProjectionRunner(pool, store, projections, {
    batchSize: 100,
    idlePollMs: 1000,
    logger: silentLogger,
  });
  await runner.prepare();
  const waiter = new ProjectionWaiter(
    pool,
    listener,
    projections.map((p) => p.name),
    { timeoutMs: options.waitTimeoutMs ?? 5000 },
  );
  await waiter.start();
  t.teardown(async () => {
    waiter.stop();
    await runner.stop();
  });
  return { pool, url, listener, store, runner, waiter, gitStore };
}

export const metadata = (overrides: Partial<NewEvent['metadata']> = {}): NewEvent['metadata'] => ({
  principal: 'alice',
  actorType: 'human',
  correlationId: 'corr',
  at: '2026-03-01T10:00:00.000Z',
  ...overrides,
});

/** Dependencies for buildServer() on a test core (the skeleton tests register probe routes on it). */
export async function testHttpDeps(
  core: Awaited<ReturnType<typeof testCore>>,
  overrides: Partial<HttpDeps> = {},
): Promise<HttpDeps> {
  const deps: Omit<HttpDeps, 'ingests'> = {
    baseUrl: 'https://gw.example.test',
    version: '1.2.3',
    bodyLimitBytes: 1024,
    logger: silentLogger,
    problemsDir: 'docs/problems',
    store: core.store,
    waiter: core.waiter,
    pool: core.pool,
    clock: systemClock,
    ids: postgresIdAllocator(core.pool),
    sessions: await SessionStore.open(core.pool),
    identity: null,
    access: {
      configAdmins: [],
      claimMappings: [],
      devInsecureAuth: false,
      sessionTtlMs: 8 * 3_600_000,
      maxTtlMs: null,
    },
    catalog: { enabled: true, name: 'catalog' },
    catalogBuilder: null,
    gitStore: core.gitStore,
    quarantineLocks: postgresQuarantineLocks(core.url),
    facade: { idpBearerEnabled: false },
    auditExport: { defaultPageSize: 1000, maxPageSize: 10000, lagMs: 0 },
    estate: { file: null },
    metrics: createMetrics(),
    outbound: OutboundBoundary.of(defaultDenyNetworks),
    marketplaces: {
      allowedUrlSchemes: ['http', 'https'],
      minimumReleaseAgeMs: 0,
      ingest: {
        maxExternalSources: 1000,
        externalSources: 'withhold-unresolved',
        fetchConcurrency: 8,
        externalHosts: [],
        concurrency: 2,
      },
      history: 'upstream',
    },
    policy: { evaluationTimeoutMs: 1000, dryRunTimeoutMs: 10_000 },
    retention: {
      enabled: false,
      heldMaxAgeMs: 90 * 86_400_000,
      supersededEnabled: true,
      supersededMinAgeMs: 30 * 86_400_000,
      minIdleMs: 30 * 86_400_000,
      restoreWindowMs: 14 * 86_400_000,
      pollIntervalMs: 3_600_000,
      compactionIntervalMs: 6 * 3_600_000,
      stagingRefMaxAgeMs: 86_400_000,
    },
    housekeeping: { enabled: true, externalCacheMaxAgeMs: 7 * 86_400_000 },
    secrets: secretBox(Buffer.alloc(32, 7)),
    mirror: { url: null, credentials: null, reconcileWaitMs: 1000 },
    sync: { maxWebhookBodyBytes: 1_048_576 },
    vetting: {
      connectors: [],
      timeoutMs: 30_000,
      maxFileBytes: 1_048_576,
      license: { allow: [], ban: [] },
      revetMode: 'WARN',
      historyMaxBlobs: 20000,
    },
    checks: { database: async () => {}, eventStore: async () => {} },
    ...overrides,
  };
  return { ...deps, ingests: overrides.ingests ?? new IngestRegistry(deps, deps.marketplaces.ingest.concurrency) };
}
