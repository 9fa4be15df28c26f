// The hooks connector: every hook a plugin registers (hooks.json, plugin.json, the marketplace entry,
// skill, command and agent frontmatter) runs on the user's machine without asking, so its command line,
// and the plugin scripts it calls, are checked for remote code execution, credential access and data
// leaving the machine. Shell (hook command lines and shell scripts) is parsed (tree-sitter's bash
// grammar, loaded by the adapter and handed in as a ShellParser) and judged on what it executes;
// scripts in other languages are checked line by line with patterns (hooks-lines.ts), best effort.
import type { Hook } from '../../plugin/layout-context.ts';
import { layoutOf } from '../../plugin/layout.ts';
import { inside } from '../../plugin/paths.ts';
import { fileNotScanned, locationOf, type Finding, type PureScanner, type ScanFile } from '../findings.ts';
import { excerpt, isLoopback, lineRisks, urlHosts } from './hooks-lines.ts';
import { scriptRisks, type LocatedRisk } from './hooks-shell.ts';
import type { ShellParser } from './hooks-syntax.ts';

// The mcp connector reads server command lines with the same patterns.
export { excerpt, isLoopback, remoteCodeExecution, urlHosts } from './hooks-lines.ts';
export type { ShellParser } from './hooks-syntax.ts';

/** Plugin files a command calls through ${CLAUDE_PLUGIN_ROOT}, as repository paths. */
const scriptPaths = (command: string, root: string): string[] =>
  [...command.matchAll(/\$\{?CLAUDE_PLUGIN_ROOT\}?((?:\/[^\s"'`;|&<>()$]+)+)/g)]
    .map((m) => inside(root, `.${m[1]!}`))
    .filter((path): path is string => path !== null);

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

/** Risks of a script that is not shell: its lines (with `\` continuations), comments skipped. */
function lineByLine(text: string): LocatedRisk[] {
  const risks: LocatedRisk[] = [];
  const lines = text.split(/\r?\n/);
  for (let k = 0; k < lines.length; k++) {
    const first = k;
    let line = lines[k]!;
    while (line.endsWith('\\') && k + 1 < lines.length) line = `${line.slice(0, -1)} ${lines[++k]!}`;
    if (/^\s*(?:#|\/\/)/.test(line)) continue; // comments do not run
    for (const risk of lineRisks(line)) risks.push({ ...risk, line: first + 1 });
  }
  return risks;
}

const scriptFindings = (file: ScanFile & { text: string }, hook: Hook, parse: ShellParser): Finding[] =>
  (isShell(file.path, file.text) ? scriptRisks(file.text, parse) : lineByLine(file.text)).map((risk) => ({
    id: risk.id,
    severity: risk.severity,
    location: locationOf(file.path, risk.line),
    message: `script run by ${hookName(hook)} ${risk.what}: ${risk.fragment}`,
  }));

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
    const scripts = new Set<string>();
    let hooks = 0;
    for (const plugin of layout.plugins) {
      for (const hook of plugin.hooks) {
        hooks++;
        if (hook.type === 'http') {
          const finding = httpHookFinding(hook);
          if (finding) findings.push(finding);
          continue;
        }
        if (hook.type !== 'command') continue;
        findings.push(...commandFindings(hook, parse));
        if (plugin.root === null) continue;
        for (const path of scriptPaths(hook.runs, plugin.root)) {
          if (scripts.has(path)) continue;
          scripts.add(path);
          const file = input.byPath.get(path);
          if (file?.oversized) findings.push(fileNotScanned(file, input.maxFileBytes));
          if (file?.text == null) continue;
          findings.push(...scriptFindings({ ...file, text: file.text }, hook, parse));
        }
      }
    }
    return {
      findings,
      detail: `${count(layout.plugins.length, 'plugin')}, ${count(hooks, 'hook')}, ${count(scripts.size, 'script')} examined`,
    };
  };

export const hooksConnector: Readonly<{ name: 'hooks'; description: string }> = {
  name: 'hooks',
  description:
    'Hooks of every plugin (hooks.json, plugin.json, marketplace entry, skill and agent frontmatter) and the plugin scripts they run, shell read with a bash parser: remote code execution, credential access, data sent off the machine',
};
