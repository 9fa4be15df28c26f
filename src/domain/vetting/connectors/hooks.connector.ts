// The hooks connector: every hook a plugin registers (hooks.json, plugin.json, the marketplace entry,
// skill, command and agent frontmatter) runs on the user's machine without asking, so its command line,
// and every script the plugin ships, are checked for remote code execution, credential access and data
// leaving the machine. A script's findings say which hook is shown to run it and through which
// wrappers (hooks-scripts.ts, hooks-reach.ts), or that no hook is: a script nothing names may still be
// run by one that computes its path, so its findings keep their severity (decision 360). What a script
// risks is read by hooks-analysis.ts.
import type { Hook } from '../../plugin/layout-context.ts';
import { layoutOf } from '../../plugin/layout.ts';
import { fileNotScanned, locationOf, type Finding, type PureScanner } from '../../kernel/findings.ts';
import type { ScriptReading } from './hooks-analysis.ts';
import { excerpt, isLoopback, urlHosts } from './hooks-lines.ts';
import type { Origin } from './hooks-reach.ts';
import { hookName, pluginScripts } from './hooks-scripts.ts';
import { scriptRisks } from './hooks-shell.ts';
import type { ShellParser } from './hooks-syntax.ts';

// The mcp connector reads server command lines with the same patterns.
export { excerpt, isLoopback, remoteCodeExecution, urlHosts } from './hooks-lines.ts';
export type { ShellParser } from './hooks-syntax.ts';

const count = (n: number, noun: string): string => `${n} ${noun}${n === 1 ? '' : 's'}`;

const runBy = (origin: Origin | null): string => {
  if (origin === null) return 'script not shown to be run by a hook';
  const through = origin.through.length > 0 ? ` through ${origin.through.join(', ')}` : '';
  return `script run by ${origin.label}${through}${origin.hook ? '' : ' (not shown to be run by a hook)'}`;
};

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

/** The hooks scanner over the parsers the adapter loads (src/adapters/vetting/script-reading.ts). */
export const hooksScanner = ({ analyse, parse }: ScriptReading): PureScanner => {
  return (input) => {
    const layout = layoutOf(input);
    const findings = declarationFindings(input, layout);
    let hooks = 0;
    let examined = 0;
    for (const plugin of layout.plugins) {
      for (const hook of plugin.hooks) {
        hooks++;
        if (hook.type !== 'http') continue;
        const finding = httpHookFinding(hook);
        if (finding) findings.push(finding);
      }
    }
    for (const { commandHooks, scripts } of pluginScripts(input, layout, analyse, parse)) {
      for (const hook of commandHooks) findings.push(...commandFindings(hook, parse));
      for (const { path, origin, analysis } of scripts) {
        examined++;
        const file = input.byPath.get(path);
        if (file?.oversized) findings.push(fileNotScanned(file, input.maxFileBytes));
        for (const risk of analysis?.risks ?? [])
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
      detail: `${count(layout.plugins.length, 'plugin')}, ${count(hooks, 'hook')}, ${count(examined, 'script')} examined`,
    };
  };
};

export const hooksConnector: Readonly<{ name: 'hooks'; description: string }> = {
  name: 'hooks',
  description:
    'Hooks of every plugin (hooks.json, plugin.json, marketplace entry, skill and agent frontmatter) and every script a plugin ships, followed from the hook through wrappers, sourced files and interpreters (or said to be run by no hook), shell read with a bash parser: remote code execution, decoded code run, credential access, data sent off the machine',
};
