// What a shell script can do once installed, from its syntax tree: the facts of the capability
// inventory (hosts it contacts, variables and credential files it reads, programs it runs, files it
// writes outside the project).
import type { ScriptFact } from './hooks-analysis.ts';
import type { ShellNode } from './hooks-syntax.ts';

export function shellFacts(_source: string, _tree: ShellNode): ScriptFact[] {
  return [];
}
