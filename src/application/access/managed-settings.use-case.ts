import type { CommonQueryMethods } from '../../adapters/postgres/pool.ts';
import { liveMarketplaces } from '../../projections/marketplaces/marketplaces.queries.ts';
import { reject } from '../kernel/rejected.ts';

/** A marketplace source in Claude Code's settings (docs/plugin-format.md): a git repository by URL. */
type GitSource = Readonly<{ source: 'git'; url: string }>;

/**
 * A Claude Code `managed-settings.json` (docs/plugin-format.md, docs/clients.md): the gateway's marketplaces registered
 * by URL through the facade, and an allowlist that admits the gateway's host alone.
 */
export type ManagedSettings = Readonly<{
  extraKnownMarketplaces: Readonly<Record<string, Readonly<{ source: GitSource }>>>;
  strictKnownMarketplaces: Array<Readonly<{ source: 'hostPattern'; hostPattern: string }>>;
}>;

/** The most names one request may choose (the query parameter is a comma-separated list). */
export const maxChosenMarketplaces = 100;

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * The anchored pattern Claude Code matches a git source's host against: the hostname alone (the CLI
 * compares `URL.hostname`, so no port), every regular-expression character escaped.
 */
export const hostPatternOf = (baseUrl: string): string => `^${escapeRegExp(new URL(baseUrl).hostname)}$`;

/** The settings for `names` (already resolved, in order) on the gateway at `baseUrl`. Pure. */
export function managedSettingsFor(baseUrl: string, names: readonly string[]): ManagedSettings {
  const base = baseUrl.replace(/\/+$/, '');
  return {
    extraKnownMarketplaces: Object.fromEntries(
      names.map((name) => [name, { source: { source: 'git', url: `${base}/git/${encodeURIComponent(name)}.git` } }]),
    ),
    strictKnownMarketplaces: [{ source: 'hostPattern', hostPattern: hostPatternOf(baseUrl) }],
  };
}

/**
 * The names a `marketplaces` query parameter chooses: comma-separated, trimmed, each once, in the order
 * given. Null when the parameter is absent. An empty entry or too many are refused.
 */
export function parseChosen(raw: string | undefined): string[] | null {
  if (raw === undefined) return null;
  const names = raw.split(',').map((name) => name.trim());
  if (names.some((name) => name === ''))
    throw reject('invalid-request', 'marketplaces: a comma-separated list of marketplace names, none empty');
  const unique = [...new Set(names)];
  if (unique.length > maxChosenMarketplaces)
    throw reject('invalid-request', `marketplaces: at most ${maxChosenMarketplaces} names`);
  return unique;
}

export type ManagedSettingsDeps = Readonly<{
  pool: CommonQueryMethods;
  baseUrl: string;
  /** The catalog's name when it is enabled, else null. */
  catalogName: string | null;
}>;

/**
 * The organisation's managed settings. Without a choice: the catalog when it is enabled, else every live
 * marketplace. With one: each chosen name must be the catalog or a live marketplace (404 otherwise,
 * naming every unknown one).
 */
export async function managedSettings(deps: ManagedSettingsDeps, chosen: string[] | null): Promise<ManagedSettings> {
  const live = (await liveMarketplaces(deps.pool)).map((m) => m.name);
  if (chosen === null) return managedSettingsFor(deps.baseUrl, deps.catalogName === null ? live : [deps.catalogName]);
  const known = new Set(deps.catalogName === null ? live : [deps.catalogName, ...live]);
  const unknown = chosen.filter((name) => !known.has(name));
  if (unknown.length > 0)
    throw reject('marketplace-not-found', `no live marketplace (or enabled catalog) named ${unknown.join(', ')}`, {
      unknown,
    });
  return managedSettingsFor(deps.baseUrl, chosen);
}
