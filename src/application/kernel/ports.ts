import type { FastifyBaseLogger } from 'fastify';
import type { EventStore } from '../../adapters/eventstore/port.ts';
import type { GitStore } from '../../adapters/git/git-store.ts';
import type { OutboundBoundary } from '../../adapters/outbound/outbound-boundary.ts';
import type { IdAllocator } from '../../adapters/postgres/id-allocator.ts';
import type { DatabasePool } from '../../adapters/postgres/pool.ts';
import type { QuarantineLocks } from '../../adapters/postgres/quarantine-locks.ts';
import type { Clock } from '../../adapters/system/clock.ts';
import type { Metrics } from '../../adapters/system/metrics.ts';
import type { SecretBox } from '../../adapters/system/secret-box.ts';
import type { Connector } from '../../adapters/vetting/connector.ts';
import type { ClaimMapping } from '../../domain/role/permissions.ts';
import type { ActorType } from '../../domain/kernel/decider.ts';
import type { ProjectionWaiter } from '../../projections/runner/wait-for.ts';
import type { SecretReference } from '../../domain/kernel/secret-reference.ts';
import type { FacadeMemory } from '../access/facade-memory.ts';

/** pino's logger as fastify types it; use cases log through it, never through a request. */
export type Log = FastifyBaseLogger;

export type AccessSettings = Readonly<{
  configAdmins: readonly string[];
  claimMappings: readonly ClaimMapping[];
  devInsecureAuth: boolean;
  sessionTtlMs: number;
  maxTtlMs: number | null;
}>;

/** gateway.ingest.*: how many ingests run at once, and how an ingest resolves external plugin sources. */
export type IngestSettings = Readonly<{
  /** Ingests of different marketplaces at once in this process (marketplaces/ingest-registry.ts). */
  concurrency: number;
  maxExternalSources: number;
  /** What an unreadable source does: withhold its plugin, or fail the ingest. */
  externalSources: 'withhold-unresolved' | 'require-all';
  fetchConcurrency: number;
  /** Hosts external sources may name (empty: any host the outbound boundary allows; decision 342). */
  externalHosts: readonly string[];
}>;

/** The connector chain and the settings of gateway.vetting.* that runs read. */
export type VettingSettings = Readonly<{
  /** Every connector the gateway has, in default order. */
  connectors: readonly Connector[];
  timeoutMs: number;
  maxFileBytes: number;
  license: Readonly<{ allow: readonly string[]; ban: readonly string[] }>;
  revetMode: 'WARN' | 'ENFORCE';
  /** Most history blobs a run reads before approval (vetting/history-verdict.ts). */
  historyMaxBlobs: number;
}>;

/** gateway.retention.* as loaded (durations in milliseconds). */
export type RetentionSettings = Readonly<{
  enabled: boolean;
  heldMaxAgeMs: number;
  supersededEnabled: boolean;
  supersededMinAgeMs: number;
  minIdleMs: number;
  /** Resolved into purgeAfter at deletion time. */
  restoreWindowMs: number;
  pollIntervalMs: number;
  compactionIntervalMs: number;
  stagingRefMaxAgeMs: number;
}>;

/**
 * Every port a use case may take. Each use case names the few it needs (`Pick<Ports, …>`), so what it
 * touches is visible in its signature; the composition root hands all of them to the HTTP layer.
 */
export type Ports = Readonly<{
  store: EventStore;
  waiter: ProjectionWaiter;
  pool: DatabasePool;
  clock: Clock;
  ids: IdAllocator;
  logger: Log;
  gitStore: GitStore;
  /** Per quarantine repository: ingests hold it shared, compaction's prune exclusively. */
  quarantineLocks: QuarantineLocks;
  access: AccessSettings;
  catalog: Readonly<{ enabled: boolean; name: string }>;
  marketplaces: Readonly<{
    allowedUrlSchemes: readonly string[];
    minimumReleaseAgeMs: number;
    ingest: IngestSettings;
    /** gateway.facade.history: what a served commit descends from (decision 333). */
    history: 'upstream' | 'vetted';
  }>;
  vetting: VettingSettings;
  /** gateway.policy.*: how long one rule's evaluation, and one dry run, may take. */
  policy: Readonly<{ evaluationTimeoutMs: number; dryRunTimeoutMs: number }>;
  retention: RetentionSettings;
  /** gateway.housekeeping.*: whether the leader schedules compaction (independent of the deletion criteria). */
  housekeeping: Readonly<{ enabled: boolean; externalCacheMaxAgeMs: number }>;
  /** Seals and opens stored secrets (webhook secrets). */
  secrets: SecretBox;
  /** gateway.mirror.*: the URL template (null: no mirror), where its credentials are, how long a reconcile waits. */
  mirror: Readonly<{ url: string | null; credentials: SecretReference | null; reconcileWaitMs: number }>;
  /** The instance's Prometheus metrics (docs/metrics.md): one registry per gateway, never a global. */
  metrics: Metrics;
  /** gateway.outbound.deny-networks: what the gateway's own requests may reach (decision 340). */
  outbound: OutboundBoundary;
  /** The revocation check's captures and tokens in memory (decision 438); absent: the read models answer. */
  facadeMemory?: FacadeMemory;
}>;

/** Who acts: enough to resolve roles (people also carry their identity-provider claims). */
export type Actor = Readonly<{ principal: string; actorType: ActorType; claims: Readonly<Record<string, unknown>> }>;
