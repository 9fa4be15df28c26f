// Curation (docs/marketplaces.md, Selection): the directories of the upstream tree a snapshot does not serve because
// the marketplace's selection left their plugins out. Pure: it reads only the manifest's plugin list.
import type { ManifestPlugin } from '../plugin/manifest-policy.ts';

/** A relative source as a tree path: `./plugins/a/` → `plugins/a`; the repository root is ''. */
export function treePathOf(source: string): string {
  return source
    .split('/')
    .filter((segment) => segment !== '' && segment !== '.')
    .join('/');
}

const within = (path: string, root: string): boolean => root === '' || path === root || path.startsWith(`${root}/`);

/**
 * The directories of left-out local plugins, dropped from the served tree. A directory is kept when
 * a selected plugin lives in it, above it or below it (plugins may share a root, `./` above all), and
 * `.claude-plugin/` always stays (the manifest is rewritten, not removed).
 */
export function leftOutDirectories(plugins: readonly ManifestPlugin[], selected: ReadonlySet<string>): string[] {
  const kept = plugins.filter((p) => selected.has(p.name)).map((p) => treePathOf(p.source));
  const dropped = new Set<string>();
  for (const plugin of plugins) {
    if (selected.has(plugin.name)) continue;
    const path = treePathOf(plugin.source);
    if (path === '' || within(path, '.claude-plugin') || within('.claude-plugin', path)) continue;
    if (kept.some((keep) => within(keep, path) || within(path, keep))) continue;
    dropped.add(path);
  }
  return [...dropped].sort();
}
