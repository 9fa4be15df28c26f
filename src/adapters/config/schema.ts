// The gateway's configuration model: one table entry per dotted configuration key, and the
// TypeBox schema of the typed, camelCase configuration object that `loadConfig` returns.
// The table drives everything else: the YAML walk (known keys and blocks), the environment
// overrides, per-key validation, `gateway --help` and the README (via `configKeys()`).
import { Type, type Static, type TSchema } from 'typebox';

/**
 * A configuration problem. The message is always ONE line and starts with the dotted key
 * (or with `config file <path>` for problems with the file itself). Values of secret keys
 * never appear in it.
 */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  /** The dotted key the problem is about; null when it is about the config file as a whole. */
  readonly key: string | null;
  /** The message without the leading key. */
  readonly problem: string;

  constructor(key: string | null, problem: string) {
    const oneLine = problem.replace(/[\r\n]+/g, ' ');
    super(key === null ? oneLine : `${key}: ${oneLine}`);
    this.key = key;
    this.problem = oneLine;
  }
}

// ---------------------------------------------------------------------------------------
// Allowed values of the enum keys (single source for the table and the result schema).

export const logLevels = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export const eventStoreBackends = ['postgres', 'eventstoredb'] as const;
export const storageBackends = ['filesystem', 'object-store'] as const;
export const revetModes = ['WARN', 'ENFORCE'] as const;
export const claimMappingRoles = ['admin', 'approver', 'auditor'] as const;

export type LogLevel = (typeof logLevels)[number];
export type EventStoreBackend = (typeof eventStoreBackends)[number];
export type StorageBackend = (typeof storageBackends)[number];
export type RevetMode = (typeof revetModes)[number];
export type ClaimMappingRole = (typeof claimMappingRoles)[number];

/** spec, Limits: marketplace name ^[a-z0-9][a-z0-9_-]{0,62}$ (kept local so this module stands alone). */
export const catalogNamePattern = '^[a-z0-9][a-z0-9_-]{0,62}$';

// ---------------------------------------------------------------------------------------
// The typed result.

const NullableString = Type.Union([Type.String(), Type.Null()]);
const Millis = Type.Integer();
const closed = { additionalProperties: false } as const;

export const ClaimMappingSchema = Type.Object(
  {
    claim: Type.String(),
    value: Type.String(),
    role: Type.Enum(claimMappingRoles),
    marketplace: NullableString,
  },
  closed,
);
export type ClaimMapping = Static<typeof ClaimMappingSchema>;

export const GatewayConfigSchema = Type.Object(
  {
    dataDir: Type.String(),
    allowedUrlSchemes: Type.Array(Type.String()),
    devInsecureAuth: Type.Boolean(),
    baseUrl: Type.String(),
    server: Type.Object(
      {
        host: Type.String(),
        port: Type.Integer({ minimum: 0, maximum: 65535 }),
        shutdownTimeoutMs: Millis,
        bodyLimitBytes: Type.Integer({ minimum: 1 }),
      },
      closed,
    ),
    log: Type.Object({ level: Type.Enum(logLevels) }, closed),
    database: Type.Object({ url: NullableString }, closed),
    eventStore: Type.Object({ backend: Type.Enum(eventStoreBackends), url: NullableString }, closed),
    projections: Type.Object(
      { waitTimeoutMs: Millis, batchSize: Type.Integer({ minimum: 1 }) },
      closed,
    ),
    storage: Type.Object(
      {
        backend: Type.Enum(storageBackends),
        objectStore: Type.Object(
          {
            bucket: NullableString,
            region: NullableString,
            endpoint: NullableString,
            cacheDir: NullableString,
          },
          closed,
        ),
      },
      closed,
    ),
    oidc: Type.Object(
      {
        issuer: NullableString,
        clientId: NullableString,
        clientSecret: NullableString,
        scopes: Type.Array(Type.String()),
        audience: NullableString,
        userNameAttribute: Type.String(),
      },
      closed,
    ),
    roles: Type.Object(
      { admins: Type.Array(Type.String()), claimMappings: Type.Array(ClaimMappingSchema) },
      closed,
    ),
    facade: Type.Object({ idpBearerEnabled: Type.Boolean() }, closed),
    catalog: Type.Object({ enabled: Type.Boolean(), name: Type.String() }, closed),
    sync: Type.Object({ schedule: Type.String(), maxWebhookBodyBytes: Type.Integer({ minimum: 1 }) }, closed),
    webhooks: Type.Object(
      {
        enabled: Type.Boolean(),
        pollIntervalMs: Millis,
        baseBackoffMs: Millis,
        maxBackoffMs: Millis,
        maxAttempts: Type.Integer({ minimum: 1 }),
        timeoutMs: Millis,
        batchSize: Type.Integer({ minimum: 1 }),
      },
      closed,
    ),
    auditExport: Type.Object(
      {
        enabled: Type.Boolean(),
        pollIntervalMs: Millis,
        lagMs: Millis,
        batchSize: Type.Integer({ minimum: 1 }),
        defaultPageSize: Type.Integer({ minimum: 1 }),
        maxPageSize: Type.Integer({ minimum: 1 }),
      },
      closed,
    ),
    vetting: Type.Object(
      {
        timeoutMs: Millis,
        maxFileBytes: Type.Integer({ minimum: 1 }),
        waiverSweepIntervalMs: Millis,
        waiverSweepBatchSize: Type.Integer({ minimum: 1 }),
        minimumReleaseAgeMs: Millis,
        license: Type.Object({ allow: Type.Array(Type.String()), ban: Type.Array(Type.String()) }, closed),
        revet: Type.Object({ mode: Type.Enum(revetModes), schedule: Type.String() }, closed),
        http: Type.Object({ url: Type.Union([Type.String(), Type.Null()]), timeoutMs: Millis }, closed),
      },
      closed,
    ),
    retention: Type.Object(
      {
        enabled: Type.Boolean(),
        heldMaxAgeMs: Millis,
        supersededEnabled: Type.Boolean(),
        supersededMinAgeMs: Millis,
        minIdleMs: Millis,
        restoreWindowMs: Millis,
        pollIntervalMs: Millis,
        compactionIntervalMs: Millis,
        stagingRefMaxAgeMs: Millis,
      },
      closed,
    ),
    tokens: Type.Object({ maxTtlMs: Type.Union([Millis, Type.Null()]), sessionTtlMs: Millis }, closed),
    secrets: Type.Object({ key: NullableString }, closed),
    estate: Type.Object({ file: NullableString }, closed),
    mirror: Type.Object({ url: NullableString, credentials: NullableString }, closed),
  },
  closed,
);

/** The typed configuration. `loadConfig` returns it deeply frozen. */
export type GatewayConfig = Static<typeof GatewayConfigSchema>;

// ---------------------------------------------------------------------------------------
// The key table.

export type ConfigKind =
  | 'string'
  | 'integer'
  | 'boolean'
  | 'duration'
  | 'enum'
  | 'string-list'
  | 'claim-mappings';

/** A default as it would be written in gateway.yaml; null means "unset". */
export type ConfigDefault = string | number | boolean | readonly string[] | null;

export interface ConfigKeySpec {
  /** Dotted key, e.g. `gateway.webhooks.max-attempts`. */
  readonly key: string;
  readonly kind: ConfigKind;
  /** Dotted camelCase path of the value in GatewayConfig, e.g. `webhooks.maxAttempts`. */
  readonly prop: string;
  readonly default: ConfigDefault;
  readonly description: string;
  /** enum: the allowed values. */
  readonly allowed?: readonly string[];
  /** integer: inclusive bounds. */
  readonly min?: number;
  readonly max?: number;
  /** duration: a leading `-` is accepted. */
  readonly allowNegative?: boolean;
  /** duration: must be greater than zero (poll intervals, timeouts, TTLs). */
  readonly positive?: boolean;
  /** string: a regular expression the value must match. */
  readonly pattern?: string;
  /** Holds a secret: its value never appears in an error message. */
  readonly secret?: boolean;
  /** False when the key cannot be set from the environment (file only). */
  readonly envOverride?: boolean;
}

const MAX_INT = Number.MAX_SAFE_INTEGER;
const count = { min: 1, max: MAX_INT } as const;

export const configKeyTable: readonly ConfigKeySpec[] = [
  // -- general
  { key: 'gateway.data-dir', kind: 'string', prop: 'dataDir', default: 'data',
    description: 'Local storage root: embedded database, git store, generated secrets; resolved against the working directory.' },
  { key: 'gateway.allowed-url-schemes', kind: 'string-list', prop: 'allowedUrlSchemes', default: ['http', 'https'],
    description: 'URL schemes accepted for marketplace sources and webhook targets (compared lower-cased; an empty list means the default).' },
  { key: 'gateway.dev-insecure-auth', kind: 'boolean', prop: 'devInsecureAuth', default: false,
    description: 'Development only: trust caller-asserted identities. Cannot be combined with gateway.oidc.issuer.' },
  { key: 'gateway.base-url', kind: 'string', prop: 'baseUrl', default: 'http://127.0.0.1:8080',
    description: 'Public http(s) base URL of the gateway (used in links and problem types); stored without a trailing slash.' },
  // -- server
  { key: 'gateway.server.host', kind: 'string', prop: 'server.host', default: '127.0.0.1',
    description: 'Interface the HTTP server listens on.' },
  { key: 'gateway.server.port', kind: 'integer', prop: 'server.port', default: 8080, min: 0, max: 65535,
    description: 'TCP port of the HTTP server (0 = any free port). The PORT environment variable wins over everything.' },
  { key: 'gateway.server.shutdown-timeout', kind: 'duration', prop: 'server.shutdownTimeoutMs', default: '10s', positive: true,
    description: 'How long a graceful shutdown waits for in-flight requests.' },
  { key: 'gateway.server.body-limit-bytes', kind: 'integer', prop: 'server.bodyLimitBytes', default: 1048576, ...count,
    description: 'Largest accepted request body, in bytes.' },
  // -- log
  { key: 'gateway.log.level', kind: 'enum', prop: 'log.level', default: 'info', allowed: logLevels,
    description: 'Minimum level of log lines written to stdout.' },
  // -- database / event store / projections
  { key: 'gateway.database.url', kind: 'string', prop: 'database.url', default: null, secret: true,
    description: 'PostgreSQL connection URL; unset means an embedded PostgreSQL in the data directory.' },
  { key: 'gateway.event-store.backend', kind: 'enum', prop: 'eventStore.backend', default: 'postgres', allowed: eventStoreBackends,
    description: 'Event store implementation.' },
  { key: 'gateway.event-store.url', kind: 'string', prop: 'eventStore.url', default: null, secret: true,
    description: 'EventStoreDB connection string; required when gateway.event-store.backend is eventstoredb.' },
  { key: 'gateway.projections.wait-timeout', kind: 'duration', prop: 'projections.waitTimeoutMs', default: '5s', positive: true,
    description: 'How long a read waits for projections to catch up with a write before answering projection-lag.' },
  { key: 'gateway.projections.batch-size', kind: 'integer', prop: 'projections.batchSize', default: 500, ...count,
    description: 'Events applied per projection batch.' },
  // -- storage
  { key: 'gateway.storage.backend', kind: 'enum', prop: 'storage.backend', default: 'filesystem', allowed: storageBackends,
    description: 'Blob storage: the data directory, or an S3-compatible object store.' },
  { key: 'gateway.storage.object-store.bucket', kind: 'string', prop: 'storage.objectStore.bucket', default: null,
    description: 'Object-store bucket; required when gateway.storage.backend is object-store.' },
  { key: 'gateway.storage.object-store.region', kind: 'string', prop: 'storage.objectStore.region', default: null,
    description: 'Object-store region; required when gateway.storage.backend is object-store.' },
  { key: 'gateway.storage.object-store.endpoint', kind: 'string', prop: 'storage.objectStore.endpoint', default: null,
    description: 'Object-store endpoint URL for S3-compatible services; unset means the provider default.' },
  { key: 'gateway.storage.object-store.cache-dir', kind: 'string', prop: 'storage.objectStore.cacheDir', default: null,
    description: 'Local cache directory for object-store blobs; unset means no local cache.' },
  // -- oidc
  { key: 'gateway.oidc.issuer', kind: 'string', prop: 'oidc.issuer', default: null,
    description: 'OpenID Connect issuer URL; setting it enables sign-in through the identity provider.' },
  { key: 'gateway.oidc.client-id', kind: 'string', prop: 'oidc.clientId', default: null,
    description: 'OpenID Connect client id; required when gateway.oidc.issuer is set.' },
  { key: 'gateway.oidc.client-secret', kind: 'string', prop: 'oidc.clientSecret', default: null, secret: true,
    description: 'OpenID Connect client secret (confidential clients).' },
  { key: 'gateway.oidc.scopes', kind: 'string-list', prop: 'oidc.scopes', default: ['openid', 'profile', 'email'],
    description: 'Scopes requested at sign-in.' },
  { key: 'gateway.oidc.audience', kind: 'string', prop: 'oidc.audience', default: null,
    description: 'Expected token audience; unset means the client id.' },
  { key: 'gateway.oidc.user-name-attribute', kind: 'string', prop: 'oidc.userNameAttribute', default: 'sub',
    description: 'Token claim used as the user name.' },
  // -- roles
  { key: 'gateway.roles.admins', kind: 'string-list', prop: 'roles.admins', default: [],
    description: 'User names that are always admins.' },
  { key: 'gateway.roles.claim-mappings', kind: 'claim-mappings', prop: 'roles.claimMappings', default: [], envOverride: false,
    description: 'Grants from token claims: a list of {claim, value, role: admin|approver|auditor, marketplace} ' +
      '(marketplace required for approver, forbidden otherwise). File only.' },
  // -- facade / catalog / sync
  { key: 'gateway.facade.idp-bearer.enabled', kind: 'boolean', prop: 'facade.idpBearerEnabled', default: false,
    description: 'Accept identity-provider bearer tokens on the git facade (besides gateway tokens).' },
  { key: 'gateway.catalog.enabled', kind: 'boolean', prop: 'catalog.enabled', default: true,
    description: 'Serve the aggregated catalog marketplace.' },
  { key: 'gateway.catalog.name', kind: 'string', prop: 'catalog.name', default: 'catalog', pattern: catalogNamePattern,
    description: 'Name of the aggregated catalog marketplace (a marketplace name).' },
  { key: 'gateway.sync.schedule', kind: 'string', prop: 'sync.schedule', default: '*/15 * * * *',
    description: 'Cron expression (5 or 6 fields) for scheduled ingestion of marketplaces in scheduled sync mode.' },
  { key: 'gateway.sync.max-webhook-body-bytes', kind: 'integer', prop: 'sync.maxWebhookBodyBytes', default: 1048576, ...count,
    description: 'Largest accepted inbound forge webhook body (POST /hooks/{marketplace}), in bytes; larger bodies get 413.' },
  // -- webhooks
  { key: 'gateway.webhooks.enabled', kind: 'boolean', prop: 'webhooks.enabled', default: true,
    description: 'Dispatch outbound lifecycle webhooks; false pauses delivery, not emission.' },
  { key: 'gateway.webhooks.poll-interval', kind: 'duration', prop: 'webhooks.pollIntervalMs', default: '5s', positive: true,
    description: 'Interval of the webhook dispatch pass.' },
  { key: 'gateway.webhooks.base-backoff', kind: 'duration', prop: 'webhooks.baseBackoffMs', default: '10s',
    description: 'Delay after attempt n is base * 2^(n-1), capped by max-backoff.' },
  { key: 'gateway.webhooks.max-backoff', kind: 'duration', prop: 'webhooks.maxBackoffMs', default: '1h',
    description: 'Largest retry delay (at least gateway.webhooks.base-backoff).' },
  { key: 'gateway.webhooks.max-attempts', kind: 'integer', prop: 'webhooks.maxAttempts', default: 5, ...count,
    description: 'Attempts, the first included, before a delivery is failed and never retried.' },
  { key: 'gateway.webhooks.timeout', kind: 'duration', prop: 'webhooks.timeoutMs', default: '10s', positive: true,
    description: 'Connect and read timeout of one delivery attempt.' },
  { key: 'gateway.webhooks.batch-size', kind: 'integer', prop: 'webhooks.batchSize', default: 50, ...count,
    description: 'Deliveries per dispatch pass.' },
  // -- audit export
  { key: 'gateway.audit-export.enabled', kind: 'boolean', prop: 'auditExport.enabled', default: true,
    description: 'Push the ledger to audit sinks; false pauses push only (the pull export still works).' },
  { key: 'gateway.audit-export.poll-interval', kind: 'duration', prop: 'auditExport.pollIntervalMs', default: '30s', positive: true,
    description: 'Interval at which each enabled sink is offered its next batch.' },
  { key: 'gateway.audit-export.lag', kind: 'duration', prop: 'auditExport.lagMs', default: '5s',
    description: 'Ledger entries younger than this are withheld from pull and push (commit-settling lag).' },
  { key: 'gateway.audit-export.batch-size', kind: 'integer', prop: 'auditExport.batchSize', default: 500, ...count,
    description: 'Ledger entries per sink batch (a per-sink override is clamped to max-page-size).' },
  { key: 'gateway.audit-export.default-page-size', kind: 'integer', prop: 'auditExport.defaultPageSize', default: 1000, ...count,
    description: 'Default page size of GET /api/v1/audit and the export (at most max-page-size).' },
  { key: 'gateway.audit-export.max-page-size', kind: 'integer', prop: 'auditExport.maxPageSize', default: 10000, ...count,
    description: 'Cap on the page size of GET /api/v1/audit and the export.' },
  // -- vetting
  { key: 'gateway.vetting.timeout', kind: 'duration', prop: 'vetting.timeoutMs', default: '30s', positive: true,
    description: 'A connector exceeding it records ERROR, which blocks.' },
  { key: 'gateway.vetting.max-file-bytes', kind: 'integer', prop: 'vetting.maxFileBytes', default: 1048576, ...count,
    description: 'Larger files are reported as an informational file-not-scanned finding.' },
  { key: 'gateway.vetting.waiver-sweep-interval', kind: 'duration', prop: 'vetting.waiverSweepIntervalMs', default: '1h', positive: true,
    description: 'Interval of the sweep that lapses expired waivers.' },
  { key: 'gateway.vetting.waiver-sweep-batch-size', kind: 'integer', prop: 'vetting.waiverSweepBatchSize', default: 200, ...count,
    description: 'Waivers lapsed per sweep batch.' },
  { key: 'gateway.vetting.minimum-release-age', kind: 'duration', prop: 'vetting.minimumReleaseAgeMs', default: '0s',
    description: 'Cooling-off before a commit can be approved; 0s is no window.' },
  { key: 'gateway.vetting.license.allow', kind: 'string-list', prop: 'vetting.license.allow', default: [],
    description: 'SPDX ids of allowed licenses; empty: identified licenses are informational.' },
  { key: 'gateway.vetting.license.ban', kind: 'string-list', prop: 'vetting.license.ban', default: [],
    description: 'SPDX ids of banned licenses.' },
  { key: 'gateway.vetting.revet.mode', kind: 'enum', prop: 'vetting.revet.mode', default: 'WARN', allowed: revetModes,
    description: 'Continuous re-vetting: WARN records violations, ENFORCE also revokes the snapshot.' },
  { key: 'gateway.vetting.http.url', kind: 'string', prop: 'vetting.http.url', default: null,
    description: 'External scanner the `http` vetting connector POSTs each snapshot to; unset leaves the connector out of the chain.' },
  { key: 'gateway.vetting.http.timeout', kind: 'duration', prop: 'vetting.http.timeoutMs', default: '20s', positive: true,
    description: 'How long the `http` connector waits for the external scanner (gateway.vetting.timeout still bounds the whole connector).' },
  { key: 'gateway.vetting.revet.schedule', kind: 'string', prop: 'vetting.revet.schedule', default: '0 3 * * *',
    description: 'Cron expression (5 or 6 fields) for scheduled re-vetting.' },
  // -- retention
  { key: 'gateway.retention.enabled', kind: 'boolean', prop: 'retention.enabled', default: false,
    description: 'Run retention passes on a schedule (on-demand passes work regardless).' },
  { key: 'gateway.retention.held-max-age', kind: 'duration', prop: 'retention.heldMaxAgeMs', default: '90d', allowNegative: true,
    description: 'Held snapshots older than this are soft-deleted (held-too-long); zero or negative disables the criterion.' },
  { key: 'gateway.retention.superseded', kind: 'boolean', prop: 'retention.supersededEnabled', default: true,
    description: 'Soft-delete held, rejected or revoked snapshots superseded by a later approved snapshot.' },
  { key: 'gateway.retention.superseded-min-age', kind: 'duration', prop: 'retention.supersededMinAgeMs', default: '30d',
    description: 'Superseded snapshots younger than this are kept.' },
  { key: 'gateway.retention.min-idle', kind: 'duration', prop: 'retention.minIdleMs', default: '30d',
    description: 'Fetch-recency veto: a candidate whose commit was fetched within this window is kept.' },
  { key: 'gateway.retention.restore-window', kind: 'duration', prop: 'retention.restoreWindowMs', default: '14d',
    description: 'A soft-deleted snapshot can be restored for this long (purgeAfter = deletion + window).' },
  { key: 'gateway.retention.poll-interval', kind: 'duration', prop: 'retention.pollIntervalMs', default: '1h', positive: true,
    description: 'Interval of the retention evaluation pass.' },
  { key: 'gateway.retention.compaction-interval', kind: 'duration', prop: 'retention.compactionIntervalMs', default: '6h', positive: true,
    description: 'Interval of the compaction pass (purges, sweeps).' },
  { key: 'gateway.retention.staging-ref-max-age', kind: 'duration', prop: 'retention.stagingRefMaxAgeMs', default: '24h', allowNegative: true,
    description: 'Abandoned staging refs observed longer than this are removed; zero or negative disables the sweep.' },
  // -- tokens / secrets / estate / mirror
  { key: 'gateway.tokens.max-ttl', kind: 'duration', prop: 'tokens.maxTtlMs', default: null, positive: true,
    description: 'Token lifetime cap; requests beyond it are refused, never shortened. Unset: no cap for personal tokens, 90 days for machine credentials.' },
  { key: 'gateway.tokens.session-ttl', kind: 'duration', prop: 'tokens.sessionTtlMs', default: '8h', positive: true,
    description: 'Lifetime of session-derived credentials and of browser sessions.' },
  { key: 'gateway.secrets.key', kind: 'string', prop: 'secrets.key', default: null, secret: true,
    description: 'AES-256-GCM key for stored secrets (webhook and signing secrets); unset means one is generated into the data directory.' },
  { key: 'gateway.estate.file', kind: 'string', prop: 'estate.file', default: null,
    description: 'Declarative estate (marketplaces, grants, webhooks, audit sinks) reconciled at startup.' },
  { key: 'gateway.mirror.url', kind: 'string', prop: 'mirror.url', default: null,
    description: 'Read-only forge mirror of the published repositories; unset means no mirror.' },
  { key: 'gateway.mirror.credentials', kind: 'string', prop: 'mirror.credentials', default: null, secret: true,
    description: 'Credentials for pushing to the mirror (never logged or reported).' },
];

/** The environment variable that overrides a key: upper-cased, `.` and `-` turned to `_`. */
export const envVarName = (key: string): string => key.toUpperCase().replace(/[.-]/g, '_');

/** A claim mapping entry as written in the file, before defaults (marketplace optional). */
export const ClaimMappingInputSchema = Type.Object(
  {
    claim: Type.String({ minLength: 1 }),
    value: Type.String({ minLength: 1 }),
    role: Type.Enum(claimMappingRoles),
    marketplace: Type.Optional(Type.String({ pattern: catalogNamePattern })),
  },
  closed,
);

/** The TypeBox schema a value of the given key must satisfy once read (durations: the text form). */
export function valueSchemaOf(spec: ConfigKeySpec): TSchema {
  switch (spec.kind) {
    case 'string':
      return spec.pattern === undefined
        ? Type.String({ minLength: 1 })
        : Type.String({ minLength: 1, pattern: spec.pattern });
    case 'integer':
      return Type.Integer({ minimum: spec.min ?? 0, maximum: spec.max ?? MAX_INT });
    case 'boolean':
      return Type.Boolean();
    case 'duration':
      return Type.Union([Type.String(), Type.Literal(0)]);
    case 'enum':
      return Type.Enum([...(spec.allowed ?? [])]);
    case 'string-list':
      return Type.Array(Type.String({ minLength: 1 }));
    case 'claim-mappings':
      return Type.Array(ClaimMappingInputSchema);
  }
}
