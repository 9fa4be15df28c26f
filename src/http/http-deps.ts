import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { AuditSigningKey } from '../adapters/system/audit-signing-key.ts';
import type {
  FastifyBaseLogger,
  FastifyInstance,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
} from 'fastify';
import type { OidcProvider } from '../adapters/identity/oidc.ts';
import type { SessionStore } from '../adapters/postgres/session-store.ts';
import type { IngestRegistry } from '../application/marketplaces/ingest-registry.ts';
import type { Ports } from '../application/kernel/ports.ts';
import type { CatalogService } from '../application/catalog/catalog-reads.use-case.ts';
import type { FacadeCredentialDeps } from './auth/facade-credentials.ts';
import type { RateLimitSettings } from './limits/rate-limit-settings.ts';

export type HttpApp = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>;

/** Everything a route may use, passed explicitly (no fastify decorators for services). */
export type HttpDeps = Ports &
  Readonly<{
    baseUrl: string;
    version: string | null;
    bodyLimitBytes: number;
    problemsDir: string;
    sessions: SessionStore;
    identity: OidcProvider | null;
    /** Builds and serves the virtual catalog; null when it is disabled. */
    catalogBuilder: CatalogService | null;
    facade: Readonly<{ idpBearerEnabled: boolean }>;
    auditExport: Readonly<{ defaultPageSize: number; maxPageSize: number; lagMs: number }>;
    /** The key that signs ledger checkpoints (docs/audit.md); absent in tools and tests that build deps by hand. */
    auditSigning?: AuditSigningKey;
    sync: Readonly<{ maxWebhookBodyBytes: number }>;
    /** gateway.estate.file: the declared estate, re-read at each reconciliation; null when none. */
    estate: Readonly<{ file: string | null }>;
    /** The health probes; `onConnectionLost` tells when their database connection was lost (an earlier probe is stale). */
    checks: Readonly<{
      database(): Promise<void>;
      eventStore(): Promise<void>;
      onConnectionLost?(listener: () => void): void;
    }>;
    /** Every ingest of this process waits and runs here, with its progress (gateway.ingest.concurrency). */
    ingests: IngestRegistry;
    /** gateway.rate-limit.*; absent: nothing is limited. */
    rateLimit?: RateLimitSettings;
    /** gateway.server.trusted-proxies: whose X-Forwarded-For names the client address; absent or empty: none. */
    trustedProxies?: readonly string[];
  }>;

/** What server.ts registers an area's plugin with (`app.register(plugin, { deps })`). */
export type AreaOptions = Readonly<{ deps: HttpDeps }>;

/** The git surfaces' and the revocation check's plugins also take the facade's credential check. */
export type WireOptions = AreaOptions & Readonly<{ credentials: FacadeCredentialDeps }>;
