// The mcp connector: MCP and LSP servers start with the plugin and run with the user's rights, so what
// they launch must be pinned: a package fetched at its newest version on every start runs code nobody
// reviewed. Also flags download-and-execute launch lines and servers that talk to remote hosts.
import type { Server } from '../../plugin/layout-context.ts';
import { layoutOf } from '../../plugin/layout.ts';
import { fileNotScanned, type Finding, type PureScanner } from '../../kernel/findings.ts';
import { excerpt, isLoopback, remoteCodeExecution, urlHosts } from './hooks.connector.ts';

const exactNpm = /^(?:@[^/@\s]+\/)?[^@\s]+@v?\d+\.\d+\.\d+(?:[-+][\w.+-]*)?$/;
const exactPython = /^[A-Za-z0-9._-]+(?:\[[^\]]*\])?(?:===?|@)v?\d[\w.+!-]*$/;
// A git spec pinned to a full commit (`github:o/r#<sha>`, `git+https://…@<sha>`).
const pinnedToCommit = /[#@][0-9a-f]{40}$/i;
// Local files (the plugin's own, or absolute) are not fetched from a registry.
const isLocal = (spec: string): boolean => /^(?:\.{1,2}\/|\/|~|\$|[A-Za-z]:\\)/.test(spec);

type Runner = Readonly<{
  tool: string;
  ecosystem: 'npm' | 'python';
  optionsWithValue: ReadonlySet<string>;
  /** Options naming the package to run: the positional after them is a command, not a package. */
  packageOptions: ReadonlySet<string>;
  /** Options adding packages beside the one run (`uvx --with`): the positional is still a package. */
  extraPackageOptions: ReadonlySet<string>;
}>;

const npmRunner = (tool: string): Runner => ({
  tool,
  ecosystem: 'npm',
  optionsWithValue: new Set(['--registry', '--cache', '--userconfig', '-w', '--workspace', '-c', '--call']),
  packageOptions: new Set(['-p', '--package']),
  extraPackageOptions: new Set(),
});
const pythonRunner = (tool: string): Runner => ({
  tool,
  ecosystem: 'python',
  optionsWithValue: new Set([
    '-p',
    '--python',
    '--index-url',
    '-i',
    '--extra-index-url',
    '--index',
    '--default-index',
    '-c',
    '--constraints',
    '--pip-args',
  ]),
  packageOptions: new Set(['--from', '--spec']),
  extraPackageOptions: new Set(['--with', '-w', '--with-editable']),
});

/** The runner a launch line uses at `k` (`npx`, `npm exec`, `uvx`, `pipx run`…), and how many words it takes. */
function runnerAt(words: readonly string[], k: number): [Runner, number] | null {
  const word = (words[k] ?? '').replace(/^.*[\\/]/, '').replace(/\.(?:cmd|exe)$/i, '');
  const next = words[k + 1];
  if (word === 'npx' || word === 'bunx' || word === 'pnpx') return [npmRunner(word), 1];
  if (
    (word === 'npm' && (next === 'exec' || next === 'x')) ||
    ((word === 'pnpm' || word === 'yarn') && next === 'dlx') ||
    (word === 'bun' && next === 'x')
  ) {
    return [npmRunner(`${word} ${next}`), 2];
  }
  if (word === 'uvx') return [pythonRunner(word), 1];
  if (word === 'uv' && next === 'tool' && words[k + 2] === 'run') return [pythonRunner('uv tool run'), 3];
  if (word === 'pipx' && next === 'run') return [pythonRunner('pipx run'), 2];
  return null;
}

/** A package a launch line fetches and runs, with the runner that fetches it. */
export type Launched = Readonly<{
  spec: string;
  tool: string;
  ecosystem: 'npm' | 'python';
  /** Added beside the package run (`uvx --with x`), not the one run. */
  extra: boolean;
}>;

/** Every package spec a launch line runs through npx, uvx, pipx run and the like, as written. */
export function launchedPackages(words: readonly string[]): Launched[] {
  const out: Launched[] = [];
  for (let k = 0; k < words.length; k++) {
    const found = runnerAt(words, k);
    if (found === null) continue;
    const [runner, width] = found;
    const launched = (spec: string, extra: boolean): void => {
      out.push({ spec, tool: runner.tool, ecosystem: runner.ecosystem, extra });
    };
    let named = false; // an explicit --package/--from names the package; the positional is then a command
    let j = k + width;
    for (; j < words.length; j++) {
      const word = words[j]!;
      const [option, inline] =
        word.startsWith('--') && word.includes('=')
          ? [word.slice(0, word.indexOf('=')), word.slice(word.indexOf('=') + 1)]
          : [word, null];
      if (runner.packageOptions.has(option)) {
        launched(inline ?? words[++j] ?? '', false);
        named = true;
        continue;
      }
      if (runner.extraPackageOptions.has(option)) {
        launched(inline ?? words[++j] ?? '', true);
        continue;
      }
      if (runner.optionsWithValue.has(option)) {
        if (inline === null) j++;
        continue;
      }
      if (word === '--' || word.startsWith('-')) continue;
      if (!named) launched(word, false);
      break;
    }
    k = j;
  }
  return out;
}

/** Package specs a launch line runs without an exact version, with the runner that fetches them. */
export function unpinnedPackages(words: readonly string[]): Array<Readonly<{ spec: string; tool: string }>> {
  return launchedPackages(words)
    .filter(({ spec, ecosystem }) => {
      const exact = ecosystem === 'npm' ? exactNpm : exactPython;
      return spec !== '' && !isLocal(spec) && !exact.test(spec) && !pinnedToCommit.test(spec);
    })
    .map(({ spec, tool }) => ({ spec, tool }));
}

// `sh -c "npx -y pkg"` and `cmd /c npx …` carry the real launch line inside one argument.
export const wordsOf = (server: Server): string[] =>
  [server.config.command ?? '', ...server.config.args]
    .flatMap((part) => part.split(/\s+/))
    .map((w) => w.replace(/^["']|["']$/g, ''))
    .filter((w) => w !== '');

const remoteTypes = new Set(['http', 'sse', 'ws', 'streamable-http', 'streamableHttp']);

const count = (n: number, noun: string): string => `${n} ${noun}${n === 1 ? '' : 's'}`;

const scan: PureScanner = (input) => {
  const layout = layoutOf(input);
  const findings: Finding[] = [];
  for (const { file, area } of layout.unread) {
    if (area === 'mcpServers' || area === 'lspServers') findings.push(fileNotScanned(file, input.maxFileBytes));
  }
  for (const problem of layout.problems) {
    if (
      (problem.area === 'mcpServers' || problem.area === 'lspServers') &&
      (problem.kind === 'syntax' || problem.kind === 'invalid')
    ) {
      findings.push({
        id: 'mcp-unparseable',
        severity: 'MEDIUM',
        location: problem.location,
        message: `a server declaration cannot be read and was not vetted: ${excerpt(problem.message, 160)}`,
      });
    }
  }
  let servers = 0;
  for (const plugin of layout.plugins) {
    for (const [kind, list] of [
      ['MCP', plugin.mcpServers],
      ['LSP', plugin.lspServers],
    ] as const) {
      for (const server of list) {
        servers++;
        const label = `${kind} server '${excerpt(server.name, 60)}' of plugin '${excerpt(plugin.name, 60)}'`;
        const add = (id: string, severity: Finding['severity'], message: string) =>
          findings.push({ id, severity, location: server.location, message: `${label} ${message}` });
        const words = wordsOf(server);
        const line = words.join(' ');
        const match = remoteCodeExecution.patterns.map((pattern) => pattern.exec(line)).find((m) => m !== null);
        if (match)
          add(
            'mcp-download-and-execute',
            'CRITICAL',
            `downloads and executes remote code: ${excerpt(line.slice(match.index))}`,
          );
        for (const { spec, tool } of unpinnedPackages(words)) {
          add(
            'mcp-unpinned-package',
            'HIGH',
            `runs '${excerpt(spec, 80)}' through ${tool} without an exact version, so every start may run different code`,
          );
        }
        const { url, type } = server.config;
        const urlHost = url === null ? null : (urlHosts(url)[0] ?? null);
        if ((url !== null || (type !== null && remoteTypes.has(type))) && (urlHost === null || !isLoopback(urlHost))) {
          const plain = url !== null && /^(?:http|ws):/i.test(url) ? ' over an unencrypted connection' : '';
          add(
            'mcp-remote-server',
            'MEDIUM',
            `talks to the remote host ${urlHost ?? '(unknown)'}${plain}: tool calls and their data leave the machine`,
          );
        } else if (!match) {
          // a download-and-execute line's URL is already reported
          const remote = server.config.args.flatMap(urlHosts).find((host) => !isLoopback(host));
          if (remote !== undefined)
            add('mcp-remote-server', 'MEDIUM', `is given the remote URL host ${remote} in its arguments`);
        }
      }
    }
  }
  return { findings, detail: `${count(layout.plugins.length, 'plugin')}, ${count(servers, 'server')} examined` };
};

export const mcpConnector: Readonly<{ name: 'mcp'; description: string; scan: PureScanner }> = {
  name: 'mcp',
  description:
    'MCP and LSP servers of every plugin: unpinned packages (npx, uvx, pipx run), download-and-execute launch lines, remote endpoints',
  scan,
};
