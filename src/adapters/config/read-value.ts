// One key's value, from the file or the environment, checked against its entry in the
// description and turned into its typed form (durations to milliseconds, URLs normalised).
// Every refusal is a one-line ConfigError naming the key; secret values are never shown.
import { Value } from 'typebox/value';
import { isMap, quote, show, typeName } from './checks.ts';
import { ConfigError } from './config-error.ts';
import { durationHint, parseDuration } from './duration.ts';
import { MAX_INT, type ConfigKeySpec } from './key-spec.ts';
import { unknownKey } from './sources.ts';
import { catalogNamePattern, ClaimMappingInputSchema, claimMappingRoles, type ClaimMapping } from './schema.ts';

export type KeyValue = string | number | boolean | string[] | ClaimMapping[] | null;

type Fail = (problem: string, key?: string) => ConfigError;

/** The value of a key nobody set (a derived default is computed by the loader). */
export function defaultValue(spec: ConfigKeySpec): KeyValue {
  const value = spec.default;
  if (value === null) return null;
  if (spec.kind === 'duration') return parseDuration(String(value), { allowNegative: true, key: spec.key });
  if (Array.isArray(value)) return [...(value as readonly string[])];
  return value as string | number | boolean;
}

export function readValue(spec: ConfigKeySpec, value: unknown, origin: string): KeyValue {
  const fail: Fail = (problem, key = spec.key) => new ConfigError(key, `${problem}${origin}`);
  switch (spec.kind) {
    case 'string':
      return readString(spec, value, fail);
    case 'integer':
      return readInteger(spec, value, fail);
    case 'boolean':
      if (typeof value === 'boolean') return value;
      throw fail(`must be true or false, got ${show(value, spec.secret)}`);
    case 'enum':
      return readEnum(spec, value, fail);
    case 'duration':
      return readDuration(spec, value, fail);
    case 'string-list':
      return readList(spec, value, fail);
    case 'claim-mappings':
      if (!Array.isArray(value)) throw fail(`must be a list of maps, got ${show(value, spec.secret)}`);
      return value.map((item: unknown, i) => readClaimMapping(`${spec.key}[${i}]`, item));
  }
}

function readString(spec: ConfigKeySpec, value: unknown, fail: Fail): string {
  if (typeof value !== 'string') throw fail(`must be a string, got ${show(value, spec.secret)}`);
  if (value === '') throw fail('must not be empty (omit the key to use the default)');
  if (spec.pattern !== undefined && !new RegExp(spec.pattern, 'u').test(value)) {
    throw fail(`${show(value, spec.secret)} does not match ${spec.pattern}`);
  }
  const problem = spec.check?.(value) ?? null;
  if (problem !== null) throw fail(problem);
  return spec.normalise?.(value) ?? value;
}

function readInteger(spec: ConfigKeySpec, value: unknown, fail: Fail): number {
  if (typeof value !== 'number') throw fail(`must be an integer, got ${show(value, spec.secret)}`);
  if (!Number.isInteger(value)) throw fail(`must be a whole number, got ${show(value, spec.secret)}`);
  const min = spec.min ?? 0;
  const max = spec.max ?? MAX_INT;
  if (value >= min && value <= max) return value;
  const range = max === MAX_INT ? `at least ${min}` : `between ${min} and ${max}`;
  throw fail(`must be ${range}, got ${show(value, spec.secret)}`);
}

function readEnum(spec: ConfigKeySpec, value: unknown, fail: Fail): string {
  const allowed = spec.allowed ?? [];
  if (typeof value === 'string' && allowed.includes(value)) return value;
  if (typeof value === 'string') {
    throw fail(`${show(value, spec.secret)} is not allowed (allowed: ${allowed.join(', ')})`);
  }
  throw fail(`must be one of ${allowed.join(', ')}, got ${show(value, spec.secret)}`);
}

function readDuration(spec: ConfigKeySpec, value: unknown, fail: Fail): number {
  if (typeof value !== 'string' && typeof value !== 'number') {
    throw fail(`must be a duration (${durationHint}), got ${show(value, spec.secret)}`);
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
  if (spec.positive === true && ms <= 0) throw fail(`must be greater than zero, got ${show(value, spec.secret)}`);
  return ms;
}

function readList(spec: ConfigKeySpec, value: unknown, fail: Fail): string[] {
  if (!Array.isArray(value)) throw fail(`must be a list of strings, got ${show(value, spec.secret)}`);
  return value.map((item: unknown, i) => {
    if (typeof item !== 'string' || item === '') {
      throw fail(`must be a non-empty string, got ${show(item, spec.secret)}`, `${spec.key}[${i}]`);
    }
    const problem = spec.check?.(item) ?? null;
    if (problem !== null) throw fail(problem, `${spec.key}[${i}]`);
    return item;
  });
}

// ---------------------------------------------------------------------------------------
// Claim mappings: a list of small maps, each field checked on its own.

const claimMappingFields = ['claim', 'value', 'role', 'marketplace'] as const;

function readClaimMapping(at: string, item: unknown): ClaimMapping {
  if (!isMap(item)) {
    throw new ConfigError(at, `must be a map with claim, value, role and marketplace, got ${typeName(item)}`);
  }
  for (const name of Object.keys(item)) {
    if (!(claimMappingFields as readonly string[]).includes(name)) throw unknownKey(`${at}.${name}`);
  }
  for (const name of claimMappingFields) checkClaimMappingField(`${at}.${name}`, name, item[name]);
  if (!Value.Check(ClaimMappingInputSchema, item)) throw new ConfigError(at, 'is not a valid claim mapping');
  const { claim, value, role, marketplace } = item;
  if (role === 'approver' && marketplace === undefined) {
    throw new ConfigError(`${at}.marketplace`, 'is required when role is approver');
  }
  if (role !== 'approver' && marketplace !== undefined) {
    throw new ConfigError(
      `${at}.marketplace`,
      `is not allowed when role is ${role} (only approver grants are per marketplace)`,
    );
  }
  return { claim, value, role, marketplace: marketplace ?? null };
}

function checkClaimMappingField(key: string, name: (typeof claimMappingFields)[number], value: unknown): void {
  if (value === undefined || value === null) {
    if (name === 'marketplace') return;
    throw new ConfigError(key, 'is required');
  }
  if (Value.Check(ClaimMappingInputSchema.properties[name], value)) return;
  if (typeof value !== 'string') throw new ConfigError(key, `must be a string, got ${show(value)}`);
  if (name === 'role') {
    throw new ConfigError(key, `${quote(value)} is not allowed (allowed: ${claimMappingRoles.join(', ')})`);
  }
  if (name === 'marketplace') {
    throw new ConfigError(key, `${quote(value)} is not a marketplace name (${catalogNamePattern})`);
  }
  throw new ConfigError(key, 'must not be empty');
}
