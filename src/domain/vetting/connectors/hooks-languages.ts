// Which language a script is written in, by its `#!` line or else its extension, and the analysis of a
// Python or JavaScript/TypeScript script: parsed with its grammar and evaluated (hooks-python.ts,
// hooks-javascript.ts) into the risks, facts and plugin files it runs. Code of one of these languages
// held in a string of another (`python3 -c`, `node -e`) is read the same way, at the line that runs it.
import { dirname } from '../../plugin/paths.ts';
import type { Analysis } from './hooks-analysis-types.ts';
import { ruleOrder } from './hooks-effects.ts';
import type { Flow } from './hooks-flow.ts';
import { analyseJavaScript } from './hooks-javascript.ts';
import type { Nested } from './hooks-programs.ts';
import { analysePython } from './hooks-python.ts';
import type { Invocation } from './hooks-reach.ts';
import type { Parsers, ShellNode } from './hooks-syntax.ts';

export type Language = 'shell' | 'python' | 'javascript' | 'typescript' | 'tsx' | 'other';

const byExtension: readonly (readonly [RegExp, Language])[] = [
  [/\.pyw?$/i, 'python'],
  [/\.(?:js|mjs|cjs|jsx)$/i, 'javascript'],
  [/\.(?:ts|mts|cts)$/i, 'typescript'],
  [/\.tsx$/i, 'tsx'],
  [/\.(?:rb|pl|php|ps1|psm1|lua|go|java|kt|swift|rs|cmd|bat)$/i, 'other'],
];

/** The language of a script: its `#!` line (through `env -S`, `uv run`, `npx tsx`), else its extension, else shell. */
export function languageOf(path: string, text: string): Language {
  const extension = byExtension.find(([pattern]) => pattern.test(path))?.[1];
  const shebang = /^#!([^\n]*)/.exec(text)?.[1];
  if (shebang !== undefined) {
    for (const word of shebang.trim().split(/\s+/)) {
      const program = word.replace(/^.*\//, '');
      if (/^(?:env|-\S*|[A-Za-z_]\w*=.*|run|exec|--script|npx|pnpx|bunx|-y|--yes)$/.test(program)) continue;
      if (/^(?:ba|z|k|da|a|mk)?sh$/.test(program)) return /\.(?:cmd|bat)$/i.test(path) ? 'shell' : 'shell';
      if (/^(?:python[\d.]*|pythonw|pypy[\d.]*|uv|uvx|pipx)$/.test(program)) return 'python';
      if (/^(?:node|nodejs)$/.test(program))
        return extension === 'typescript' || extension === 'tsx' ? extension : 'javascript';
      if (/^(?:tsx|ts-node|deno|bun)$/.test(program))
        return extension === 'javascript' || extension === 'tsx' ? extension : 'typescript';
      return 'other';
    }
  }
  if (/\.(?:cmd|bat)$/i.test(path)) return 'shell'; // a cmd/bash polyglot: hooks-analysis.ts reads both halves
  return extension ?? 'shell';
}

/** The parse of a language, or null when the connector has no parser for it. */
export const parserOf = (parsers: Parsers, language: Language) =>
  language === 'python' || language === 'javascript' || language === 'typescript' || language === 'tsx'
    ? parsers[language]
    : null;

type CodeLanguage = 'python' | 'javascript' | 'typescript' | 'tsx';

/** Evaluation steps allowed beyond one reading of each statement and function (calls followed, passes). */
const budget = 200_000;

function evaluate(flow: Flow, language: CodeLanguage, tree: ShellNode): void {
  const nested: Nested = (inner, code, node) => {
    if (flow.depth >= 3) return;
    const child: Flow = { ...flow, source: code, at: flow.at ?? node.line, depth: flow.depth + 1, changed: false };
    const parse = inner === 'python' ? flow.parsers.python : flow.parsers.javascript;
    evaluate(child, inner, parse(code));
  };
  if (language === 'python') analysePython(flow, tree, flow.parsers.python, nested);
  else analyseJavaScript(flow, tree, flow.parsers[language], nested);
}

/** Reads a Python or JavaScript/TypeScript script of a plugin rooted at `root`. */
export function analyseCode(
  parsers: Parsers,
  language: CodeLanguage,
  file: Readonly<{ path: string; text: string }>,
  root: string,
  exists: (path: string) => boolean,
): Analysis {
  const python = language === 'python';
  const flow: Flow = {
    source: file.text,
    parsers,
    at: null,
    depth: 0,
    changed: false,
    budget,
    report: { risks: new Map(), facts: new Map(), runs: [] },
    files: new Map(),
    dir: dirname(file.path),
    root,
    exists,
    path: file.path,
    own:
      root === ''
        ? ''
        : `${root
            .replace(/^.*\//, '')
            .toUpperCase()
            .replace(/[^A-Z0-9]+/g, '_')}_`,
    names: python ? { env: 'os.environ', input: 'sys.stdin' } : { env: 'process.env', input: 'process.stdin' },
    commandLines: new Map(),
  };
  evaluate(flow, language, parsers[language](file.text));

  const risks = [...flow.report.risks.values()];
  // A request that sends data out or runs what it fetched is reported as that, not also as a fetch.
  const louder = new Set(risks.filter((r) => r.id !== 'hooks-remote-fetch').map((r) => r.line));
  const seen = new Set<string>();
  const runs: Invocation[] = [];
  for (const run of flow.report.runs) {
    const key = `${run.path}\u0000${run.args.join('\u0000')}`;
    if (!seen.has(key) && seen.add(key)) runs.push(run);
  }
  return {
    risks: risks
      .filter((r) => r.id !== 'hooks-remote-fetch' || !louder.has(r.line))
      .sort((a, b) => a.line - b.line || ruleOrder(a.id) - ruleOrder(b.id)),
    runs,
    facts: [...flow.report.facts.values()].sort(
      (a, b) => a.line - b.line || a.kind.localeCompare(b.kind) || a.value.localeCompare(b.value),
    ),
  };
}
