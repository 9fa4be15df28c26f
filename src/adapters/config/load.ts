// Loads the gateway configuration: defaults <- gateway.yaml <- environment, validated key by
// key (kind, range, enum, duration), then across keys, into a frozen, typed GatewayConfig.
// Every refusal is a one-line ConfigError naming the key; secret values are never shown.
import { readFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { parseDocument } from 'yaml';
import { Value } from 'typebox/value';
import { durationHint, formatDuration, parseDuration } from './duration.ts';
import {
  ClaimMappingInputSchema,
  ConfigError,
  catalogNamePattern,
  GatewayConfigSchema,
  claimMappingRoles,
  configKeyTable,
  envVarName,
  valueSchemaOf,
  type ClaimMapping,
  type ConfigDefault,
  type ConfigKeySpec,
  type ConfigKind,
  type GatewayConfig,
} from './schema.ts';

// ConfigError lives in schema.ts so duration.ts can throw it without an import cycle;
// this is its public home.
export { ConfigError };
export type { GatewayConfig };

export interface LoadConfigOptions {
  /** The `--config` argument, resolved against cwd. */
  readonly configPath?: string | undefined;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
}

export interface ConfigKeyInfo {
  readonly key: string;
  readonly kind: ConfigKind;
  /** The overriding environment variable; null for file-only keys. */
  readonly env: string | null;
  /** The default as written in gateway.yaml; null means unset. */
  readonly default: ConfigDefault;
  /** The default for display: `5s`, `8080`, `[http, https]`, `unset`. */
  readonly defaultText: string;
  /** For enum keys, the allowed values. */
  readonly allowed: readonly string[] | null;
  readonly description: string;
  readonly secret: boolean;
}

/** Every configuration key with its default and description (for `gateway --help` and the README). */
export function configKeys(): readonly ConfigKeyInfo[] {
  return Object.freeze(
    configKeyTable.map((spec) =>
      Object.freeze({
        key: spec.key,
        kind: spec.kind,
        env: envOverridable(spec) ? envVarName(spec.key) : null,
        default: spec.default,
        defaultText: defaultText(spec.default),
        allowed: spec.allowed ?? null,
        description: spec.description,
        secret: spec.secret === true,
      }),
    ),
  );
}

/** The port variable of most hosting platforms; wins over GATEWAY_SERVER_PORT. */
const PORT_VARIABLE = 'PORT';
const CONFIG_VARIABLE = 'GATEWAY_CONFIG';
const DEFAULT_FILE_NAME = 'gateway.yaml';
const DEFAULT_URL_SCHEMES: readonly string[] = ['http', 'https'];

const specByKey = new Map(configKeyTable.map((spec) => [spec.key, spec]));
/** Every dotted prefix of a key below `gateway` (e.g. `gateway.storage.object-store`). */
const blockKeys = new Set(
  configKeyTable.flatMap((spec) => {
    const parts = spec.key.split('.');
    return parts.slice(2).map((_, i) => parts.slice(0, i + 2).join('.'));
  }),
);

/** Where a raw value came from, for the error message. */
interface Raw {
  readonly value: unknown;
  /** '' for the file, else ` (from environment variable X)`. */
  readonly origin: string;
}

export function loadConfig(options: LoadConfigOptions): GatewayConfig {
  const { env, cwd } = options;
  const file = locateConfigFile(options);
  const raw = file === null ? new Map<string, Raw>() : readConfigFile(file);
  applyEnvironment(raw, env);

  const tree: Record<string, unknown> = {};
  for (const spec of configKeyTable) {
    const given = raw.get(spec.key);
    const value =
      given === undefined || given.value === null || given.value === undefined
        ? defaultValue(spec)
        : readValue(spec, given.value, given.origin);
    setPath(tree, spec.prop, value);
  }
  if (!Value.Check(GatewayConfigSchema, tree)) {
    const [first] = Value.Errors(GatewayConfigSchema, tree);
    throw new Error(`internal: the config key table disagrees with GatewayConfigSchema at ${first?.instancePath ?? '?'}`);
  }
  const config = tree;
  config.dataDir = path.resolve(cwd, config.dataDir);
  config.allowedUrlSchemes = normaliseSchemes(config.allowedUrlSchemes);
  checkCrossKeyRules(config);
  return deepFreeze(config);
}

// ---------------------------------------------------------------------------------------
// The file.

function locateConfigFile({ configPath, env, cwd }: LoadConfigOptions): string | null {
  if (configPath !== undefined) return path.resolve(cwd, configPath);
  const fromEnv = env[CONFIG_VARIABLE];
  if (fromEnv !== undefined && fromEnv !== '') return path.resolve(cwd, fromEnv);
  const implicit = path.join(cwd, DEFAULT_FILE_NAME);
  return existsSync(implicit) ? implicit : null;
}

function readConfigFile(file: string): Map<string, Raw> {
  const fileError = (problem: string): ConfigError => new ConfigError(null, `config file ${file}: ${problem}`);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw fileError('does not exist');
    if (code === 'EISDIR') throw fileError('is a directory, not a file');
    throw fileError(`cannot be read (${code ?? 'unknown error'})`);
  }
  let content: unknown;
  try {
    const doc = parseDocument(text, { uniqueKeys: true });
    const [first] = doc.errors;
    if (first !== undefined) throw first;
    content = doc.toJS({ maxAliasCount: 100 });
  } catch (error) {
    // Only the first line: the rest is a code frame that could quote a secret.
    const line = (error instanceof Error ? error.message : String(error)).split('\n')[0] ?? '';
    throw fileError(`is not valid YAML (${line.replace(/:\s*$/, '')})`);
  }

  const raw = new Map<string, Raw>();
  if (content === null || content === undefined) return raw;
  if (!isMap(content)) {
    throw fileError(`the top level must be a map with a 'gateway' key, got ${typeName(content)}`);
  }
  for (const [key, value] of Object.entries(content)) {
    if (key !== 'gateway') throw unknownKey(key);
    walk('gateway', value, raw);
  }
  return raw;
}

function walk(prefix: string, node: unknown, raw: Map<string, Raw>): void {
  if (node === null || node === undefined) return; // an empty block is an omitted block
  if (!isMap(node)) {
    // A block never echoes its value: `database: postgres://user:pw@…` must not leak.
    throw new ConfigError(prefix, `must be a map of keys, got ${typeName(node)}`);
  }
  for (const [name, value] of Object.entries(node)) {
    const key = `${prefix}.${name}`;
    if (name.includes('.')) throw unknownKey(key);
    if (specByKey.has(key)) raw.set(key, { value, origin: '' });
    else if (blockKeys.has(key)) walk(key, value, raw);
    else throw unknownKey(key);
  }
}

/** A known key reported as unknown was written flat (`"webhooks.max-attempts": 3`), which is not supported. */
function unknownKey(key: string): ConfigError {
  const hint = specByKey.has(key) || blockKeys.has(key) ? ' (write nested maps, not dotted keys)' : '';
  return new ConfigError(key, `unknown configuration key${hint}`);
}

// ---------------------------------------------------------------------------------------
// The environment.

function envOverridable(spec: ConfigKeySpec): boolean {
  return spec.envOverride !== false;
}

function applyEnvironment(raw: Map<string, Raw>, env: Readonly<Record<string, string | undefined>>): void {
  for (const spec of configKeyTable) {
    if (!envOverridable(spec)) continue;
    const name = envVarName(spec.key);
    const text = env[name];
    if (text === undefined || text === '') continue; // an empty variable counts as unset
    raw.set(spec.key, { value: fromEnvText(spec, text, name), origin: ` (from environment variable ${name})` });
  }
  const port = env[PORT_VARIABLE];
  if (port !== undefined && port !== '') {
    const spec = specByKey.get('gateway.server.port');
    if (spec === undefined) throw new Error('internal: gateway.server.port missing from the key table');
    raw.set(spec.key, { value: fromEnvText(spec, port, PORT_VARIABLE), origin: ` (from environment variable ${PORT_VARIABLE})` });
  }
}

/** Environment values are text: convert per kind; the result is validated like a file value. */
function fromEnvText(spec: ConfigKeySpec, text: string, variable: string): unknown {
  const origin = ` (from environment variable ${variable})`;
  switch (spec.kind) {
    case 'integer':
      if (!/^[0-9]+$/.test(text)) throw new ConfigError(spec.key, `${show(text, spec)} is not an integer${origin}`);
      return Number(text);
    case 'boolean':
      if (text !== 'true' && text !== 'false') {
        throw new ConfigError(spec.key, `${show(text, spec)} is not a boolean (use true or false)${origin}`);
      }
      return text === 'true';
    case 'string-list':
      return text
        .split(',')
        .map((item) => item.trim())
        .filter((item) => item !== '');
    case 'claim-mappings':
      throw new Error(`internal: ${spec.key} cannot be set from the environment`);
    case 'string':
    case 'duration':
    case 'enum':
      return text;
  }
}

// ---------------------------------------------------------------------------------------
// One key.

type KeyValue = string | number | boolean | string[] | ClaimMapping[] | null;

function defaultValue(spec: ConfigKeySpec): KeyValue {
  const value = spec.default;
  if (value === null) return null;
  if (spec.kind === 'duration') return parseDuration(String(value), { allowNegative: true, key: spec.key });
  if (Array.isArray(value)) return [...(value as readonly string[])];
  return value as string | number | boolean;
}

function readValue(spec: ConfigKeySpec, value: unknown, origin: string): KeyValue {
  const schema = valueSchemaOf(spec);
  const fail = (problem: string, key: string = spec.key): ConfigError => new ConfigError(key, `${problem}${origin}`);
  switch (spec.kind) {
    case 'string': {
      if (typeof value !== 'string') throw fail(`must be a string, got ${show(value, spec)}`);
      if (value === '') throw fail('must not be empty (omit the key to use the default)');
      if (!Value.Check(schema, value)) throw fail(`${show(value, spec)} does not match ${spec.pattern ?? 'the expected form'}`);
      const problem = extraCheck.get(spec.key)?.(value) ?? null;
      if (problem !== null) throw fail(problem);
      return normalise.get(spec.key)?.(value) ?? value;
    }
    case 'integer': {
      if (Value.Check(schema, value)) return value as number;
      const keyword = Value.Errors(schema, value)[0]?.keyword;
      if (typeof value !== 'number') throw fail(`must be an integer, got ${show(value, spec)}`);
      if (keyword === 'minimum' || keyword === 'maximum') {
        const max = spec.max ?? Number.MAX_SAFE_INTEGER;
        const range = max === Number.MAX_SAFE_INTEGER ? `at least ${spec.min ?? 0}` : `between ${spec.min ?? 0} and ${max}`;
        throw fail(`must be ${range}, got ${show(value, spec)}`);
      }
      throw fail(`must be a whole number, got ${show(value, spec)}`);
    }
    case 'boolean':
      if (Value.Check(schema, value)) return value as boolean;
      throw fail(`must be true or false, got ${show(value, spec)}`);
    case 'enum': {
      if (Value.Check(schema, value)) return value as string;
      const allowed = (spec.allowed ?? []).join(', ');
      if (typeof value === 'string') throw fail(`${show(value, spec)} is not allowed (allowed: ${allowed})`);
      throw fail(`must be one of ${allowed}, got ${show(value, spec)}`);
    }
    case 'duration': {
      if (!Value.Check(schema, value) && typeof value !== 'number') {
        throw fail(`must be a duration (${durationHint}), got ${show(value, spec)}`);
      }
      let ms: number;
      try {
        ms = parseDuration(String(value), {
          allowNegative: spec.allowNegative === true,
          key: spec.key,
          secret: spec.secret === true,
        });
      } catch (error) {
        if (error instanceof ConfigError) throw fail(error.problem);
        throw error;
      }
      if (spec.positive === true && ms <= 0) throw fail(`must be greater than zero, got ${show(value, spec)}`);
      return ms;
    }
    case 'string-list': {
      if (!Array.isArray(value)) throw fail(`must be a list of strings, got ${show(value, spec)}`);
      value.forEach((item: unknown, i) => {
        if (typeof item !== 'string' || item === '') {
          throw fail(`must be a non-empty string, got ${show(item, spec)}`, `${spec.key}[${i}]`);
        }
      });
      if (!Value.Check(schema, value)) throw fail('must be a list of non-empty strings');
      return [...(value as string[])];
    }
    case 'claim-mappings':
      if (!Array.isArray(value)) throw fail(`must be a list of maps, got ${show(value, spec)}`);
      return value.map((item: unknown, i) => readClaimMapping(`${spec.key}[${i}]`, item));
  }
}

const claimMappingFields = ['claim', 'value', 'role', 'marketplace'] as const;

function readClaimMapping(at: string, item: unknown): ClaimMapping {
  if (!isMap(item)) {
    throw new ConfigError(at, `must be a map with claim, value, role and marketplace, got ${typeName(item)}`);
  }
  for (const name of Object.keys(item)) {
    if (!(claimMappingFields as readonly string[]).includes(name)) throw unknownKey(`${at}.${name}`);
  }
  const properties = ClaimMappingInputSchema.properties;
  for (const name of claimMappingFields) {
    const value = item[name];
    const key = `${at}.${name}`;
    if (value === undefined || value === null) {
      if (name === 'marketplace') continue;
      throw new ConfigError(key, 'is required');
    }
    if (Value.Check(properties[name], value)) continue;
    if (typeof value !== 'string') throw new ConfigError(key, `must be a string, got ${show(value)}`);
    if (name === 'role') {
      throw new ConfigError(key, `${show(value)} is not allowed (allowed: ${claimMappingRoles.join(', ')})`);
    }
    if (name === 'marketplace') {
      throw new ConfigError(key, `${show(value)} is not a marketplace name (${catalogNamePattern})`);
    }
    throw new ConfigError(key, 'must not be empty');
  }
  if (!Value.Check(ClaimMappingInputSchema, item)) throw new ConfigError(at, 'is not a valid claim mapping');
  const { claim, value, role, marketplace } = item;
  if (role === 'approver' && marketplace === undefined) {
    throw new ConfigError(`${at}.marketplace`, 'is required when role is approver');
  }
  if (role !== 'approver' && marketplace !== undefined) {
    throw new ConfigError(`${at}.marketplace`, `is not allowed when role is ${role} (only approver grants are per marketplace)`);
  }
  return { claim, value, role, marketplace: marketplace ?? null };
}

// ---------------------------------------------------------------------------------------
// Checks of single string keys beyond their kind.

const extraCheck = new Map<string, (value: string) => string | null>([
  ['gateway.base-url', (v) => httpUrlProblem(v, { bare: true })],
  ['gateway.oidc.issuer', (v) => httpUrlProblem(v, { bare: false })],
  ['gateway.storage.object-store.endpoint', (v) => httpUrlProblem(v, { bare: false })],
  ['gateway.sync.schedule', cronProblem],
  ['gateway.vetting.revet.schedule', cronProblem],
  ['gateway.vetting.http.url', (v) => httpUrlProblem(v, { bare: false })],
]);

const normalise = new Map<string, (value: string) => string>([
  // Stored without a trailing slash so `${baseUrl}/path` is always right.
  ['gateway.base-url', (v) => new URL(v).href.replace(/\/+$/, '')],
]);

function httpUrlProblem(text: string, { bare }: { bare: boolean }): string | null {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return `${quote(text)} is not a URL (expected http:// or https://)`;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return `${quote(text)} is not an http or https URL`;
  if (url.username !== '' || url.password !== '') return 'must not contain credentials';
  if (bare && (url.search !== '' || url.hash !== '')) return `${quote(text)} must not have a query or fragment`;
  return null;
}

const monthNames = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'];
const dayNames = ['SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT'];

interface CronField {
  readonly name: string;
  readonly min: number;
  readonly max: number;
  /** Name → value, for month and day-of-week. */
  readonly names?: readonly string[];
  readonly firstNameValue?: number;
}

const cronFields: readonly CronField[] = [
  { name: 'minute', min: 0, max: 59 },
  { name: 'hour', min: 0, max: 23 },
  { name: 'day of month', min: 1, max: 31 },
  { name: 'month', min: 1, max: 12, names: monthNames, firstNameValue: 1 },
  { name: 'day of week', min: 0, max: 7, names: dayNames, firstNameValue: 0 },
];
const cronSecondField: CronField = { name: 'second', min: 0, max: 59 };
const cronItem = /^(?:\*|([0-9]+|[A-Za-z]+)(?:-([0-9]+|[A-Za-z]+))?)(?:\/([0-9]+))?$/;

/** A 5- or 6-field cron expression (optional seconds first); null when it is one. */
export function cronProblem(expression: string): string | null {
  const notCron = (detail: string): string => `${quote(expression)} is not a cron expression (${detail})`;
  const parts = expression.trim().split(/\s+/).filter((part) => part !== '');
  if (parts.length !== 5 && parts.length !== 6) return notCron(`has ${parts.length} fields; expected 5 or 6`);
  const fields = parts.length === 6 ? [cronSecondField, ...cronFields] : cronFields;
  for (const [i, part] of parts.entries()) {
    const field = fields[i] as CronField;
    if (!/^[0-9A-Za-z*,/-]+$/.test(part)) {
      return notCron(`${field.name} field '${part}' may only use 0-9 * , - / and month/day names`);
    }
    for (const item of part.split(',')) {
      const match = cronItem.exec(item);
      if (match === null) return notCron(`${field.name} field '${part}' is malformed`);
      const [, from, to, step] = match;
      if (step !== undefined && Number(step) < 1) return notCron(`${field.name} field '${part}' has a zero step`);
      const low = from === undefined ? field.min : cronValue(field, from);
      const high = to === undefined ? low : cronValue(field, to);
      if (low === null || high === null) {
        return notCron(`${field.name} field '${part}' is out of range ${field.min}-${field.max}`);
      }
      if (low > high) return notCron(`${field.name} field '${part}' has a reversed range`);
    }
  }
  return null;
}

function cronValue(field: CronField, text: string): number | null {
  if (/^[0-9]+$/.test(text)) {
    const n = Number(text);
    return n >= field.min && n <= field.max ? n : null;
  }
  const index = field.names?.indexOf(text.toUpperCase()) ?? -1;
  return index < 0 ? null : index + (field.firstNameValue ?? 0);
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

function checkCrossKeyRules(config: GatewayConfig): void {
  if (config.storage.backend === 'object-store') {
    if (config.storage.objectStore.bucket === null) {
      throw new ConfigError('gateway.storage.object-store.bucket', 'is required when gateway.storage.backend is object-store');
    }
    if (config.storage.objectStore.region === null) {
      throw new ConfigError('gateway.storage.object-store.region', 'is required when gateway.storage.backend is object-store');
    }
  }
  if (config.devInsecureAuth && config.oidc.issuer !== null) {
    throw new ConfigError(
      'gateway.dev-insecure-auth',
      'cannot be combined with an identity provider (gateway.oidc.issuer is set); unset one of them',
    );
  }
  if (config.oidc.issuer !== null && config.oidc.clientId === null) {
    throw new ConfigError('gateway.oidc.client-id', 'is required when gateway.oidc.issuer is set');
  }
  if (config.eventStore.backend === 'eventstoredb' && config.eventStore.url === null) {
    throw new ConfigError('gateway.event-store.url', 'is required when gateway.event-store.backend is eventstoredb');
  }
  if (config.webhooks.maxBackoffMs < config.webhooks.baseBackoffMs) {
    throw new ConfigError(
      'gateway.webhooks.max-backoff',
      `must be at least gateway.webhooks.base-backoff (${formatDuration(config.webhooks.baseBackoffMs)}), ` +
        `got ${formatDuration(config.webhooks.maxBackoffMs)}`,
    );
  }
  if (config.auditExport.defaultPageSize > config.auditExport.maxPageSize) {
    throw new ConfigError(
      'gateway.audit-export.default-page-size',
      `must be at most gateway.audit-export.max-page-size (${config.auditExport.maxPageSize}), ` +
        `got ${config.auditExport.defaultPageSize}`,
    );
  }
}

// ---------------------------------------------------------------------------------------
// Helpers.

function isMap(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function typeName(value: unknown): string {
  if (value === null) return 'nothing';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a map';
  if (typeof value === 'number') return 'a number';
  if (typeof value === 'boolean') return 'a boolean';
  if (typeof value === 'string') return 'a string';
  return `a ${typeof value}`;
}

/** A value for an error message: quoted scalars, the type for collections, nothing for secrets. */
function show(value: unknown, spec?: ConfigKeySpec): string {
  if (spec?.secret === true) return typeName(value);
  if (typeof value === 'string') return quote(value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return typeName(value);
}

function quote(text: string): string {
  const escaped = JSON.stringify(text).slice(1, -1);
  return `'${escaped.length > 80 ? `${escaped.slice(0, 77)}...` : escaped}'`;
}

function defaultText(value: ConfigDefault): string {
  if (value === null) return 'unset';
  if (Array.isArray(value)) return `[${(value as readonly string[]).join(', ')}]`;
  return String(value);
}

function setPath(target: Record<string, unknown>, dotted: string, value: unknown): void {
  const parts = dotted.split('.');
  const last = parts.pop() as string;
  let node = target;
  for (const part of parts) {
    const next = node[part];
    if (isMap(next)) node = next;
    else {
      const created: Record<string, unknown> = {};
      node[part] = created;
      node = created;
    }
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
