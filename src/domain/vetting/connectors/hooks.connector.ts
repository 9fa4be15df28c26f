// The hooks connector: every hook a plugin registers (hooks.json, plugin.json, the marketplace entry,
// skill, command and agent frontmatter) runs on the user's machine without asking, so its command line,
// and every script the plugin ships, are checked for remote code execution, credential access and data
// leaving the machine. A script's findings say which hook is shown to run it and through which
// wrappers (hooks-reach.ts), or that no hook is: a script nothing names may still be run by one that
// computes its path, so its findings keep their severity (decision 360). Shell (hook command lines and
// shell scripts) is parsed (tree-sitter's bash grammar, loaded by the adapter and handed in as a
// ShellParser) and judged on what it executes; scripts in other languages are checked line by line
// with patterns (hooks-lines.ts), best effort.
import type { Hook } from '../../plugin/layout-context.ts';
import { layoutOf } from '../../plugin/layout.ts';
import { dirname } from '../../plugin/paths.ts';
import { fileNotScanned, locationOf, type Finding, type PureScanner, type ScanFile } from '../findings.ts';
import { excerpt, httpPost, isLoopback, lineRisks, urlHosts } from './hooks-lines.ts';
import {
  commandWords,
  invocationOf,
  isScript,
  quotedCommands,
  reachOf,
  type Invocation,
  type Origin,
  type Start,
} from './hooks-reach.ts';
import { scriptRisks, type LocatedRisk } from './hooks-shell.ts';
import { childOf, nodesWhere, type ShellNode, type ShellParser } from './hooks-syntax.ts';

// The mcp connector reads server command lines with the same patterns.
export { excerpt, isLoopback, remoteCodeExecution, urlHosts } from './hooks-lines.ts';
export type { ShellParser } from './hooks-syntax.ts';

const hookName = (hook: Hook): string =>
  `${hook.event}${hook.matcher ? ` [${excerpt(hook.matcher, 40)}]` : ''} hook (${hook.declaredBy})`;

const count = (n: number, noun: string): string => `${n} ${noun}${n === 1 ? '' : 's'}`;

/** Shell unless the file says otherwise (its extension or its `#!` line). */
const isShell = (path: string, text: string): boolean => {
  const shebang = /^#!\s*(\S+)(?:\s+(\S+))?/.exec(text);
  if (shebang) {
    const program = (shebang[1]!.endsWith('/env') ? (shebang[2] ?? '') : shebang[1]!).replace(/^.*\//, '');
    return /^(?:ba|z|k|da|a|mk)?sh$/.test(program);
  }
  return !/\.(?:py|pyw|js|mjs|cjs|ts|mts|cts|rb|pl|php|ps1|psm1|lua|go|java|kt|swift|rs)$/i.test(path);
};

/**
 * Risks of a script that is not shell: its lines (with `\` continuations), comments skipped. An HTTP
 * client's POST is data leaving the machine only when the program also reads credentials; otherwise it is
 * an API client talking to its service, shown as MEDIUM.
 */
function lineByLine(text: string): LocatedRisk[] {
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

const runBy = (origin: Origin | null): string => {
  if (origin === null) return 'script not shown to be run by a hook';
  const through = origin.through.length > 0 ? ` through ${origin.through.join(', ')}` : '';
  return `script run by ${origin.label}${through}${origin.hook ? '' : ' (not shown to be run by a hook)'}`;
};

/** What a script runs and risks, read once however many hooks reach it. */
type Analysis = Readonly<{ risks: readonly LocatedRisk[]; runs: readonly Invocation[] }>;

function analyse(
  file: ScanFile & { text: string },
  root: string,
  exists: (path: string) => boolean,
  parse: ShellParser,
): Analysis {
  const dir = dirname(file.path);
  const resolve = (words: readonly string[]) => invocationOf(words, dir, root, exists);
  const shell = isShell(file.path, file.text);
  const quoted = quotedCommands(file.text, !shell)
    .map((words) => invocationOf(words, dir, root, exists, false))
    .filter((run): run is Invocation => run !== null && run.path !== file.path);
  if (!shell) return { risks: lineByLine(file.text), runs: quoted };
  const tree = parse(file.text);
  const runs = commandWords(file.text, tree)
    .map(resolve)
    .filter((run): run is Invocation => run !== null && run.path !== file.path);
  // The batch half of a cmd/bash polyglot hides from bash in a heredoc given to `:`; Windows runs it.
  const batch = /\.(?:cmd|bat)$/i.test(file.path) ? batchRisks(file.text, tree) : [];
  return { risks: [...scriptRisks(file.text, parse, tree), ...batch], runs: [...runs, ...quoted] };
}

/** One command line: at most one finding per rule, at the hook's line. */
function commandFindings(hook: Hook, parse: ShellParser): Finding[] {
  const seen = new Set<string>();
  return scriptRisks(hook.runs, parse)
    .filter((risk) => !seen.has(risk.id) && seen.add(risk.id))
    .map((risk) => ({
      id: risk.id,
      severity: risk.severity,
      location: hook.location,
      message: `${hookName(hook)} ${risk.what}: ${risk.fragment}`,
    }));
}

function declarationFindings(input: Parameters<PureScanner>[0], layout: ReturnType<typeof layoutOf>): Finding[] {
  const findings: Finding[] = [];
  for (const { file, area } of layout.unread) {
    if (area === 'hooks' || area === 'skills' || area === 'commands' || area === 'agents')
      findings.push(fileNotScanned(file, input.maxFileBytes));
  }
  for (const problem of layout.problems) {
    if (problem.area === 'hooks' && (problem.kind === 'syntax' || problem.kind === 'invalid')) {
      findings.push({
        id: 'hooks-unparseable',
        severity: 'MEDIUM',
        location: problem.location,
        message: `a hook declaration cannot be read and was not vetted: ${excerpt(problem.message, 160)}`,
      });
    }
  }
  return findings;
}

function httpHookFinding(hook: Hook): Finding | null {
  const host = urlHosts(hook.runs)[0] ?? null;
  if (host !== null && isLoopback(host)) return null;
  return {
    id: 'hooks-remote-http-hook',
    severity: 'HIGH',
    location: hook.location,
    message: `${hookName(hook)} posts session events to ${host ?? 'a remote endpoint'}`,
  };
}

/** The hooks scanner over a shell parser (the adapter loads it: src/adapters/vetting/shell-parser.ts). */
export const hooksScanner =
  (parse: ShellParser): PureScanner =>
  (input) => {
    const layout = layoutOf(input);
    const findings = declarationFindings(input, layout);
    const exists = (path: string): boolean => input.byPath.has(path);
    const examined = new Set<string>();
    let hooks = 0;
    for (const plugin of layout.plugins) {
      const root = plugin.root;
      const analyses = new Map<string, Analysis | null>();
      const analysisOf = (path: string): Analysis | null => {
        if (!analyses.has(path)) {
          const file = input.byPath.get(path);
          analyses.set(
            path,
            file?.text == null || root === null ? null : analyse({ ...file, text: file.text }, root, exists, parse),
          );
        }
        return analyses.get(path)!;
      };
      const starts: Start[] = [];
      for (const hook of plugin.hooks) {
        hooks++;
        if (hook.type === 'http') {
          const finding = httpHookFinding(hook);
          if (finding) findings.push(finding);
          continue;
        }
        if (hook.type !== 'command') continue;
        findings.push(...commandFindings(hook, parse));
        starts.push({
          label: hookName(hook),
          hook: true,
          words: commandWords(hook.runs, parse(hook.runs)),
          text: hook.runs,
        });
      }
      for (const [kind, servers] of [
        ['MCP', plugin.mcpServers],
        ['LSP', plugin.lspServers],
      ] as const) {
        for (const server of servers) {
          const words = [server.config.command ?? '', ...server.config.args];
          starts.push({
            label: `${kind} server '${excerpt(server.name, 60)}'`,
            hook: false,
            words: [words],
            text: words.join(' '),
          });
        }
      }
      if (root === null) continue;
      const reached = reachOf(starts, root, input.byPath, (path) => analysisOf(path)?.runs ?? []);
      // Every script the plugin ships is read, whether or not something is shown to run it.
      const scripts = [...reached.keys()];
      for (const path of layout.under(root)) {
        const file = input.byPath.get(path);
        if (file && !reached.has(path) && isScript(file)) scripts.push(path);
      }
      for (const path of scripts) {
        if (examined.has(path)) continue;
        examined.add(path);
        const file = input.byPath.get(path);
        if (file?.oversized) findings.push(fileNotScanned(file, input.maxFileBytes));
        const origin = reached.get(path) ?? null;
        for (const risk of analysisOf(path)?.risks ?? [])
          findings.push({
            id: risk.id,
            severity: risk.severity,
            location: locationOf(path, risk.line),
            message: `${runBy(origin)} ${risk.what}: ${risk.fragment}`,
          });
      }
    }
    return {
      findings,
      detail: `${count(layout.plugins.length, 'plugin')}, ${count(hooks, 'hook')}, ${count(examined.size, 'script')} examined`,
    };
  };

export const hooksConnector: Readonly<{ name: 'hooks'; description: string }> = {
  name: 'hooks',
  description:
    'Hooks of every plugin (hooks.json, plugin.json, marketplace entry, skill and agent frontmatter) and every script a plugin ships, followed from the hook through wrappers, sourced files and interpreters (or said to be run by no hook), shell read with a bash parser: remote code execution, decoded code run, credential access, data sent off the machine',
};
