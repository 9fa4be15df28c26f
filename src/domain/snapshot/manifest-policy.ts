// What a captured commit's .claude-plugin/marketplace.json must satisfy to be held for review; a
// commit that breaks it is captured as rejected with the violation (spec: the ingest still succeeds).

export type ManifestPlugin = Readonly<{ name: string; source: string }>;
export type ManifestReading =
  | Readonly<{ ok: true; name: string | null; description: string | null; plugins: readonly ManifestPlugin[] }>
  | Readonly<{ ok: false; violation: string }>;

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
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return bad(`${manifestPath} is not a JSON object`);
  const manifest = parsed as Record<string, unknown>;
  if (!Array.isArray(manifest.plugins)) return bad(`${manifestPath} has no plugins array`);
  const plugins: ManifestPlugin[] = [];
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
      return bad(`plugin '${name}' has an external ${kind} source; resolving external sources into a composite commit is not supported yet`);
    }
    return bad(`plugin '${name}' has a source of type '${String(kind)}' that the gateway cannot pin to a commit`);
  }
  const description = typeof manifest.description === 'string' ? manifest.description
    : typeof (manifest.metadata as Record<string, unknown> | undefined)?.description === 'string'
      ? String((manifest.metadata as Record<string, unknown>).description) : null;
  return { ok: true, name: typeof manifest.name === 'string' ? manifest.name : null, description, plugins };
}
