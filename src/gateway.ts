import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { GatewayConfig } from './adapters/config/schema.ts';
import type { EventStore } from './adapters/eventstore/port.ts';
import { PostgresEventStore } from './adapters/eventstore/postgres/postgres-event-store.ts';
import { AdvisoryLock } from './adapters/postgres/advisory-lock.ts';
import { packageRoot } from './adapters/system/package-root.ts';
import { postgresQuarantineLocks } from './adapters/postgres/quarantine-locks.ts';
import { openDatabase, type DatabaseHandle } from './adapters/postgres/database.ts';
import { Listener } from './adapters/postgres/listener.ts';
import { restartDelaysMs, type SupervisionEvents } from './adapters/postgres/supervisor.ts';
import { OidcProvider } from './adapters/identity/oidc.ts';
import { postgresIdAllocator } from './adapters/postgres/id-allocator.ts';
import { HealthConnection } from './adapters/postgres/health-connection.ts';
import { ensurePortFree } from './adapters/system/port.ts';
import { openPool, redactUrl, sql, type DatabasePool, type Interceptor } from './adapters/postgres/pool.ts';
import { SessionStore } from './adapters/postgres/session-store.ts';
import { systemClock, type Clock } from './adapters/system/clock.ts';
import { createMetrics, type Metrics } from './adapters/system/metrics.ts';
import { measuredEventStore } from './adapters/eventstore/measured-event-store.ts';
import { scrapeSources } from './application/kernel/metrics-sources.ts';
import { secretBox, secretKey } from './adapters/system/secret-box.ts';
import { builtInConnectors } from './adapters/vetting/registry.ts';
import { IngestRegistry } from './application/marketplaces/ingest-registry.ts';
import { FacadeMemory } from './application/access/facade-memory.ts';
import { scheduledIngestionDuty } from './application/marketplaces/scheduled-ingest.duty.ts';
import { vettingDuties } from './application/vetting/sweeps.duty.ts';
import { deliveryDuties } from './application/outbound/delivery-duties.ts';
import { auditSigningKey, checkpointDuties } from './application/audit/checkpoint.duty.ts';
import { retentionDuties } from './application/retention/retention.duty.ts';
import { mirrorDuty, mirrorSettings } from './application/mirror/mirror.duty.ts';
import { MirrorSignal } from './domain/mirror/mirror-signal.ts';
import { estateDuty } from './application/estate/reconcile.duty.ts';
import { httpTransport } from './adapters/webhooks/transport.ts';
import type { HttpDeps } from './http/http-deps.ts';
import { buildServer, type HttpApp } from './http/server.ts';
import { TokenUseRecorder } from './application/access/token-use.ts';
import { projectionsFor } from './projections/registry.ts';
import type { GitStore } from './adapters/git/git-store.ts';
import { openGitStorage } from './adapters/storage/open.ts';
import { CatalogBuilder } from './projections/catalog/catalog-builder.ts';
import { Leadership, type LeaderDuty } from './projections/runner/leader.ts';
import { ProjectionRunner } from './projections/runner/runner.ts';
import { ProjectionWaiter } from './projections/runner/wait-for.ts';
import { reconcilePublication } from './projections/publication/reconcile.ts';
import { FirstRunSignIn, type Notice } from './gateway-local-idp.ts';

export { createLogger, redactPaths } from './gateway-logger.ts';

/** The build's own version, or null when the build carries none (`version` is then absent from GET /api/v1/me). */
export function buildVersion(): string | null {
  try {
    const { version } = JSON.parse(readFileSync(join(packageRoot, 'package.json'), 'utf8')) as { version?: unknown };
    return typeof version === 'string' ? version : null;
  } catch {
    return null;
  }
}

/** The shared I/O of a gateway process: database, event store, projections. Used by serve and the CLI. */
export type Core = Readonly<{
  config: GatewayConfig;
  logger: Logger;
  database: DatabaseHandle;
  pool: DatabasePool;
  listener: Listener;
  store: EventStore;
  runner: ProjectionRunner;
  leaderLock: AdvisoryLock;
  gitStore: GitStore;
  /** What /actuator/health asks: the database and the event store, on a connection no request queues for. */
  health: HttpDeps['checks'];
  /** The virtual catalog's builder; null when gateway.catalog.enabled is false. */
  catalog: CatalogBuilder | null;
  /** Wakes the leader's mirror duty after what is served changed. */
  mirrorSignal: MirrorSignal;
  metrics: Metrics;
  close(): Promise<void>;
}>;

// The key of the advisory lock that elects the replica running projections, reactors and schedules.
export const leaderLockKey = 7306120432n;

/**
 * What tests and the CLI may vary: another database, observers of the pool's queries, and what happens
 * when the embedded PostgreSQL died and could not be restarted (serve exits; the default only logs).
 */
export type CoreOptions = Readonly<{
  databaseUrl?: string;
  poolInterceptors?: readonly Interceptor[];
  onDatabaseGiveUp?: (error: Error) => void;
  /** The clock routes and duties read (tests move time with it); the system clock by default. */
  clock?: Clock;
  notice?: Notice; // where the built-in issuer's first password is shown (stderr by default)
}>;

/** The embedded server's supervision, in the gateway's log. */
const supervisionLog = (logger: Logger, onGiveUp: (error: Error) => void): SupervisionEvents => {
  const log = logger.child({ component: 'postgres' });
  return {
    onExit: (description) => log.error(`the embedded PostgreSQL ${description}: restarting it (crash recovery)`),
    onAttemptFailed: (attempt, error) =>
      log.warn({ err: error }, `restart ${attempt} of ${restartDelaysMs.length} of the embedded PostgreSQL failed`),
    onRestarted: (attempt, downMs) =>
      log.info({ attempt, downMs }, `the embedded PostgreSQL is back after ${downMs} ms; reconnecting`),
    onGiveUp: (error) => {
      log.fatal({ err: error }, `${error.message}; exiting so that a supervisor restarts the gateway`);
      onGiveUp(error);
    },
  };
};

/**
 * Health probes on a connection of their own: a probe never waits behind request traffic for the pool.
 * `eventStore` is the store to ping when it is not the PostgreSQL one (null: the database answers for it).
 */
function healthProbes(url: string, eventStore: EventStore | null, closers: Array<() => Promise<void>>) {
  const lostListeners: Array<() => void> = [];
  const probes = new HealthConnection(url, () => lostListeners.forEach((listener) => listener()));
  closers.push(() => probes.close());
  return {
    database: () => probes.run('select 1'),
    eventStore: eventStore === null ? () => probes.run(PostgresEventStore.pingStatement) : () => eventStore.ping(),
    onConnectionLost: (listener: () => void) => void lostListeners.push(listener),
  };
}

export async function openCore(config: GatewayConfig, logger: Logger, options: CoreOptions = {}): Promise<Core> {
  const { databaseUrl } = options;
  const database = databaseUrl
    ? { url: databaseUrl, embedded: false, close: async () => {} }
    : await openDatabase({
        url: config.database.url,
        dataDir: config.dataDir,
        log: (line) => logger.debug({ component: 'postgres' }, line),
        supervision: supervisionLog(logger, options.onDatabaseGiveUp ?? (() => {})),
      });
  const closers: Array<() => Promise<void>> = [() => database.close()];
  const close = async () => {
    for (const closer of closers.reverse())
      await closer().catch((error: unknown) => logger.warn({ err: error }, 'close failed'));
  };
  try {
    logger.info({ database: redactUrl(database.url), embedded: database.embedded }, 'database ready');
    const pool = await openPool(database.url, {
      ...(options.poolInterceptors ? { interceptors: options.poolInterceptors } : {}),
    });
    closers.push(() => pool.end());
    await pool.query(sql.unsafe`select 1`);
    const listener = new Listener(database.url, (error) =>
      logger.warn({ err: error }, 'notification connection lost; falling back to polling'),
    );
    closers.push(() => listener.close());
    // The PostgreSQL adapter's tables are always created: the id counters live beside them.
    const postgresStore = await PostgresEventStore.open(pool, { listener });
    let store: EventStore = postgresStore;
    if (config.eventStore.backend === 'eventstoredb' && config.eventStore.url) {
      // Loaded only when configured: the gRPC client is heavy and most estates run on PostgreSQL.
      const { EventStoreDbEventStore } = await import('./adapters/eventstore/eventstoredb/eventstoredb-event-store.ts');
      store = await EventStoreDbEventStore.connect(config.eventStore.url);
      closers.push(() => store.close());
    }
    const health = healthProbes(database.url, store === postgresStore ? null : store, closers);
    const metrics = createMetrics();
    store = measuredEventStore(store, metrics); // append latency and decisions (docs/metrics.md)
    const quarantineLocks = postgresQuarantineLocks(database.url);
    const storage = await openGitStorage(config, { pool, listener, logger, quarantineLocks });
    closers.push(storage.close);
    const { gitStore, catalogStore } = storage;
    const catalog = config.catalog.enabled
      ? new CatalogBuilder({
          name: config.catalog.name,
          pool,
          store,
          gitStore,
          catalogStore,
          logger: logger.child({ component: 'catalog' }),
          now: () => systemClock.instant(),
          guard: config.catalog.guard,
        })
      : null;
    const mirrorSignal = new MirrorSignal();
    const runner = new ProjectionRunner(
      pool,
      store,
      projectionsFor({ gitStore, store, now: () => systemClock.instant(), catalog, mirror: mirrorSignal }),
      {
        batchSize: config.projections.batchSize,
        idlePollMs: 1000,
        logger: logger.child({ component: 'projections' }),
      },
    );
    const leaderLock = new AdvisoryLock(database.url, leaderLockKey);
    closers.push(() => leaderLock.release());
    const handles = { config, logger, database, pool, listener, store, runner, leaderLock, gitStore, catalog, health };
    return { ...handles, mirrorSignal, metrics, close };
  } catch (error) {
    await close();
    throw error;
  }
}

export type Gateway = Readonly<{
  app: HttpApp;
  url: string;
  core: Core;
  leadership: Leadership;
  waiter: ProjectionWaiter;
  deps: HttpDeps;
  tokenUse: TokenUseRecorder; // lastUsedAt, written off the request path
  close(): Promise<void>;
}>;

/** `gateway serve`: the whole service, listening. The only place that wires HTTP to the rest. */
export async function startGateway(config: GatewayConfig, logger: Logger, options: CoreOptions = {}): Promise<Gateway> {
  await ensurePortFree(config.server.host, config.server.port); // before anything starts
  const signIn = await FirstRunSignIn.prepare(config); // the built-in issuer when nothing is configured
  const core = await openCore(config, logger, options);
  try {
    const waiter = new ProjectionWaiter(
      core.pool,
      core.listener,
      core.runner.projections.map((p) => p.name),
      { timeoutMs: config.projections.waitTimeoutMs },
    );
    await waiter.start();
    const deps = FirstRunSignIn.admit(signIn, await httpDeps(config, core, waiter));
    core.metrics.readFrom(scrapeSources(deps, core.runner));
    if (options.clock) deps.clock = options.clock;
    const leadership = leaderDuties(config, core, deps);
    await leadership.start();

    const tokenUse = new TokenUseRecorder(deps.store, deps.clock, deps.logger);
    const app = await buildServer(deps, tokenUse);
    await signIn?.mount(app, deps);
    await app.listen({ host: config.server.host, port: config.server.port });
    const address = app.server.address();
    const port = typeof address === 'object' && address ? address.port : config.server.port;
    const url = `http://${config.server.host.includes(':') ? `[${config.server.host}]` : config.server.host}:${port}`;
    // gateway.base-url defaults to http://127.0.0.1:<the port in force>; port 0 is in force only once bound.
    if (config.server.port === 0 && config.baseUrl === 'http://127.0.0.1:0') deps.baseUrl = `http://127.0.0.1:${port}`;
    await signIn?.start(deps, logger, options.notice);
    logger.info({ url, version: buildVersion(), leader: leadership.isLeader }, 'gateway listening');

    let closing: Promise<void> | null = null;
    const close = () => {
      closing ??= shutdown(config, logger, app, () => leadership.stop(), waiter, core);
      return closing;
    };
    return { app, url, core, leadership, waiter, deps, tokenUse, close };
  } catch (error) {
    await core.close();
    throw error;
  }
}

type MutableDeps = { -readonly [K in keyof HttpDeps]: HttpDeps[K] };

/** Everything the routes and use cases get, from the configuration and the opened core. */
async function httpDeps(config: GatewayConfig, core: Core, waiter: ProjectionWaiter): Promise<MutableDeps> {
  const { oidc } = config;
  const { logger } = core;
  // Mutable only for baseUrl (with port 0 the port it defaults to is known after listen) and the clock
  // (tests); the ingest registry runs on this same object.
  const deps: Omit<MutableDeps, 'ingests'> = {
    baseUrl: config.baseUrl,
    version: buildVersion(),
    bodyLimitBytes: config.server.bodyLimitBytes,
    logger,
    store: core.store,
    waiter,
    pool: core.pool,
    clock: systemClock,
    ids: postgresIdAllocator(core.pool),
    sessions: await SessionStore.open(core.pool),
    identity:
      oidc.issuer && oidc.clientId
        ? new OidcProvider({
            issuer: oidc.issuer,
            clientId: oidc.clientId,
            clientSecret: oidc.clientSecret,
            scopes: oidc.scopes,
            audience: oidc.audience,
            userNameAttribute: oidc.userNameAttribute,
          })
        : null,
    access: {
      configAdmins: config.roles.admins,
      claimMappings: config.roles.claimMappings,
      devInsecureAuth: config.devInsecureAuth,
      sessionTtlMs: config.tokens.sessionTtlMs,
      maxTtlMs: config.tokens.maxTtlMs,
    },
    catalog: config.catalog,
    catalogBuilder: core.catalog,
    gitStore: core.gitStore,
    quarantineLocks: postgresQuarantineLocks(core.database.url, (error) =>
      logger.warn({ err: error }, 'a quarantine lock connection was lost; its lock with it'),
    ),
    facade: { idpBearerEnabled: config.facade.idpBearerEnabled },
    auditExport: config.auditExport,
    auditSigning: await auditSigningKey(config.auditExport.signingKey, config.dataDir),
    metrics: core.metrics,
    outbound: core.gitStore.outbound,
    facadeMemory: FacadeMemory.start({ store: core.store, pool: core.pool, logger }),
    marketplaces: {
      allowedUrlSchemes: config.allowedUrlSchemes,
      minimumReleaseAgeMs: config.vetting.minimumReleaseAgeMs,
      ingest: config.ingest,
      history: config.facade.history,
    },
    retention: config.retention,
    housekeeping: config.housekeeping,
    policy: config.policy,
    secrets: secretBox(secretKey(config.secrets.key, config.dataDir)),
    mirror: mirrorSettings(config.mirror),
    sync: { maxWebhookBodyBytes: config.sync.maxWebhookBodyBytes },
    estate: { file: config.estate.file },
    rateLimit: config.rateLimit,
    trustedProxies: config.server.trustedProxies,
    vetting: {
      connectors: builtInConnectors({ http: config.vetting.http, workerMemoryMb: config.vetting.workerMemoryMb }),
      timeoutMs: config.vetting.timeoutMs,
      maxFileBytes: config.vetting.maxFileBytes,
      license: config.vetting.license,
      revetMode: config.vetting.revet.mode,
      historyMaxBlobs: config.vetting.historyMaxBlobs,
    },
    checks: core.health,
    problemsDir: join(packageRoot, 'docs', 'problems'),
  };
  return Object.assign(deps, { ingests: new IngestRegistry(deps, config.ingest.concurrency) });
}

/** What runs on the replica holding the leader lock: projections (after publication's repair), reactors, schedules. */
function leaderDuties(config: GatewayConfig, core: Core, deps: HttpDeps): Leadership {
  const { logger } = core;
  return new Leadership(
    core.leaderLock,
    [
      {
        start: async () => {
          const reset = await core.runner.prepare();
          if (reset.length > 0) logger.info({ projections: reset }, 'read models created or rebuilt for a new version');
          // Publication is compared with the events only once the projections are at the head.
          await core.runner.catchUp();
          await reconcilePublication({
            pool: core.pool,
            store: core.store,
            gitStore: core.gitStore,
            logger,
            now: () => systemClock.instant(),
          });
          core.runner.start();
        },
        stop: () => core.runner.stop(),
      },
      ...(core.catalog ? [core.catalog] : []),
      vettingDuties(deps, {
        revetSchedule: config.vetting.revet.schedule,
        waiverSweepIntervalMs: config.vetting.waiverSweepIntervalMs,
        waiverSweepBatchSize: config.vetting.waiverSweepBatchSize,
      }),
      scheduledIngestionDuty(deps, deps.ingests, config.sync.schedule),
      ...outboundDuties(deps, config),
      ...retentionDuties(deps),
      mirrorDuty(deps, core.catalog, core.mirrorSignal),
      estateDuty(deps),
    ],
    logger.child({ component: 'leader' }),
  );
}

/** The webhook dispatcher and the audit push (deliveryDuties), and the checkpoint duties. */
function outboundDuties(deps: HttpDeps, config: GatewayConfig): LeaderDuty[] {
  const delivering = deliveryDuties(deps, config.webhooks, config.auditExport, httpTransport(deps.outbound));
  return [...delivering, ...checkpointDuties(deps, config.auditExport.checkpointIntervalMs)];
}

/** Stop accepting, let in-flight requests finish (bounded), then stop the rest in reverse order. */
async function shutdown(
  config: GatewayConfig,
  logger: Logger,
  app: HttpApp,
  stopLeading: () => Promise<void>,
  waiter: ProjectionWaiter,
  core: Core,
): Promise<void> {
  const timer = setTimeout(() => {
    logger.warn('shutdown timeout: closing remaining connections');
    app.server.closeAllConnections();
  }, config.server.shutdownTimeoutMs);
  await app.close();
  clearTimeout(timer);
  await stopLeading();
  waiter.stop();
  await core.close();
  logger.info('gateway stopped');
}
