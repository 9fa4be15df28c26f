import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyBaseLogger, FastifyInstance, RawReplyDefaultExpression, RawRequestDefaultExpression, RawServerDefault } from 'fastify';
import type { EventStore } from '../adapters/eventstore/port.ts';
import type { GitStore } from '../adapters/git/git-store.ts';
import type { OidcProvider } from '../adapters/identity/oidc.ts';
import type { IdAllocator } from '../adapters/postgres/id-allocator.ts';
import type { DatabasePool } from '../adapters/postgres/pool.ts';
import type { SessionStore } from '../adapters/postgres/session-store.ts';
import type { Clock } from '../adapters/system/clock.ts';
import type { Metrics } from '../adapters/system/metrics.ts';
import type { Connector } from '../adapters/vetting/connector.ts';
import type { SecretBox } from '../adapters/system/secret-box.ts';
import type { ClaimMapping } from '../domain/role/permissions.ts';
import type { ProjectionWaiter } from '../projections/runner/wait-for.ts';
import type { CatalogBuilder } from '../projections/catalog/catalog-builder.ts';

export type HttpApp = FastifyInstance<RawServerDefault, RawRequestDefaultExpression, RawReplyDefaultExpression, FastifyBaseLogger, TypeBoxTypeProvider>;

export type AccessSettings = Readonly<{
  configAdmins: readonly string[];
  claimMappings: readonly ClaimMapping[];
  devInsecureAuth: boolean;
  sessionTtlMs: number;
  maxTtlMs: number | null;
}>;

/** The connector chain and the settings of gateway.vetting.* that runs read. */
export type VettingSettingsDeps = Readonly<{
  /** Every connector the gateway has, in default order. */
  connectors: readonly Connector[];
  timeoutMs: number;
  maxFileBytes: number;
  license: Readonly<{ allow: readonly string[]; ban: readonly string[] }>;
  revetMode: 'WARN' | 'ENFORCE';
}>;

/** Everything a route may use, passed explicitly (no fastify decorators for services). */
export type HttpDeps = Readonly<{
  baseUrl: string;
  version: string | null;
  bodyLimitBytes: number;
  logger: FastifyBaseLogger;
  problemsDir: string;
  store: EventStore;
  waiter: ProjectionWaiter;
  pool: DatabasePool;
  clock: Clock;
  ids: IdAllocator;
  sessions: SessionStore;
  identity: OidcProvider | null;
  access: AccessSettings;
  catalog: Readonly<{ enabled: boolean; name: string }>;
  /** Builds and serves the virtual catalog; null when it is disabled. */
  catalogBuilder: CatalogBuilder | null;
  gitStore: GitStore;
  facade: Readonly<{ idpBearerEnabled: boolean }>;
  metrics: Metrics;
  auditExport: Readonly<{ defaultPageSize: number; maxPageSize: number; lagMs: number }>;
  marketplaces: Readonly<{ allowedUrlSchemes: readonly string[]; minimumReleaseAgeMs: number }>;
  vetting: VettingSettingsDeps;
  /** Seals and opens stored secrets (webhook secrets). */
  secrets: SecretBox;
  sync: Readonly<{ maxWebhookBodyBytes: number }>;
  checks: Readonly<{ database(): Promise<void>; eventStore(): Promise<void> }>;
}>;
