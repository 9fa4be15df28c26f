// Where values come from: gateway.yaml (walked against the key table, unknown keys refused) and
// the environment (one variable per key, PORT for the port). Both yield raw values by dotted key;
// validation is read-value.ts's job.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parseDocument } from 'yaml';
import { isMap, show, typeName } from './checks.ts';
import { ConfigError } from './config-error.ts';
import type { PlacedKeySpec } from './key-spec.ts';
import { configKeyTable, envVarName } from './schema.ts';

export type Environment = Readonly<Record<string, string | undefined>>;

/** A value as given, and where it came from (for the refusal). */
export interface Raw {
  readonly value: unknown;
  /** '' for the file, else ` (from environment variable X)`. */
  readonly origin: string;
}

/** The port variable of most hosting platforms; wins over GATEWAY_SERVER_PORT. */
const PORT_VARIABLE = 'PORT';
const CONFIG_VARIABLE = 'GATEWAY_CONFIG';
const DEFAULT_FILE_NAME = 'gateway.yaml';

export const specByKey: ReadonlyMap<string, PlacedKeySpec> = new Map(configKeyTable.map((spec) => [spec.key, spec]));
/** Every dotted prefix of a key below `gateway` (e.g. `gateway.storage.object-store`). */
const blockKeys = new Set(
  configKeyTable.flatMap((spec) => {
    const parts = spec.key.split('.');
    return parts.slice(2).map((_, i) => parts.slice(0, i + 2).join('.'));
  }),
);

export function envOverridable(spec: PlacedKeySpec): boolean {
  return spec.fileOnly !== true;
}

// ---------------------------------------------------------------------------------------
// The file.

export function locateConfigFile(configPath: string | undefined, env: Environment, cwd: string): string | null {
  if (configPath !== undefined) return path.resolve(cwd, configPath);
  const fromEnv = env[CONFIG_VARIABLE];
  if (fromEnv !== undefined && fromEnv !== '') return path.resolve(cwd, fromEnv);
  const implicit = path.join(cwd, DEFAULT_FILE_NAME);
  return existsSync(implicit) ? implicit : null;
}

export function readConfigFile(file: string): Map<string, Raw> {
  const content = parseFile(file);
  const raw = new Map<string, Raw>();
  if (content === null || content === undefined) return raw;
  if (!isMap(content)) {
    throw fileError(file, `the top level must be a map with a 'gateway' key, got ${typeName(content)}`);
  }
  for (const [key, value] of Object.entries(content)) {
    if (key !== 'gateway') throw unknownKey(key);
    walk('gateway', value, raw);
  }
  return raw;
}

const fileError = (file: string, problem: string): ConfigError =>
  new ConfigError(null, `config file ${file}: ${problem}`);

function parseFile(file: string): unknown {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw fileError(file, 'does not exist');
    if (code === 'EISDIR') throw fileError(file, 'is a directory, not a file');
    throw fileError(file, `cannot be read (${code ?? 'unknown error'})`);
  }
  try {
    const doc = parseDocument(text, { uniqueKeys: true });
    const [first] = doc.errors;
    if (first !== undefined) throw first;
    return doc.toJS({ maxAliasCount: 100 });
  } catch (error) {
    // Only the first line: the rest is a code frame that could quote a secret.
    const line = (error instanceof Error ? error.message : String(error)).split('\n')[0] ?? '';
    throw fileError(file, `is not valid YAML (${line.replace(/:\s*$/, '')})`);
  }
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
export function unknownKey(key: string): ConfigError {
  const hint = specByKey.has(key) || blockKeys.has(key) ? ' (write nested maps, not dotted keys)' : '';
  return new ConfigError(key, `unknown configuration key${hint}`);
}

// ---------------------------------------------------------------------------------------
// The environment.

/** Lays the environment's values over the file's (an empty variable counts as unset). */
export function applyEnvironment(raw: Map<string, Raw>, env: Environment): void {
  for (const spec of configKeyTable) {
    if (!envOverridable(spec)) continue;
    setFromEnv(raw, spec, env, envVarName(spec.key));
  }
  const port = specByKey.get('gateway.server.port');
  if (port === undefined) throw new Error('internal: gateway.server.port missing from the key table');
  setFromEnv(raw, port, env, PORT_VARIABLE);
}

function setFromEnv(raw: Map<string, Raw>, spec: PlacedKeySpec, env: Environment, variable: string): void {
  const text = env[variable];
  if (text === undefined || text === '') return;
  raw.set(spec.key, { value: fromEnvText(spec, text, variable), origin: ` (from environment variable ${variable})` });
}

/** Environment values are text: convert per kind; the result is validated like a file value. */
function fromEnvText(spec: PlacedKeySpec, text: string, variable: string): unknown {
  const origin = ` (from environment variable ${variable})`;
  const secret = spec.secret === true;
  switch (spec.kind) {
    case 'integer':
      if (!/^[0-9]+$/.test(text)) throw new ConfigError(spec.key, `${show(text, secret)} is not an integer${origin}`);
      return Number(text);
    case 'boolean':
      if (text !== 'true' && text !== 'false') {
        throw new ConfigError(spec.key, `${show(text, secret)} is not a boolean (use true or false)${origin}`);
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
