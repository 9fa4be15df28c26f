// The virtual catalog (docs/marketplaces.md, The virtual catalog): one marketplace listing every plugin of every served
// marketplace, each plugin's tree placed under plugins/<marketplace>/<dir>. This module decides what the
// catalog lists and writes its two small files; the trees themselves are composed by git (catalog-store.ts).
import { inside, resolveSource } from '../plugin/paths.ts';
import { manifestPath } from '../plugin/manifest-policy.ts';
import type { CatalogCollision, CatalogConstituent } from './catalog.events.ts';

export const catalogManifestPath = manifestPath;
/** Constituents and collisions, recorded in the catalog commit itself. */
export const catalogRecordPath = '.claude-plugin/gateway-catalog.json';
export const catalogPluginsDir = 'plugins';
/** Bumped when the catalog's layout changes, so that a served catalog of an older layout is rebuilt. */
export const catalogFormat = 1;

/** A served marketplace: its name, served commit and that commit's marketplace.json (null: unreadable). */
export type ServedManifest = Readonly<{ marketplace: string; sha: string; manifest: string | null }>;

/** A plugin the catalog lists once its directory is found in the constituent's tree. */
export type Candidate = Readonly<{
  marketplace: string;
  sha: string;
  name: string;
  /** The plugin directory in the constituent's tree ('' for its root). */
  root: string;
  /** The plugin's directory under plugins/<marketplace>/ in the catalog. */
  dir: string;
  entry: Readonly<Record<string, unknown>>;
}>;

/** A claim the catalog does not list, and why (recorded in the commit, never silently dropped). */
export type Skipped = Readonly<{ marketplace: string; name: string; reason: string }>;

export type CatalogPlan = Readonly<{
  /** In marketplace name order. */
  constituents: readonly CatalogConstituent[];
  /** Uncontested plugins, in name order. */
  candidates: readonly Candidate[];
  /** In name order. */
  collisions: readonly CatalogCollision[];
  skipped: readonly Skipped[];
}>;

/** What the catalog commit records about itself (catalogRecordPath). */
export type CatalogRecord = Readonly<{
  format: number;
  catalog: string;
  generatedAt: string;
  constituents: readonly CatalogConstituent[];
  collisions: readonly CatalogCollision[];
  skipped: readonly Skipped[];
  /** The fingerprint of the gateway-guard plugin the catalog carries (gateway.catalog.guard); absent without it. */
  guard?: string;
}>;

/** A plugin of the gateway's own that the catalog lists besides the constituents' (guard-plugin.ts). */
export type FirstPartyPlugin = Readonly<{ entry: Readonly<Record<string, unknown>>; fingerprint: string }>;

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
// Code-point order: the same on every machine whatever its locale.
const byText = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

// A plugin name used as a directory as is: portable on every file system git checks out to (no
// separators, no leading dot, so never `.git`, no trailing dot or space). Any other name gets `.entry-<n>`.
const portableName = /^[A-Za-z0-9](?:[A-Za-z0-9 ._-]{0,126}[A-Za-z0-9_-])?$/;

type Claim = Readonly<{
  marketplace: string;
  sha: string;
  name: string;
  index: number;
  entry: Json;
  pluginRoot: string | null | undefined;
}>;

function claimsOf(served: ServedManifest, skipped: Skipped[]): Claim[] {
  let parsed: unknown = null;
  try {
    parsed = served.manifest === null ? null : JSON.parse(served.manifest);
  } catch {
    parsed = null;
  }
  if (!isObject(parsed) || !Array.isArray(parsed.plugins)) {
    skipped.push({ marketplace: served.marketplace, name: '*', reason: `${manifestPath} is missing or unreadable` });
    return [];
  }
  const metadata = parsed.metadata;
  const pluginRoot =
    isObject(metadata) && typeof metadata.pluginRoot === 'string' ? inside('', metadata.pluginRoot) : undefined;
  const claims: Claim[] = [];
  for (const [index, entry] of parsed.plugins.entries()) {
    if (!isObject(entry) || typeof entry.name !== 'string' || entry.name.trim() === '') continue;
    claims.push({ marketplace: served.marketplace, sha: served.sha, name: entry.name, index, entry, pluginRoot });
  }
  return claims;
}

/**
 * Every plugin name of every served marketplace: a name claimed more than once (by two marketplaces, or
 * twice within one) is a collision and published for no claimant; the others are candidates.
 */
export function planCatalog(served: readonly ServedManifest[]): CatalogPlan {
  const ordered = [...served].sort((a, b) => byText(a.marketplace, b.marketplace));
  const skipped: Skipped[] = [];
  const byName = new Map<string, Claim[]>();
  for (const constituent of ordered) {
    for (const claim of claimsOf(constituent, skipped))
      byName.set(claim.name, [...(byName.get(claim.name) ?? []), claim]);
  }
  const collisions: CatalogCollision[] = [];
  const candidates: Candidate[] = [];
  const usedDirs = new Map<string, Set<string>>();
  for (const name of [...byName.keys()].sort(byText)) {
    const claims = byName.get(name)!;
    if (claims.length > 1) {
      collisions.push({ name, marketplaces: claims.map((c) => c.marketplace).sort(byText) });
      continue;
    }
    const claim = claims[0]!;
    const resolved = resolveSource(claim.entry.source, claim.pluginRoot);
    if (resolved.root === null) {
      skipped.push({
        marketplace: claim.marketplace,
        name,
        reason: resolved.problem?.message ?? 'the plugin source is not inside the served commit',
      });
      continue;
    }
    // Directories differing only in case would clash on a case-insensitive checkout.
    const used = usedDirs.get(claim.marketplace) ?? new Set<string>();
    usedDirs.set(claim.marketplace, used);
    const dir = portableName.test(name) && !used.has(name.toLowerCase()) ? name : `.entry-${claim.index}`;
    used.add(dir.toLowerCase());
    candidates.push({
      marketplace: claim.marketplace,
      sha: claim.sha,
      name,
      root: resolved.root,
      dir,
      entry: claim.entry,
    });
  }
  return {
    constituents: ordered.map((c) => ({ marketplace: c.marketplace, sha: c.sha })),
    candidates,
    collisions,
    skipped,
  };
}

/** Where a listed plugin lives in the catalog tree. */
export const catalogPluginPath = (candidate: Pick<Candidate, 'marketplace' | 'dir'>): string =>
  `${catalogPluginsDir}/${candidate.marketplace}/${candidate.dir}`;

export type CatalogFiles = Readonly<{ manifest: string; recordText: string; record: CatalogRecord; message: string }>;

/**
 * The catalog's marketplace.json (each listed entry as its marketplace wrote it, `source` pointing at
 * its copy in the catalog), the record of constituents and collisions, and the commit message.
 * `listed` are the candidates whose directory was found; `missing` those whose was not.
 */
export function catalogFiles(
  input: Readonly<{
    catalog: string;
    generatedAt: string;
    plan: CatalogPlan;
    listed: readonly Candidate[];
    missing: readonly Skipped[];
    guard?: FirstPartyPlugin | null;
  }>,
): CatalogFiles {
  const { catalog, generatedAt, plan } = input;
  const guard = input.guard ?? null;
  const entries = input.listed.map((candidate): Readonly<Record<string, unknown>> => ({
    ...candidate.entry,
    source: `./${catalogPluginPath(candidate)}`,
  }));
  const plugins = [...entries, ...(guard === null ? [] : [guard.entry])].sort((a, b) =>
    byText(String(a.name), String(b.name)),
  );
  const manifest = {
    name: catalog,
    owner: { name: 'Skill Marketplace Gateway' },
    description: `Every plugin the gateway serves, from ${plan.constituents.length} marketplace${plan.constituents.length === 1 ? '' : 's'}`,
    plugins,
  };
  const record: CatalogRecord = {
    format: catalogFormat,
    catalog,
    generatedAt,
    constituents: plan.constituents,
    collisions: plan.collisions,
    skipped: [...plan.skipped, ...input.missing],
    ...(guard === null ? {} : { guard: guard.fingerprint }),
  };
  const message = [
    `Catalog ${catalog}: ${plugins.length} plugin${plugins.length === 1 ? '' : 's'} from ${plan.constituents.length} marketplace${plan.constituents.length === 1 ? '' : 's'}`,
    '',
    `Generated at ${generatedAt}.`,
    '',
    'Constituents:',
    ...plan.constituents.map((c) => `  ${c.marketplace} ${c.sha}`),
    ...(plan.collisions.length === 0
      ? []
      : [
          '',
          'Withheld (name claimed more than once):',
          ...plan.collisions.map((c) => `  ${c.name}: ${c.marketplaces.join(', ')}`),
        ]),
    '',
  ].join('\n');
  return {
    manifest: `${JSON.stringify(manifest, null, 2)}\n`,
    recordText: `${JSON.stringify(record, null, 2)}\n`,
    record,
    message,
  };
}

const isText = (value: unknown): value is string => typeof value === 'string';

/** The record of a served catalog commit, or null when it is absent or not one this gateway wrote. */
export function readCatalogRecord(text: string | null): CatalogRecord | null {
  if (text === null) return null;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (!isObject(value) || typeof value.format !== 'number' || !isText(value.catalog) || !isText(value.generatedAt))
    return null;
  const { constituents, collisions, skipped } = value;
  if (!Array.isArray(constituents) || !Array.isArray(collisions)) return null;
  const okConstituents = constituents.every((c) => isObject(c) && isText(c.marketplace) && isText(c.sha));
  const okCollisions = collisions.every(
    (c) => isObject(c) && isText(c.name) && Array.isArray(c.marketplaces) && c.marketplaces.every(isText),
  );
  if (!okConstituents || !okCollisions) return null;
  return {
    format: value.format,
    catalog: value.catalog,
    generatedAt: value.generatedAt,
    constituents: (constituents as Json[]).map((c) => ({ marketplace: c.marketplace as string, sha: c.sha as string })),
    collisions: (collisions as Json[]).map((c) => ({
      name: c.name as string,
      marketplaces: [...(c.marketplaces as string[])],
    })),
    skipped: Array.isArray(skipped)
      ? skipped
          .filter((s): s is Json => isObject(s) && isText(s.marketplace) && isText(s.name) && isText(s.reason))
          .map((s) => ({ marketplace: s.marketplace as string, name: s.name as string, reason: s.reason as string }))
      : [],
    ...(isText(value.guard) ? { guard: value.guard } : {}),
  };
}

const sameList = (a: readonly string[], b: readonly string[]): boolean =>
  a.length === b.length && a.every((x, i) => x === b[i]);

/**
 * Whether a served catalog was built, in this layout and under this name, from exactly these commits, with
 * the guard plugin of this fingerprint (null: without it).
 */
export function isCurrent(
  record: CatalogRecord | null,
  catalog: string,
  constituents: readonly CatalogConstituent[],
  guard: string | null = null,
): boolean {
  if (record === null || record.format !== catalogFormat || record.catalog !== catalog) return false;
  if ((record.guard ?? null) !== guard) return false;
  const ordered = [...constituents].sort((a, b) => byText(a.marketplace, b.marketplace));
  return (
    record.constituents.length === ordered.length &&
    record.constituents.every((c, i) => c.marketplace === ordered[i]!.marketplace && c.sha === ordered[i]!.sha)
  );
}

/** Collisions not withheld (with the same claimants) by the revision served before: each is recorded once. */
export function newlyWithheld(
  previous: readonly CatalogCollision[] | null,
  current: readonly CatalogCollision[],
): CatalogCollision[] {
  return current.filter(
    (c) => !(previous ?? []).some((p) => p.name === c.name && sameList(p.marketplaces, c.marketplaces)),
  );
}
