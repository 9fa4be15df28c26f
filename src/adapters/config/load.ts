// Loads the gateway configuration: defaults <- gateway.yaml <- environment, validated key by
// key (read-value.ts), then across keys, into a frozen, typed GatewayConfig.
import path from 'node:path';
import { Value } from 'typebox/value';
import { quote } from './checks.ts';
import { ConfigError } from './config-error.ts';
import { formatDuration } from './duration.ts';
import type { PlacedKeySpec } from './key-spec.ts';
import { defaultValue, readValue, type KeyValue } from './read-value.ts';
import { configKeyTable, GatewayConfigSchema, type GatewayConfig } from './schema.ts';
import { applyEnvironment, locateConfigFile, readConfigFile, type Environment, type Raw } from './sources.ts';

// The public home of the error every caller catches.
export { ConfigError };
export type { GatewayConfig };

export interface LoadConfigOptions {
  /** The `--config` argument, resolved against cwd. */
  readonly configPath?: string | undefined;
  readonly env: Environment;
  readonly cwd: string;
}

/** The configuration and which keys were set (in the file or the environment), for startup warnings. */
export interface LoadedConfig {
  readonly config: GatewayConfig;
  /** Dotted keys given a value; keys left at their default are absent. */
  readonly given: ReadonlySet<string>;
}

const DEFAULT_URL_SCHEMES: readonly string[] = ['http', 'https'];

export function loadConfig(options: LoadConfigOptions): GatewayConfig {
  return readConfig(options).config;
}

export function readConfig({ configPath, env, cwd }: LoadConfigOptions): LoadedConfig {
  const file = locateConfigFile(configPath, env, cwd);
  const raw = file === null ? new Map<string, Raw>() : readConfigFile(file);
  applyEnvironment(raw, env);

  const values = new Map<string, KeyValue>();
  const given = new Set<string>();
  for (const spec of configKeyTable) {
    const set = raw.get(spec.key);
    if (set === undefined || set.value === null || set.value === undefined) continue;
    values.set(spec.key, readValue(spec, set.value, set.origin));
    given.add(spec.key);
  }
  for (const spec of configKeyTable) if (spec.derivedDefault === undefined) fillDefault(values, spec);
  for (const spec of configKeyTable) fillDefault(values, spec);

  const config = assemble(values);
  config.dataDir = path.resolve(cwd, config.dataDir);
  config.allowedUrlSchemes = normaliseSchemes(config.allowedUrlSchemes);
  checkCrossKeyRules(config);
  return Object.freeze({ config: deepFreeze(config), given: given as ReadonlySet<string> });
}

/** A derived default reads the final values of other keys, so it is filled after them. */
function fillDefault(values: Map<string, KeyValue>, spec: PlacedKeySpec): void {
  if (values.has(spec.key)) return;
  const derived = spec.derivedDefault;
  values.set(spec.key, derived === undefined ? defaultValue(spec) : derived.from((key) => values.get(key)));
}

function assemble(values: ReadonlyMap<string, KeyValue>): GatewayConfig {
  const tree: Record<string, unknown> = {};
  for (const spec of configKeyTable) setPath(tree, spec.prop, values.get(spec.key));
  if (!Value.Check(GatewayConfigSchema, tree)) {
    const [first] = Value.Errors(GatewayConfigSchema, tree);
    throw new Error(`internal: a config value disagrees with GatewayConfigSchema at ${first?.instancePath ?? '?'}`);
  }
  return tree;
}

// ---------------------------------------------------------------------------------------
// Across keys.

function normaliseSchemes(schemes: readonly string[]): string[] {
  const lower = [...new Set(schemes.map((scheme) => scheme.toLowerCase()))];
  lower.forEach((scheme, i) => {
    if (!/^[a-z][a-z0-9+.-]*$/.test(scheme)) {
      throw new ConfigError(
        `gateway.allowed-url-schemes[${i}]`,
        `${quote(scheme)} is not a URL scheme (write e.g. https, without ':' or '//')`,
      );
    }
  });
  return lower.length === 0 ? [...DEFAULT_URL_SCHEMES] : lower;
}

const objectStoreNeeds = 'is required when gateway.storage.backend is object-store';

/** Each rule: the key to name, and the problem when the rule is broken (null when it holds). */
const crossKeyRules: ReadonlyArray<readonly [string, (config: GatewayConfig) => string | null]> = [
  [
    'gateway.storage.object-store.bucket',
    ({ storage: s }) => (s.backend === 'object-store' && s.objectStore.bucket === null ? objectStoreNeeds : null),
  ],
  [
    'gateway.storage.object-store.region',
    ({ storage: s }) => (s.backend === 'object-store' && s.objectStore.region === null ? objectStoreNeeds : null),
  ],
  [
    'gateway.dev-insecure-auth',
    (c) =>
      c.devInsecureAuth && c.oidc.issuer !== null
        ? 'cannot be combined with an identity provider (gateway.oidc.issuer is set); unset one of them'
        : null,
  ],
  [
    'gateway.oidc.client-id',
    (c) => (c.oidc.issuer !== null && c.oidc.clientId === null ? 'is required when gateway.oidc.issuer is set' : null),
  ],
  [
    'gateway.event-store.url',
    (c) =>
      c.eventStore.backend === 'eventstoredb' && c.eventStore.url === null
        ? 'is required when gateway.event-store.backend is eventstoredb'
        : null,
  ],
  [
    'gateway.webhooks.max-backoff',
    ({ webhooks: w }) =>
      w.maxBackoffMs < w.baseBackoffMs
        ? `must be at least gateway.webhooks.base-backoff (${formatDuration(w.baseBackoffMs)}), ` +
          `got ${formatDuration(w.maxBackoffMs)}`
        : null,
  ],
  [
    'gateway.audit-export.default-page-size',
    ({ auditExport: a }) =>
      a.defaultPageSize > a.maxPageSize
        ? `must be at most gateway.audit-export.max-page-size (${a.maxPageSize}), got ${a.defaultPageSize}`
        : null,
  ],
];

function checkCrossKeyRules(config: GatewayConfig): void {
  for (const [key, rule] of crossKeyRules) {
    const problem = rule(config);
    if (problem !== null) throw new ConfigError(key, problem);
  }
}

// ---------------------------------------------------------------------------------------
// Helpers.

function setPath(target: Record<string, unknown>, dotted: string, value: unknown): void {
  const parts = dotted.split('.');
  const last = parts.pop() as string;
  let node = target;
  for (const part of parts) {
    node[part] ??= {};
    node = node[part] as Record<string, unknown>;
  }
  node[last] = value;
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}
