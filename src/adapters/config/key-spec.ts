// The vocabulary of the configuration description (schema.ts): one constructor per kind of key,
// each returning a ConfigKeySpec that carries the key's dotted name, default, description,
// validation and the TypeBox schema of its value in GatewayConfig. The description is a tree
// shaped like GatewayConfig; `objectSchemaOf` and `keysOf` turn it into the result schema and the
// flat key table, so neither is written by hand.
import {
  Type,
  type TArray,
  type TBoolean,
  type TEnum,
  type TInteger,
  type TNull,
  type TObject,
  type TSchema,
  type TString,
  type TUnion,
} from 'typebox';
import type { StringCheck } from './checks.ts';

export type ConfigKind = 'string' | 'integer' | 'boolean' | 'duration' | 'enum' | 'string-list' | 'claim-mappings';

/** A default as it would be written in gateway.yaml; null means "unset". */
export type ConfigDefault = string | number | boolean | readonly string[] | null;

/** A default computed from the values of other keys (e.g. the base URL from the port in force). */
export interface DerivedDefault {
  /** The default for display, e.g. `http://127.0.0.1:<port>`. */
  readonly text: string;
  readonly from: (valueOf: (key: string) => unknown) => string;
}

export interface ConfigKeySpec<S extends TSchema = TSchema> {
  /** Dotted key, e.g. `gateway.webhooks.max-attempts`. */
  readonly key: string;
  readonly kind: ConfigKind;
  /** The schema of the value in GatewayConfig (durations in milliseconds). */
  readonly schema: S;
  readonly default: ConfigDefault;
  readonly derivedDefault?: DerivedDefault;
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
  /** string: a further check (URL, cron expression). */
  readonly check?: StringCheck;
  /** string: the stored form of an accepted value. */
  readonly normalise?: (value: string) => string;
  /** Holds a secret: its value never appears in an error message. */
  readonly secret?: boolean;
  /** Cannot be set from the environment. */
  readonly fileOnly?: boolean;
  /** The feature that reads the key does not exist yet: setting it has no effect. */
  readonly notBuilt?: boolean;
  /** Values whose feature does not exist yet (the key itself is read). */
  readonly notBuiltValues?: readonly string[];
}

type Options = Partial<
  Pick<ConfigKeySpec, 'secret' | 'fileOnly' | 'notBuilt' | 'notBuiltValues' | 'check' | 'normalise' | 'pattern'>
>;
type IntegerOptions = Options & { readonly min?: number; readonly max?: number };
type DurationOptions = Options & { readonly positive?: boolean; readonly allowNegative?: boolean };

export const MAX_INT = Number.MAX_SAFE_INTEGER;

const nullable = <S extends TSchema>(schema: S): TUnion<[S, TNull]> => Type.Union([schema, Type.Null()]);

/** A string; its default may be computed from other keys. */
export const text = (
  key: string,
  fallback: string | DerivedDefault,
  description: string,
  options: Options = {},
): ConfigKeySpec<TString> => ({
  key,
  kind: 'string',
  schema: Type.String(),
  description,
  ...options,
  ...(typeof fallback === 'string' ? { default: fallback } : { default: null, derivedDefault: fallback }),
});

/**
 * The constructor of keys of one kind whose value has a fixed schema: `(key, default, description, options)`.
 * `schema` is called once a key, so no two keys share a schema object.
 */
const keyKind =
  <S extends TSchema, F extends ConfigDefault, O extends Options = Options>(kind: ConfigKind, schema: () => S) =>
  (key: string, fallback: F, description: string, options?: O): ConfigKeySpec<S> => ({
    key,
    kind,
    schema: schema(),
    default: fallback,
    description,
    ...options,
  });

const nullableText = keyKind<TUnion<[TString, TNull]>, null>('string', () => nullable(Type.String()));
const nullableDuration = keyKind<TUnion<[TInteger, TNull]>, null, DurationOptions>('duration', () =>
  nullable(Type.Integer()),
);

/** A string with no default (unset: null). */
export const optionalText = (key: string, description: string, options?: Options) =>
  nullableText(key, null, description, options);

export const integer = (
  key: string,
  fallback: number,
  description: string,
  options: IntegerOptions = {},
): ConfigKeySpec<TInteger> => {
  const min = options.min ?? 0;
  const max = options.max ?? MAX_INT;
  return {
    ...keyKind('integer', () => Type.Integer({ minimum: min, maximum: max }))(key, fallback, description, options),
    min,
    max,
  };
};

/** A positive integer (sizes, counts). */
export const count = (key: string, fallback: number, description: string, options: Options = {}) =>
  integer(key, fallback, description, { ...options, min: 1 });

export const flag = keyKind<TBoolean, boolean>('boolean', () => Type.Boolean());

/** A duration written as `5s`, held in milliseconds. */
export const duration = keyKind<TInteger, string, DurationOptions>('duration', () => Type.Integer());

/** A duration with no default (unset: null). */
export const optionalDuration = (key: string, description: string, options?: DurationOptions) =>
  nullableDuration(key, null, description, options);

export const choice = <const V extends string[]>(
  key: string,
  allowed: readonly [...V],
  fallback: V[number],
  description: string,
  options: Options = {},
): ConfigKeySpec<TEnum<V>> => ({
  ...keyKind('enum', () => Type.Enum(allowed))(key, fallback, description, options),
  allowed,
});

export const list = keyKind<TArray<TString>, readonly string[]>('string-list', () => Type.Array(Type.String()));

// ---------------------------------------------------------------------------------------
// From the tree to the result schema and the key table.

/** The description: nested like GatewayConfig, a ConfigKeySpec at every leaf. */
export interface ConfigTree {
  readonly [name: string]: ConfigKeySpec | ConfigTree;
}

export type SchemaOfTree<T extends ConfigTree> = {
  -readonly [K in keyof T]: T[K] extends ConfigKeySpec<infer S>
    ? S
    : T[K] extends ConfigTree
      ? TObject<SchemaOfTree<T[K]>>
      : never;
};

export function isKeySpec(node: ConfigKeySpec | ConfigTree): node is ConfigKeySpec {
  return typeof node.key === 'string' && typeof node.kind === 'string';
}

/** The closed TypeBox object whose static type is the typed configuration. */
export function objectSchemaOf<T extends ConfigTree>(tree: T): TObject<SchemaOfTree<T>> {
  const properties = Object.fromEntries(
    Object.entries(tree).map(([name, node]) => [name, isKeySpec(node) ? node.schema : objectSchemaOf(node)]),
  );
  return Type.Object(properties, { additionalProperties: false }) as unknown as TObject<SchemaOfTree<T>>;
}

/** A key and where its value sits in GatewayConfig (`webhooks.maxAttempts`). */
export type PlacedKeySpec = ConfigKeySpec & { readonly prop: string };

/** Every key of the tree, in the order the description lists them. */
export function keysOf(tree: ConfigTree, at: readonly string[] = []): PlacedKeySpec[] {
  return Object.entries(tree).flatMap(([name, node]) =>
    isKeySpec(node) ? [{ ...node, prop: [...at, name].join('.') }] : keysOf(node, [...at, name]),
  );
}
