import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const repository = fileURLToPath(new URL('../..', import.meta.url));

// Value imports and re-exports (`import type` carries no code), static or dynamic, of relative paths.
const importPattern = /\b(?:import|export)\s+(type\s+)?[^'";]*?\bfrom\s+'(\.[^']+)'|\bimport\(\s*'(\.[^']+)'\s*\)/gs;

/** Every TypeScript file under `src/`, relative to the repository, with the files it imports for their values. */
export function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  const walk = (dir: string): void => {
    for (const entry of readdirSync(join(repository, dir), { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.ts')) graph.set(path, importsOf(path));
    }
  };
  walk('src');
  return graph;
}

function importsOf(file: string): string[] {
  const text = readFileSync(join(repository, file), 'utf8');
  const found: string[] = [];
  for (const match of text.matchAll(importPattern)) {
    if (match[1] !== undefined) continue;
    const specifier = match[2] ?? match[3]!;
    found.push(relative(repository, resolve(repository, dirname(file), specifier)));
  }
  return found;
}

/** The files reachable from `roots` by value imports, not walking on from the files `stop` names. */
export function reachable(graph: Map<string, string[]>, roots: Iterable<string>, stop: (file: string) => boolean) {
  const seen = new Set<string>();
  const pending = [...roots];
  while (pending.length > 0) {
    const file = pending.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    if (!stop(file)) pending.push(...(graph.get(file) ?? []));
  }
  return seen;
}
