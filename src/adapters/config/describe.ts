// The configuration as people read it: the key list behind `gateway config` and
// docs/configuration.md, and the warnings a gateway logs at startup about its configuration.
import type { ConfigDefault, ConfigKind, PlacedKeySpec } from './key-spec.ts';
import type { LoadedConfig } from './load.ts';
import { configKeyTable, envVarName } from './schema.ts';
import { envOverridable, specByKey } from './sources.ts';

export interface ConfigKeyInfo {
  readonly key: string;
  readonly kind: ConfigKind;
  /** The overriding environment variable; null for file-only keys. */
  readonly env: string | null;
  /** The default as written in gateway.yaml; null means unset or computed (see defaultText). */
  readonly default: ConfigDefault;
  /** The default for display: `5s`, `8080`, `[http, https]`, `unset`, `http://127.0.0.1:<port>`. */
  readonly defaultText: string;
  /** For enum keys, the allowed values. */
  readonly allowed: readonly string[] | null;
  readonly description: string;
  readonly secret: boolean;
  /** 'yes'; 'no' when the feature that reads the key does not exist yet; else the values not built yet. */
  readonly built: 'yes' | 'no' | Readonly<{ notBuiltValues: readonly string[] }>;
}

/** Every configuration key with its default and description (for `gateway config` and the docs). */
export function configKeys(): readonly ConfigKeyInfo[] {
  return Object.freeze(configKeyTable.map((spec) => Object.freeze(infoOf(spec))));
}

function infoOf(spec: PlacedKeySpec): ConfigKeyInfo {
  return {
    key: spec.key,
    kind: spec.kind,
    env: envOverridable(spec) ? envVarName(spec.key) : null,
    default: spec.default,
    defaultText: spec.derivedDefault?.text ?? defaultText(spec.default),
    allowed: spec.allowed ?? null,
    description: spec.description,
    secret: spec.secret === true,
    built: builtOf(spec),
  };
}

function builtOf(spec: PlacedKeySpec): ConfigKeyInfo['built'] {
  if (spec.notBuilt === true) return 'no';
  if (spec.notBuiltValues !== undefined) return { notBuiltValues: spec.notBuiltValues };
  return 'yes';
}

/** How `built` reads in a sentence: `not built yet`, `object-store: not built yet`, or ''. */
export function builtNote(info: ConfigKeyInfo): string {
  if (info.built === 'yes') return '';
  if (info.built === 'no') return 'not built yet';
  return `${info.built.notBuiltValues.join(', ')}: not built yet`;
}

function defaultText(value: ConfigDefault): string {
  if (value === null) return 'unset';
  if (Array.isArray(value)) return `[${(value as readonly string[]).join(', ')}]`;
  return String(value);
}

/**
 * What an operator must hear when the gateway starts: a key set for a feature that does not exist
 * yet (it would otherwise pass in silence), and the development authentication hatch.
 */
export function startupWarnings({ config, given }: LoadedConfig): string[] {
  const warnings: string[] = [];
  for (const key of given) {
    const spec = specByKey.get(key);
    if (spec?.notBuilt === true) warnings.push(`${key}: not built yet: the setting has no effect`);
    const value = spec === undefined ? undefined : valueAt(config, spec.prop);
    if (typeof value === 'string' && spec?.notBuiltValues?.includes(value) === true) {
      warnings.push(`${key}: '${value}' is not built yet: the setting has no effect`);
    }
  }
  if (config.devInsecureAuth) {
    warnings.push(
      'gateway.dev-insecure-auth is on: any caller can act as anyone via the X-Dev-User header; ' +
        'for development only, never in production',
    );
  }
  return warnings;
}

function valueAt(config: object, prop: string): unknown {
  return prop.split('.').reduce<unknown>((node, part) => (node as Record<string, unknown>)[part], config);
}
