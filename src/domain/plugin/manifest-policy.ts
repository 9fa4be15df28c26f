// What a captured commit's .claude-plugin/marketplace.json must satisfy to be held for review; a
// commit that breaks it is captured as rejected with the violation (the ingest still succeeds; docs/marketplaces.md).
import { parseJson } from './json-document.ts';

export type ManifestPlugin = Readonly<{ name: string; source: string }>;

/** A plugin whose content lives in another git repository; resolved into the composite commit. */
export type ExternalPlugin = Readonly<{
  name: string;
  kind: 'github' | 'url' | 'git-subdir';
  url: string;
  /** Branch or tag; null: the default branch. */
  ref: string | null;
  /** A full commit id, which wins over ref. */
  sha: string | null;
  /** git-subdir: the directory inside the repository; '' for the whole repository. */
  path: string;
}>;

export type ManifestReading =
  | Readonly<{
      ok: true;
      name: string | null;
      description: string | null;
      plugins: readonly ManifestPlugin[];
      externals: readonly ExternalPlugin[];
      text: string;
    }>
  | Readonly<{ ok: false; violation: string }>;

/** Where resolved external plugins are placed in the composite tree (relative sources point here). */
export const externalRoot = '.gateway-external';

export const manifestPath = '.claude-plugin/marketplace.json';

// Sources the gateway serves from the captured tree itself. External forms (github, url, git-subdir)
// are resolved into a composite commit; npm, archive and command sources fetch or run code the
// gateway cannot pin to a commit, and are refused.
const externalGitSources = new Set(['github', 'url', 'git-subdir']);

const bad = (violation: string): ManifestReading => ({ ok: false, violation });

/** A relative source that stays inside the repository: `./…`, no `..` segment, no absolute path. */
export function relativeSourceProblem(source: string): string | null {
  if (!source.startsWith('./')) return `relative plugin sources start with './' (got '${source}')`;
  if (source.split('/').some((segment) => segment === '..')) return `plugin source '${source}' escapes the repository`;
  if (source.includes('\\') || source.includes('\u0000')) return `plugin source '${source}' is not a plain path`;
  return null;
}

export function readManifest(text: string | null): ManifestReading {
  if (text === null) return bad(`${manifestPath} is missing`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    return bad(`${manifestPath} is not valid JSON: ${error instanceof Error ? error.message : 'parse error'}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    return bad(`${manifestPath} is not a JSON object`);
  const manifest = parsed as Record<string, unknown>;
  if (!Array.isArray(manifest.plugins)) return bad(`${manifestPath} has no plugins array`);
  const plugins: ManifestPlugin[] = [];
  const externals: ExternalPlugin[] = [];
  const seen = new Set<string>();
  for (const [index, entry] of manifest.plugins.entries()) {
    if (typeof entry !== 'object' || entry === null) return bad(`plugins[${index}] is not an object`);
    const { name, source } = entry as Record<string, unknown>;
    if (typeof name !== 'string' || name.trim() === '') return bad(`plugins[${index}] has no name`);
    if (seen.has(name)) return bad(`plugin name '${name}' is listed twice`);
    seen.add(name);
    if (typeof source === 'string') {
      const problem = relativeSourceProblem(source);
      if (problem) return bad(`plugin '${name}': ${problem}`);
      plugins.push({ name, source });
      continue;
    }
    if (typeof source !== 'object' || source === null) return bad(`plugin '${name}' has no source`);
    const kind = (source as Record<string, unknown>).source;
    if (typeof kind === 'string' && externalGitSources.has(kind)) {
      const external = externalOf(name, kind as ExternalPlugin['kind'], source as Record<string, unknown>);
      if (typeof external === 'string') return bad(`plugin '${name}': ${external}`);
      externals.push(external);
      continue;
    }
    return bad(`plugin '${name}' has a source of type '${String(kind)}' that the gateway cannot pin to a commit`);
  }
  const description =
    typeof manifest.description === 'string'
      ? manifest.description
      : typeof (manifest.metadata as Record<string, unknown> | undefined)?.description === 'string'
        ? String((manifest.metadata as Record<string, unknown>).description)
        : null;
  return {
    ok: true,
    name: typeof manifest.name === 'string' ? manifest.name : null,
    description,
    plugins,
    externals,
    text,
  };
}

const fullSha = /^[0-9a-f]{40}$/;
const safeName = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

function externalOf(
  name: string,
  kind: ExternalPlugin['kind'],
  source: Record<string, unknown>,
): ExternalPlugin | string {
  if (!safeName.test(name)) return 'an external plugin needs a plain name (letters, digits, . _ -)';
  const ref = typeof source.ref === 'string' && source.ref !== '' ? source.ref : null;
  const sha = typeof source.sha === 'string' && source.sha !== '' ? source.sha : null;
  if (sha !== null && !fullSha.test(sha)) return `sha '${sha}' is not a full 40-character commit id`;
  if (ref !== null && (ref.startsWith('-') || ref.includes('..') || /[\s~^:?*[\\]/.test(ref)))
    return `ref '${ref}' is not a valid ref name`;
  let url: string;
  if (kind === 'github') {
    if (typeof source.repo !== 'string' || !/^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/.test(source.repo))
      return 'a github source needs repo as owner/name';
    url = `https://github.com/${source.repo.replace(/\.git$/, '')}.git`;
  } else {
    if (typeof source.url !== 'string') return `a ${kind} source needs a url`;
    // git-subdir accepts the owner/repo shorthand for GitHub.
    url =
      kind === 'git-subdir' && /^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/.test(source.url)
        ? `https://github.com/${source.url}.git`
        : source.url;
  }
  let path = '';
  if (kind === 'git-subdir') {
    if (typeof source.path !== 'string' || source.path.trim() === '') return 'a git-subdir source needs a path';
    path = source.path.replace(/^\.?\/+/, '').replace(/\/+$/, '');
    if (path.split('/').some((segment) => segment === '..' || segment === '') || path.includes('\\'))
      return `path '${source.path}' escapes the repository`;
  }
  return { name, kind, url, ref, sha, path };
}

/**
 * More external sources than a marketplace may have resolved (gateway.ingest.max-external-sources): a
 * violation, so the snapshot is captured as rejected before the gateway fetches anything.
 */
export function externalSourcesOverLimit(count: number, max: number): string | null {
  return count > max
    ? `${count} external plugin sources; at most ${max} are resolved (gateway.ingest.max-external-sources)`
    : null;
}

/**
 * The manifest of the composite commit: each resolved external plugin's entry points at its copy
 * inside the tree (`./.gateway-external/<name>`), so the served repository is self-contained; the
 * entries of withheld plugins (sources that could not be read) are left out, so they are never served.
 */
export function rewriteExternalSources(
  text: string,
  externals: ReadonlyArray<Pick<ExternalPlugin, 'name'>>,
  withheld: readonly string[] = [],
): string {
  const manifest = JSON.parse(text) as { plugins: Array<Record<string, unknown>> };
  const names = new Set(externals.map((e) => e.name));
  const left = new Set(withheld);
  manifest.plugins = manifest.plugins.filter((entry) => !(typeof entry.name === 'string' && left.has(entry.name)));
  for (const entry of manifest.plugins) {
    if (typeof entry.name === 'string' && names.has(entry.name)) entry.source = `./${externalRoot}/${entry.name}`;
  }
  return `${JSON.stringify(manifest, null, 2)}\n`;
}

/** A plugin withheld from the composite because its external source could not be read. */
export type UnresolvedSource = Readonly<{
  plugin: string;
  /** The entry's `source` as written in the upstream manifest. */
  source: Readonly<Record<string, unknown>>;
  /** What failed and why ("… unreadable: <root cause>"). */
  reason: string;
  nextStep: string;
  /** The line of the plugin's entry in the upstream manifest (the vetting finding's location). */
  line: number;
}>;

/** A source as written, with any user information in its URLs masked (it is recorded and shown). */
function withoutUserinfo(source: Readonly<Record<string, unknown>>): Readonly<Record<string, unknown>> {
  const mask = (value: unknown) =>
    typeof value === 'string' ? value.replace(/^([a-z][a-z0-9+.-]*:\/*)[^/?#]*@/i, '$1***@') : value;
  return Object.fromEntries(Object.entries(source).map(([key, value]) => [key, mask(value)]));
}

export type SourceFailure = Readonly<{ plugin: string; reason: string; nextStep: string }>;

/**
 * The unresolved sources of a manifest, in the order of its entries, each with its source as written
 * and the line of its entry in `text` (the upstream manifest, which still lists it).
 */
export function unresolvedSources(text: string, failures: readonly SourceFailure[]): UnresolvedSource[] {
  if (failures.length === 0) return [];
  const doc = parseJson(text);
  if (!('value' in doc)) return failures.map((f) => ({ ...f, source: {}, line: 1 }));
  const entries = (doc.value as { plugins: unknown[] }).plugins;
  const byName = new Map(failures.map((f) => [f.plugin, f]));
  const found: UnresolvedSource[] = [];
  for (const [index, entry] of entries.entries()) {
    const { name, source } = entry as Record<string, unknown>;
    const failure = typeof name === 'string' ? byName.get(name) : undefined;
    if (failure === undefined) continue;
    const written = typeof source === 'object' && source !== null ? (source as Record<string, unknown>) : {};
    found.push({ ...failure, source: withoutUserinfo(written), line: doc.lineOf(entries, index) });
  }
  return found;
}
