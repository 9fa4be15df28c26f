// Domain concepts (the folders directly under src/domain) never import each other in a cycle, two-way or longer:
// one concept reads another only in one direction. src/domain/kernel is below them all and imports no concept;
// the root files (src/domain/events.ts, the union of every concept's events) are left out. Run by `npm run lint`
// over dependency-cruiser's module graph (with its configuration, so type-only imports count).
import { cruise, type ICruiseResult } from 'dependency-cruiser';
import extractDepcruiseOptions from 'dependency-cruiser/config-utl/extract-depcruise-options';
import extractTSConfig from 'dependency-cruiser/config-utl/extract-ts-config';

/** What the check reads of a module graph: each module's path and the paths it imports. */
export type ModuleGraph = ReadonlyArray<
  Readonly<{ source: string; dependencies: ReadonlyArray<Readonly<{ resolved: string }>> }>
>;

/** Concepts that import each other (a cycle of two or more), or the kernel and a concept it imports. */
export type ConceptProblem = Readonly<{
  concepts: readonly string[];
  /** The imports that make it, `from -> to`, sorted. */
  imports: readonly string[];
}>;

export const kernel = 'kernel';

/** The concept a path belongs to: its folder directly under src/domain, or null (outside, or a root file). */
export const conceptOf = (path: string): string | null => /^src\/domain\/([^/]+)\//.exec(path)?.[1] ?? null;

/** The concept graph: for each concept, the concepts it imports and, per edge, the imports that make it. */
function conceptEdges(modules: ModuleGraph): Map<string, Map<string, string[]>> {
  const edges = new Map<string, Map<string, string[]>>();
  for (const module of modules) {
    const from = conceptOf(module.source);
    if (from === null) continue;
    for (const { resolved } of module.dependencies) {
      const to = conceptOf(resolved);
      if (to === null || to === from) continue;
      const out = edges.get(from) ?? new Map<string, string[]>();
      edges.set(from, out);
      out.set(to, [...(out.get(to) ?? []), `${module.source} -> ${resolved}`]);
    }
  }
  return edges;
}

/** Strongly connected components (Tarjan) of the concepts other than the kernel, those of more than one concept. */
function cycles(edges: ReadonlyMap<string, ReadonlyMap<string, readonly string[]>>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const found: string[][] = [];
  const next = (concept: string) => [...(edges.get(concept)?.keys() ?? [])].filter((to) => to !== kernel).sort();
  const visit = (concept: string): void => {
    index.set(concept, index.size);
    low.set(concept, index.get(concept)!);
    stack.push(concept);
    for (const to of next(concept)) {
      if (!index.has(to)) {
        visit(to);
        low.set(concept, Math.min(low.get(concept)!, low.get(to)!));
      } else if (stack.includes(to)) low.set(concept, Math.min(low.get(concept)!, index.get(to)!));
    }
    if (low.get(concept) !== index.get(concept)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      component.push(member);
    } while (member !== concept);
    if (component.length > 1) found.push(component.sort());
  };
  for (const concept of [...edges.keys()].filter((c) => c !== kernel).sort()) if (!index.has(concept)) visit(concept);
  return found;
}

/** Every cycle between concepts, and every import of a concept by the kernel; empty when the layering holds. */
export function conceptProblems(modules: ModuleGraph): ConceptProblem[] {
  const edges = conceptEdges(modules);
  const fromKernel = [...(edges.get(kernel)?.entries() ?? [])].map(([to, imports]) => ({
    concepts: [kernel, to],
    imports: [...imports].sort(),
  }));
  const around = cycles(edges).map((concepts) => ({
    concepts,
    imports: concepts.flatMap((from) => concepts.flatMap((to) => edges.get(from)?.get(to) ?? [])).sort(),
  }));
  return [...fromKernel, ...around];
}

export function describeProblem({ concepts, imports }: ConceptProblem): string {
  const head =
    concepts[0] === kernel
      ? `the domain kernel imports the concept ${concepts[1]}: the kernel is below every concept`
      : `domain concepts import each other: ${concepts.join(concepts.length === 2 ? ' <-> ' : ', ')}` +
        ' (one concept reads another in one direction only; move what both need to where it belongs, or to the kernel)';
  return [head, ...imports.map((line) => `  ${line}`)].join('\n');
}

async function main(): Promise<number> {
  const options = await extractDepcruiseOptions('./.dependency-cruiser.cjs');
  const { output } = await cruise(['src/domain'], { ...options, validate: false }, undefined, {
    tsConfig: extractTSConfig('tsconfig.json'),
  });
  const problems = conceptProblems((output as ICruiseResult).modules);
  for (const problem of problems) console.error(describeProblem(problem));
  if (problems.length === 0) console.log('domain concepts: no two import each other');
  return problems.length === 0 ? 0 : 1;
}

if (import.meta.url === `file://${process.argv[1]}`) process.exitCode = await main();
