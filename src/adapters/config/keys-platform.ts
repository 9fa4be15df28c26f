// Keys of the gateway's own platform: storage root, server, database, event store, projections, storage,
// identity (OpenID Connect, roles, the facade's bearer tokens), tokens and the secrets key.
import { Type, type TArray } from 'typebox';
import { httpUrl } from './checks.ts';
import {
  ClaimMappingSchema,
  eventStoreBackends,
  g,
  logFormats,
  logLevels,
  storageBackends,
  url,
} from './key-values.ts';
import {
  choice,
  count,
  duration,
  flag,
  integer,
  list,
  optionalDuration,
  optionalText,
  text,
  type ConfigKeySpec,
} from './key-spec.ts';
import { objectStoreKeys } from './keys-object-store.ts';
import { trustedProxiesKey } from './keys-limits.ts';

const claimMappings = (key: string, description: string): ConfigKeySpec<TArray<typeof ClaimMappingSchema>> => ({
  key,
  kind: 'claim-mappings',
  schema: Type.Array(ClaimMappingSchema),
  default: [],
  description,
  fileOnly: true,
});

/** The top-level keys, then server, log, database, event store, projections and storage. */
export const platformKeys = {
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
    trustedProxies: trustedProxiesKey,
  },
  log: {
    level: choice(g('log.level'), logLevels, 'info', 'Minimum level of log lines written to stdout.'),
    format: choice(
      g('log.format'),
      logFormats,
      'auto',
      'How log lines are written: json (one JSON object per line), pretty (coloured, one readable line per entry), or auto (pretty when stdout is a terminal, json otherwise).',
    ),
  },
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
      'Git store: the data directory, or an S3-compatible object store with a local cache per replica.',
    ),
    objectStore: objectStoreKeys,
  },
};

/** Sign-in, roles and the facade's bearer tokens. */
export const identityKeys = {
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
    history: choice(
      g('facade.history'),
      ['upstream', 'vetted'],
      'upstream',
      'What a served commit carries as history. upstream: a snapshot nothing changes serves the upstream ' +
        'commit with its ancestry, and vetting also scans the history approval would newly expose for ' +
        'secrets; vetted: every snapshot is served from a commit of the gateway, whose only ancestors are ' +
        'earlier served commits, so no upstream object outside a vetted tree reaches a client.',
    ),
  },
};

/** Token lifetimes and the key that encrypts stored secrets. */
export const credentialKeys = {
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
};
