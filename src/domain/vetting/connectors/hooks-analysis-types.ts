// What the analysis of one script gives, whatever its language: the risks a reviewer must see, the
// plugin files it runs, and the facts of what it can do once installed (the capability inventory).
import type { Invocation } from './hooks-reach.ts';
import type { LocatedRisk } from './hooks-shell.ts';

/** What a plugin can do once installed, as one script shows it. */
export const capabilityKinds = [
  'contacts-host',
  'reads-env',
  'reads-credentials',
  'runs-program',
  'writes-outside-project',
  'starts-mcp-server',
] as const;
export type CapabilityKind = (typeof capabilityKinds)[number];
/** One thing a script can do, at the line (from 1) that shows it: `value` is a host, a variable, a path … */
export type ScriptFact = Readonly<{ kind: CapabilityKind; value: string; line: number }>;

/** What a script runs, risks and can do. */
export type Analysis = Readonly<{
  risks: readonly LocatedRisk[];
  runs: readonly Invocation[];
  facts: readonly ScriptFact[];
}>;
