// Paths in a marketplace tree: normalising a declared path inside its plugin, finding the files under a
// directory, and where an entry's source puts its plugin. Pure string work over repository paths.
import type { ScanFile } from '../kernel/findings.ts';
import { relativeSourceProblem } from './manifest-policy.ts';

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
export const join = (...parts: string[]): string => parts.filter((part) => part !== '').join('/');
export const basename = (path: string): string => path.slice(path.lastIndexOf('/') + 1);
export const dirname = (path: string): string => (path.includes('/') ? path.slice(0, path.lastIndexOf('/')) : '');

/** `path` inside `base`, normalised; null when it is absolute, not a plain path, or climbs out of `base`. */
export function inside(base: string, path: string): string | null {
  const relative = path.replace(/^\$\{CLAUDE_PLUGIN_ROOT\}|^\$CLAUDE_PLUGIN_ROOT(?![A-Za-z0-9_])/, '.');
  if (/^(?:\/|~|[A-Za-z]:)/.test(relative) || relative.includes('\\') || relative.includes('\0')) return null;
  const segments: string[] = [];
  for (const segment of relative.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment !== '..') segments.push(segment);
    else if (segments.pop() === undefined) return null;
  }
  return join(base, ...segments);
}

/** Every file path under a directory ('' for all), sorted; a range lookup over the sorted paths, not a scan. */
export function pathIndex(files: ReadonlyMap<string, ScanFile>): (dir: string) => readonly string[] {
  const sorted = [...files.keys()].sort();
  return (dir) => {
    if (dir === '') return sorted;
    const prefix = `${dir}/`;
    let lo = 0;
    let hi = sorted.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (sorted[mid]! < prefix) lo = mid + 1;
      else hi = mid;
    }
    let end = lo;
    while (end < sorted.length && sorted[end]!.startsWith(prefix)) end++;
    return sorted.slice(lo, end);
  };
}

/** The short form of a source for display: the string as written, `github:owner/repo` for objects. */
export function sourceText(source: unknown): string {
  if (typeof source === 'string') return source;
  if (!isObject(source)) return '';
  const kind = typeof source.source === 'string' ? source.source : 'unknown';
  const where = [source.repo, source.url, source.package, source.command].find(
    (v): v is string => typeof v === 'string',
  );
  const path = typeof source.path === 'string' && source.path !== '' ? `//${source.path}` : '';
  return where === undefined ? kind : `${kind}:${where}${path}`;
}

/** Sources the gateway resolves into the tree before vetting (manifest-policy.ts); not content here. */
const externalKinds = new Set(['github', 'url', 'git-subdir']);

export type SourceResolution = Readonly<{
  /** The plugin directory in the tree; null when the content is elsewhere or the source is refused. */
  root: string | null;
  problem: Readonly<{ kind: 'escapes' | 'unsupported' | 'invalid'; message: string }> | null;
}>;

/** Where an entry's source puts the plugin; `pluginRoot` is metadata.pluginRoot (undefined: not set; null: escaping). */
export function resolveSource(source: unknown, pluginRoot: string | null | undefined): SourceResolution {
  const refuse = (kind: 'escapes' | 'unsupported' | 'invalid', message: string): SourceResolution => ({
    root: null,
    problem: { kind, message },
  });
  if (typeof source === 'string') {
    if (source.startsWith('./')) {
      const reason = relativeSourceProblem(source);
      if (reason !== null) return refuse(source.split('/').includes('..') ? 'escapes' : 'unsupported', reason);
      return { root: inside('', source), problem: null };
    }
    if (/^[A-Za-z0-9._-]+$/.test(source) && source !== '.' && source !== '..') {
      if (pluginRoot === undefined) return refuse('unsupported', `bare source '${source}' needs metadata.pluginRoot`);
      return { root: pluginRoot === null ? null : join(pluginRoot, source), problem: null };
    }
    return refuse('unsupported', `source '${source.slice(0, 80)}' is neither a './' path nor a source object`);
  }
  if (!isObject(source)) return refuse('invalid', 'has no source');
  const kind = typeof source.source === 'string' ? source.source : '';
  if (!externalKinds.has(kind))
    return refuse(
      'unsupported',
      `source type '${kind.slice(0, 40)}' is not supported (relative paths, github, url and git-subdir are)`,
    );
  return { root: null, problem: null };
}
