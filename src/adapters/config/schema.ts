// The one description of the gateway's configuration: a tree shaped like the typed, camelCase
// GatewayConfig with one entry per dotted key (kind, default, description, checks, whether its
// feature is built). The result schema, the key table, the YAML walk, the environment variables,
// `gateway config` and docs/configuration.md are all derived from it: adding a key is one entry.
import { Type, type Static, type TArray } from 'typebox';
import { cronSchedule, httpUrl } from './checks.ts';
import {
  choice,
  count,
  duration,
  flag,
  integer,
  keysOf,
  list,
  objectSchemaOf,
  optionalDuration,
  optionalText,
  text,
  type ConfigKeySpec,
  type PlacedKeySpec,
} from './key-spec.ts';

export { ConfigError } from './config-error.ts';
export type { ConfigDefault, ConfigKeySpec, ConfigKind } from './key-spec.ts';

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

const closed = { additionalProperties: false } as const;

export const ClaimMappingSchema = Type.Object(
  {
    claim: Type.String(),
    value: Type.String(),
    role: Type.Enum(claimMappingRoles),
    marketplace: Type.Union([Type.String(), Type.Null()]),
  },
  closed,
);
export type ClaimMapping = Static<typeof ClaimMappingSchema>;

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

const claimMappings = (key: string, description: string): ConfigKeySpec<TArray<typeof ClaimMappingSchema>> => ({
  key,
  kind: 'claim-mappings',
  schema: Type.Array(ClaimMappingSchema),
  default: [],
  description,
  fileOnly: true,
});

const url = httpUrl({ bare: false });
const notBuilt = { notBuilt: true } as const;
/** Every block below `gateway.`, as the description names it: shorter entries, same keys. */
const g = (rest: string): string => `gateway.${rest}`;

export const configDescription = {
  dataDir: text(
    g('data-dir'),
    'data',
    'Local storage root: embedded database, git store, generated secrets; resolved against the working directory.',
  ),
  allowedUrlSchemes: list(
    g('allowed-url-schemes'),
    ['http', 'https'],
    'URL schemes accepted for marketplace sources and webhook targets ' +
      '(compared lower-cased; an empty list means the default).',
  ),
  devInsecureAuth: flag(
    g('dev-insecure-auth'),
    false,
    'Development only: any caller can act as anyone via X-Dev-User (a warning is logged at startup). ' +
      'Cannot be combined with gateway.oidc.issuer.',
  ),
  baseUrl: text(
    g('base-url'),
    {
      text: 'http://127.0.0.1:<port>',
      from: (valueOf) => `http://127.0.0.1:${String(valueOf(g('server.port')))}`,
    },
    'Public http(s) base URL of the gateway (links, problem types, the OpenAPI servers), ' +
      'stored without a trailing slash. Unset: http://127.0.0.1 on the port in force (PORT, else gateway.server.port).',
    {
      check: httpUrl({ bare: true }),
      normalise: (v) => new URL(v).href.replace(/\/+$/, ''), // so `${baseUrl}/path` is always right
    },
  ),
  server: {
    host: text(g('server.host'), '127.0.0.1', 'Interface the HTTP server listens on.'),
    port: integer(
      g('server.port'),
      8080,
      'TCP port of the HTTP server (0 = any free port). The PORT environment variable wins over everything.',
      { max: 65535 },
    ),
    shutdownTimeoutMs: duration(
      g('server.shutdown-timeout'),
      '10s',
      'How long a graceful shutdown waits for in-flight requests.',
      { positive: true },
    ),
    bodyLimitBytes: count(g('server.body-limit-bytes'), 1048576, 'Largest accepted request body, in bytes.'),
  },
  log: { level: choice(g('log.level'), logLevels, 'info', 'Minimum level of log lines written to stdout.') },
  database: {
    url: optionalText(
      g('database.url'),
      'PostgreSQL connection URL; unset means an embedded PostgreSQL in the data directory.',
      { secret: true },
    ),
  },
  eventStore: {
    backend: choice(g('event-store.backend'), eventStoreBackends, 'postgres', 'Event store implementation.'),
    url: optionalText(
      g('event-store.url'),
      'EventStoreDB connection string; required when gateway.event-store.backend is eventstoredb.',
      { secret: true },
    ),
  },
  projections: {
    waitTimeoutMs: duration(
      g('projections.wait-timeout'),
      '5s',
      'How long a read waits for projections to catch up with a write before answering projection-lag.',
      { positive: true },
    ),
    batchSize: count(g('projections.batch-size'), 500, 'Events applied per projection batch.'),
  },
  storage: {
    backend: choice(
      g('storage.backend'),
      storageBackends,
      'filesystem',
      'Blob storage: the data directory, or an S3-compatible object store.',
      { notBuiltValues: ['object-store'] },
    ),
    objectStore: {
      bucket: optionalText(
        g('storage.object-store.bucket'),
        'Object-store bucket; required when gateway.storage.backend is object-store.',
        notBuilt,
      ),
      region: optionalText(
        g('storage.object-store.region'),
        'Object-store region; required when gateway.storage.backend is object-store.',
        notBuilt,
      ),
      endpoint: optionalText(
        g('storage.object-store.endpoint'),
        'Object-store endpoint URL for S3-compatible services; unset means the provider default.',
        { ...notBuilt, check: url },
      ),
      cacheDir: optionalText(
        g('storage.object-store.cache-dir'),
        'Local cache directory for object-store blobs; unset means no local cache.',
        notBuilt,
      ),
    },
  },
  oidc: {
    issuer: optionalText(
      g('oidc.issuer'),
      'OpenID Connect issuer URL; setting it enables sign-in through the identity provider.',
      { check: url },
    ),
    clientId: optionalText(g('oidc.client-id'), 'OpenID Connect client id; required when gateway.oidc.issuer is set.'),
    clientSecret: optionalText(g('oidc.client-secret'), 'OpenID Connect client secret (confidential clients).', {
      secret: true,
    }),
    scopes: list(g('oidc.scopes'), ['openid', 'profile', 'email'], 'Scopes requested at sign-in.'),
    audience: optionalText(g('oidc.audience'), 'Expected token audience; unset means the client id.'),
    userNameAttribute: text(g('oidc.user-name-attribute'), 'sub', 'Token claim used as the user name.'),
  },
  roles: {
    admins: list(g('roles.admins'), [], 'User names that are always admins.'),
    claimMappings: claimMappings(
      g('roles.claim-mappings'),
      'Grants from token claims: a list of {claim, value, role: admin|approver|auditor, marketplace} ' +
        '(marketplace required for approver, forbidden otherwise). File only.',
    ),
  },
  facade: {
    idpBearerEnabled: flag(
      g('facade.idp-bearer.enabled'),
      false,
      'Accept identity-provider bearer tokens on the git facade (besides gateway tokens).',
    ),
  },
  catalog: {
    enabled: flag(g('catalog.enabled'), true, 'Serve the aggregated catalog marketplace.'),
    name: text(g('catalog.name'), 'catalog', 'Name of the aggregated catalog marketplace (a marketplace name).', {
      pattern: catalogNamePattern,
    }),
  },
  sync: {
    schedule: text(
      g('sync.schedule'),
      '*/15 * * * *',
      'Cron expression (5 or 6 fields, as node-cron reads it) for scheduled ingestion of marketplaces ' +
        'in scheduled sync mode.',
      { check: cronSchedule },
    ),
    maxWebhookBodyBytes: count(
      g('sync.max-webhook-body-bytes'),
      1048576,
      'Largest accepted inbound forge webhook body (POST /hooks/{marketplace}), in bytes; larger bodies get 413.',
    ),
  },
  webhooks: {
    enabled: flag(
      g('webhooks.enabled'),
      true,
      'Dispatch outbound lifecycle webhooks; false pauses delivery, not emission.',
      notBuilt,
    ),
    pollIntervalMs: duration(g('webhooks.poll-interval'), '5s', 'Interval of the webhook dispatch pass.', {
      ...notBuilt,
      positive: true,
    }),
    baseBackoffMs: duration(
      g('webhooks.base-backoff'),
      '10s',
      'Delay after attempt n is base * 2^(n-1), capped by max-backoff.',
      notBuilt,
    ),
    maxBackoffMs: duration(
      g('webhooks.max-backoff'),
      '1h',
      'Largest retry delay (at least gateway.webhooks.base-backoff).',
      notBuilt,
    ),
    maxAttempts: count(
      g('webhooks.max-attempts'),
      5,
      'Attempts, the first included, before a delivery is failed and never retried.',
      notBuilt,
    ),
    timeoutMs: duration(g('webhooks.timeout'), '10s', 'Connect and read timeout of one delivery attempt.', {
      ...notBuilt,
      positive: true,
    }),
    batchSize: count(g('webhooks.batch-size'), 50, 'Deliveries per dispatch pass.', notBuilt),
  },
  auditExport: {
    enabled: flag(
      g('audit-export.enabled'),
      true,
      'Push the ledger to audit sinks; false pauses push only (the pull export still works).',
      notBuilt,
    ),
    pollIntervalMs: duration(
      g('audit-export.poll-interval'),
      '30s',
      'Interval at which each enabled sink is offered its next batch.',
      { ...notBuilt, positive: true },
    ),
    lagMs: duration(
      g('audit-export.lag'),
      '5s',
      'Ledger entries younger than this are withheld from pull and push (commit-settling lag).',
    ),
    batchSize: count(
      g('audit-export.batch-size'),
      500,
      'Ledger entries per sink batch (a per-sink override is clamped to max-page-size).',
      notBuilt,
    ),
    defaultPageSize: count(
      g('audit-export.default-page-size'),
      1000,
      'Default page size of GET /api/v1/audit and the export (at most max-page-size).',
    ),
    maxPageSize: count(
      g('audit-export.max-page-size'),
      10000,
      'Cap on the page size of GET /api/v1/audit and the export.',
    ),
  },
  vetting: {
    timeoutMs: duration(g('vetting.timeout'), '30s', 'A connector exceeding it records ERROR, which blocks.', {
      positive: true,
    }),
    maxFileBytes: count(
      g('vetting.max-file-bytes'),
      1048576,
      'Larger files are reported as an informational file-not-scanned finding.',
    ),
    waiverSweepIntervalMs: duration(
      g('vetting.waiver-sweep-interval'),
      '1h',
      'Interval of the sweep that lapses expired waivers.',
      { positive: true },
    ),
    waiverSweepBatchSize: count(g('vetting.waiver-sweep-batch-size'), 200, 'Waivers lapsed per sweep batch.'),
    minimumReleaseAgeMs: duration(
      g('vetting.minimum-release-age'),
      '0s',
      'Cooling-off before a commit can be approved; 0s is no window.',
    ),
    license: {
      allow: list(
        g('vetting.license.allow'),
        [],
        'SPDX ids of allowed licenses; empty: identified licenses are informational.',
      ),
      ban: list(g('vetting.license.ban'), [], 'SPDX ids of banned licenses.'),
    },
    revet: {
      mode: choice(
        g('vetting.revet.mode'),
        revetModes,
        'WARN',
        'Continuous re-vetting: WARN records violations, ENFORCE also revokes the snapshot.',
      ),
      schedule: text(
        g('vetting.revet.schedule'),
        '0 3 * * *',
        'Cron expression (5 or 6 fields, as node-cron reads it) for scheduled re-vetting.',
        { check: cronSchedule },
      ),
    },
    http: {
      url: optionalText(
        g('vetting.http.url'),
        'External scanner the `http` vetting connector POSTs each snapshot to; ' +
          'unset leaves the connector out of the chain.',
        { check: url },
      ),
      timeoutMs: duration(
        g('vetting.http.timeout'),
        '20s',
        'How long the `http` connector waits for the external scanner ' +
          '(gateway.vetting.timeout still bounds the whole connector).',
        { positive: true },
      ),
    },
  },
  retention: {
    enabled: flag(
      g('retention.enabled'),
      false,
      'Run retention passes on a schedule (on-demand passes work regardless).',
      notBuilt,
    ),
    heldMaxAgeMs: duration(
      g('retention.held-max-age'),
      '90d',
      'Held snapshots older than this are soft-deleted ' + '(held-too-long); zero or negative disables the criterion.',
      { ...notBuilt, allowNegative: true },
    ),
    supersededEnabled: flag(
      g('retention.superseded'),
      true,
      'Soft-delete held, rejected or revoked snapshots ' + 'superseded by a later approved snapshot.',
      notBuilt,
    ),
    supersededMinAgeMs: duration(
      g('retention.superseded-min-age'),
      '30d',
      'Superseded snapshots younger than this are kept.',
      notBuilt,
    ),
    minIdleMs: duration(
      g('retention.min-idle'),
      '30d',
      'Fetch-recency veto: a candidate whose commit was fetched within this window is kept.',
      notBuilt,
    ),
    restoreWindowMs: duration(
      g('retention.restore-window'),
      '14d',
      'A soft-deleted snapshot can be restored for this long (purgeAfter = deletion + window).',
      notBuilt,
    ),
    pollIntervalMs: duration(g('retention.poll-interval'), '1h', 'Interval of the retention evaluation pass.', {
      ...notBuilt,
      positive: true,
    }),
    compactionIntervalMs: duration(
      g('retention.compaction-interval'),
      '6h',
      'Interval of the compaction pass (purges, sweeps).',
      { ...notBuilt, positive: true },
    ),
    stagingRefMaxAgeMs: duration(
      g('retention.staging-ref-max-age'),
      '24h',
      'Abandoned staging refs observed longer ' + 'than this are removed; zero or negative disables the sweep.',
      { ...notBuilt, allowNegative: true },
    ),
  },
  tokens: {
    maxTtlMs: optionalDuration(
      g('tokens.max-ttl'),
      'Token lifetime cap; requests beyond it are refused, never ' +
        'shortened. Unset: no cap for personal tokens, 90 days for machine credentials.',
      { positive: true },
    ),
    sessionTtlMs: duration(
      g('tokens.session-ttl'),
      '8h',
      'Lifetime of session-derived credentials and of browser sessions.',
      { positive: true },
    ),
  },
  secrets: {
    key: optionalText(
      g('secrets.key'),
      'AES-256-GCM key for stored secrets (webhook and signing secrets); ' +
        'unset means one is generated into the data directory.',
      { secret: true },
    ),
  },
  estate: {
    file: optionalText(
      g('estate.file'),
      'Declarative estate (marketplaces, grants, webhooks, audit sinks) reconciled at startup.',
      notBuilt,
    ),
  },
  mirror: {
    url: optionalText(
      g('mirror.url'),
      'Read-only forge mirror of the published repositories; unset means no mirror.',
      notBuilt,
    ),
    credentials: optionalText(
      g('mirror.credentials'),
      'Credentials for pushing to the mirror (never logged or reported).',
      { ...notBuilt, secret: true },
    ),
  },
};

/** The schema of the typed configuration, derived from the description. */
export const GatewayConfigSchema = objectSchemaOf(configDescription);

/** The typed configuration. `loadConfig` returns it deeply frozen. */
export type GatewayConfig = Static<typeof GatewayConfigSchema>;

/** Every key, flat, in the order of the description, with where its value sits in GatewayConfig. */
export const configKeyTable: readonly PlacedKeySpec[] = keysOf(configDescription);

/** The environment variable that overrides a key: upper-cased, `.` and `-` turned to `_`. */
export const envVarName = (key: string): string => key.toUpperCase().replace(/[.-]/g, '_');
