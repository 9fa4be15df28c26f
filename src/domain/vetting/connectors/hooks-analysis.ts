// What one script does, read once however many hooks reach it: the risks a reviewer must see, the
// plugin files it runs (for hooks-reach.ts), and the facts of what it can do once installed (the
// capability inventory). Shell, Python and JavaScript/TypeScript are parsed with tree-sitter's grammars
// (handed in as Parsers) and judged on what they execute and where their data goes (hooks-shell.ts,
// hooks-python.ts, hooks-javascript.ts); scripts in other languages (Ruby, Perl, PowerShell, batch)
// are checked line by line with patterns (hooks-lines.ts), best effort.
import { dirname } from '../../plugin/paths.ts';
import type { ScanFile } from '../../kernel/findings.ts';
import { shellFacts } from './hooks-facts.ts';
import { httpPost, lineRisks } from './hooks-lines.ts';
import { commandWords, invocationOf, quotedCommands, resolveWord, type Invocation } from './hooks-reach.ts';
import { scriptRisks, type LocatedRisk } from './hooks-shell.ts';
import type { Analysis } from './hooks-analysis-types.ts';
import { analyseCode, languageOf, parserOf } from './hooks-languages.ts';
import { javascriptMayAct, pythonMayAct, sloppyMode } from './hooks-vocabulary.ts';
import { childOf, nodesWhere, type Parsers, type ShellNode, type ShellParser } from './hooks-syntax.ts';

export { capabilityKinds, type Analysis, type CapabilityKind, type ScriptFact } from './hooks-analysis-types.ts';

/** Reads one script of a plugin rooted at `root`; `exists` says whether a path is a file of the tree. */
export type ScriptAnalyser = (
  file: ScanFile & { text: string },
  root: string,
  exists: (path: string) => boolean,
) => Analysis;

/** How scripts are read: the analyser, and the bash parser hook command lines are read with. */
export type ScriptReading = Readonly<{ analyse: ScriptAnalyser; parse: ShellParser }>;

/**
 * Risks of a script that is not shell: its lines (with `\` continuations), comments skipped. An HTTP
 * client's POST is data leaving the machine only when the program also reads credentials; otherwise it is
 * an API client talking to its service, shown as MEDIUM.
 */
export function lineByLine(text: string): LocatedRisk[] {
  const risks: LocatedRisk[] = [];
  const lines = text.split(/\r?\n/);
  for (let k = 0; k < lines.length; k++) {
    const first = k;
    let line = lines[k]!;
    while (line.endsWith('\\') && k + 1 < lines.length) line = `${line.slice(0, -1)} ${lines[++k]!}`;
    if (/^\s*(?:#|\/\/|@?rem\b|::)/i.test(line)) continue; // comments do not run
    for (const risk of lineRisks(line)) risks.push({ ...risk, line: first + 1 });
  }
  if (risks.some((risk) => risk.id === 'hooks-credential-access')) return risks;
  return risks.map((risk) =>
    risk.what === httpPost.what
      ? { ...risk, id: 'hooks-remote-fetch', severity: 'MEDIUM', what: 'posts to the network with an HTTP client' }
      : risk,
  );
}

/** The lines of the batch half of a polyglot wrapper (heredocs given to `:`), by the patterns. */
function batchRisks(text: string, tree: ShellNode): LocatedRisk[] {
  const risks: LocatedRisk[] = [];
  for (const statement of nodesWhere(tree, (n) => n.type === 'redirected_statement')) {
    const body = childOf(statement, 'body');
    const name = body?.type === 'command' ? childOf(body, 'name') : undefined;
    if (name === undefined || text.slice(name.start, name.end) !== ':') continue;
    for (const heredoc of nodesWhere(statement, (n) => n.type === 'heredoc_body')) {
      const offset = heredoc.line - 1;
      for (const risk of lineByLine(text.slice(heredoc.start, heredoc.end)))
        risks.push({ ...risk, line: risk.line + offset });
    }
  }
  return risks;
}

/** The analyser over the parsers the adapter loads (src/adapters/vetting/syntax-parsers.ts). */
export const scriptAnalyser =
  (parsers: Parsers): ScriptAnalyser =>
  (file, root, exists) => {
    const parse = parsers.bash;
    const dir = dirname(file.path);
    const resolve = (words: readonly string[]) => invocationOf(words, dir, root, exists);
    const language = languageOf(file.path, file.text);
    const shell = language === 'shell';
    const quoted = quotedCommands(file.text, !shell)
      .map((words) => invocationOf(words, dir, root, exists, false))
      .filter((run): run is Invocation => run !== null && run.path !== file.path);
    if (parserOf(parsers, language) !== null) {
      const local = (module: string) =>
        [`${module.replaceAll('.', '/')}.py`, `${module.replaceAll('.', '/')}/__init__.py`].some(
          (candidate) => resolveWord(candidate, dir, root, exists) !== null,
        );
      const acts =
        language === 'python'
          ? pythonMayAct(file.text, local)
          : javascriptMayAct(file.text, sloppyMode(file.path, file.text));
      if (!acts) return { risks: [], runs: quoted, facts: [] };
      const code = analyseCode(parsers, language as 'python', file, root, exists);
      const seen = new Set(code.runs.map((run) => run.path));
      return { ...code, runs: [...code.runs, ...quoted.filter((run) => !seen.has(run.path))] };
    }
    if (!shell) return { risks: lineByLine(file.text), runs: quoted, facts: [] };
    const tree = parse(file.text);
    const runs = commandWords(file.text, tree)
      .map(resolve)
      .filter((run): run is Invocation => run !== null && run.path !== file.path);
    // The batch half of a cmd/bash polyglot hides from bash in a heredoc given to `:`; Windows runs it.
    const batch = /\.(?:cmd|bat)$/i.test(file.path) ? batchRisks(file.text, tree) : [];
    return {
      risks: [...scriptRisks(file.text, parse, tree), ...batch],
      runs: [...runs, ...quoted],
      facts: shellFacts(file.text, tree, parse),
    };
  };

/** Where a script is read for: its path and the root of the plugin it is read for. */
export type ScriptPlace = Readonly<{ path: string; root: string }>;

/**
 * A reading that answers from readings made ahead (`analyses[k]` is the reading of `places[k]`) and reads
 * any other file on the spot with `reading`.
 */
export function readAhead(
  reading: ScriptReading,
  places: readonly ScriptPlace[],
  analyses: readonly Analysis[],
): ScriptReading {
  const read = new Map<string, Analysis>();
  places.forEach(({ path, root }, k) => read.set(`${root}\u0000${path}`, analyses[k]!));
  return {
    parse: reading.parse,
    analyse: (file, root, exists) => read.get(`${root}\u0000${file.path}`) ?? reading.analyse(file, root, exists),
  };
}
