// Which plugin files are scripts, and which of them a hook (or an MCP or LSP server) is shown to run:
// the files its command line names, and from there every file those scripts run in turn (an
// interpreter given a file, `source`/`.`, a file run by its path, `exec`, and a wrapper that runs the
// file named by its argument, as `run-hook.cmd session-start` runs `hooks/session-start`). Paths are
// resolved against the plugin root (`${CLAUDE_PLUGIN_ROOT}`) and the calling script's directory
// (`$(dirname "$0")/…`, `"$SCRIPT_DIR/…"`, `./…`); only files present in the tree count.
import { dirname, inside } from '../../plugin/paths.ts';
import type { ScanFile } from '../../kernel/findings.ts';
import { childOf, nodesWhere, wordValue, type ShellNode } from './hooks-syntax.ts';

const scriptExtension = /\.(?:sh|bash|zsh|ksh|py|js|mjs|cjs|ts|mts|cts|rb|pl|ps1|cmd|bat)$/i;
/** Files that hold data, never a program, whatever a command line does with them. */
const dataExtension =
  /\.(?:json|jsonc|md|mdx|txt|ya?ml|toml|lock|ini|cfg|conf|csv|tsv|html?|css|svg|png|jpe?g|gif|ico|xml|log|env|example)$/i;

/** A script: a `#!` line, a script extension (a `.d.ts` declaration file is not one), or the executable bit. */
export const isScript = (file: ScanFile): boolean =>
  file.executable === true ||
  (scriptExtension.test(file.path) && !declarations.test(file.path)) ||
  (file.text?.startsWith('#!') ?? false);
/** TypeScript declaration files: types only, no code TypeScript emits or a runtime runs. */
const declarations = /\.d\.[mc]?ts$/i;

/** Commands that run the file they are given (`bash x`, `python3 x`, `uv run x`, `source x`, `cmd /c x`). */
const launchers =
  /^(?:(?:ba|z|k|da|a|mk)?sh|busybox|source|\.|exec|python[\d.]*|pythonw|py|node|nodejs|deno|bun|bunx|tsx|ts-node|npx|pnpx|uv|uvx|pipx|ruby|perl|php|pwsh|powershell(?:\.exe)?|cmd(?:\.exe)?|call|start|osascript)$/i;
/** Words before the command that really runs (`exec`, `env X=1`, `timeout 5` …). */
const prefixes = /^(?:exec|command|builtin|nohup|time|nice|sudo|doas|env|timeout|stdbuf)$/;

/** A plugin file a word names, or null: `${CLAUDE_PLUGIN_ROOT}/x`, `$DIR/x`, `$(dirname "$0")/x`, `./x`. */
export function resolveWord(
  word: string,
  dir: string | null,
  root: string,
  exists: (path: string) => boolean,
  /** The word is run (a command's name, a launcher's program): its extension does not matter. */
  run = false,
) {
  const candidates: (string | null)[] = [];
  if (/^\$\{?CLAUDE_PLUGIN_ROOT\}?\//.test(word)) candidates.push(inside(root, word));
  else if (dir !== null) {
    const prefix = /^(?:\$\{[^}]*\}|\$\((?:[^()]|\([^()]*\))*\)|\$\w+)\//.exec(word);
    const rest = prefix ? word.slice(prefix[0].length) : word;
    if (rest.includes('$') || rest === '' || /^(?:\/|~|-)/.test(rest)) return null;
    // Relative to the script's directory, which `..` may leave (the plugin root check below still holds).
    candidates.push(inside('', dir === '' ? rest : `${dir}/${rest}`), inside(root, rest));
  }
  for (const path of candidates) {
    if (
      path !== null &&
      (root === '' || path.startsWith(`${root}/`)) &&
      (run || !dataExtension.test(path)) &&
      exists(path)
    )
      return path;
  }
  return null;
}

/** A file one command runs, and the arguments it is given. */
export type Invocation = Readonly<{ path: string; args: readonly string[] }>;

/** What one command (its words) runs: the first word naming a file, if it runs it. */
export function invocationOf(
  words: readonly string[],
  dir: string | null,
  root: string,
  exists: (path: string) => boolean,
  /** False for words found in text (a quoted path may name a data file the program only reads). */
  parsed = true,
): Invocation | null {
  let k = 0;
  while (k < words.length && prefixes.test(words[k]!)) {
    k++;
    while (k < words.length && /^-|^[A-Za-z_]\w*=|^\d+[smhd]?$/.test(words[k]!)) k++;
  }
  const name = (words[k] ?? '').replace(/^.*[/\\]/, '');
  const launcher = launchers.test(name);
  // `bash payload.txt` runs the text file: the name and a launcher's first operand are run whatever they are called.
  const program = words.findIndex((word, i) => i > k && !word.startsWith('-'));
  for (let i = k; i < words.length; i++) {
    if (i > k && !launcher) break;
    const path = resolveWord(words[i]!, dir, root, exists, (i === k && parsed) || i === program);
    if (path !== null) return { path, args: words.slice(i + 1) };
  }
  return null;
}

/** The words of every command of a parsed shell script that may run a plugin file, quotes removed. */
export const commandWords = (source: string, tree: ShellNode): string[][] => [
  ...nodesWhere(tree, (n) => n.type === 'command').flatMap((node) => {
    const name = childOf(node, 'name');
    if (name === undefined) return [];
    // A bare name is looked up on PATH, never next to the script: only a path or a launcher can run a file.
    const first = wordValue(source, name);
    if (!first.includes('/') && !prefixes.test(first) && !launchers.test(first)) return [];
    const args = node.children.filter((child) => child.field === 'argument');
    return [[first, ...args.map((word) => wordValue(source, word))]];
  }),
  ...readAsCode(source, tree).map((path) => ['bash', path]),
];

const shellName = /^(?:(?:ba|z|k|da|a|mk)?sh|source|\.|eval)$/;
/** `cat PATH`, alone: the file a substitution or a pipeline's first stage gives as text. */
function catted(source: string, node: ShellNode | undefined): string | null {
  const commands = node ? nodesWhere(node, (n) => n.type === 'command') : [];
  if (commands.length !== 1) return null;
  const name = childOf(commands[0]!, 'name');
  const args = commands[0]!.children.filter((child) => child.field === 'argument');
  if (name === undefined || wordValue(source, name) !== 'cat' || args.length !== 1) return null;
  return wordValue(source, args[0]!);
}

/**
 * Files a script runs as shell by handing their text over: `eval "$(cat f)"`, `source <(cat f)`, `bash < f`,
 * `cat f | bash`. The file is read as a script whatever its extension (a payload kept in `banner.txt`).
 */
function readAsCode(source: string, tree: ShellNode): string[] {
  const paths: string[] = [];
  const nameOf = (command: ShellNode | undefined) => {
    const name = command?.type === 'command' ? childOf(command, 'name') : undefined;
    return name ? wordValue(source, name).replace(/^.*\//, '') : '';
  };
  for (const command of nodesWhere(tree, (n) => n.type === 'command')) {
    if (!shellName.test(nameOf(command))) continue;
    for (const sub of nodesWhere(
      command,
      (n) => n.type === 'command_substitution' || n.type === 'process_substitution',
    ))
      paths.push(...[catted(source, sub)].filter((p): p is string => p !== null));
  }
  for (const statement of nodesWhere(tree, (n) => n.type === 'redirected_statement')) {
    if (!/^(?:(?:ba|z|k|da|a|mk)?sh)$/.test(nameOf(childOf(statement, 'body')))) continue;
    for (const redirect of statement.children.filter((c) => c.type === 'file_redirect')) {
      const destination = childOf(redirect, 'destination');
      if (
        destination &&
        /^\s*0?<(?!<)/.test(source.slice(redirect.start, redirect.end)) &&
        destination.type !== 'process_substitution'
      )
        paths.push(wordValue(source, destination));
    }
  }
  for (const pipeline of nodesWhere(tree, (n) => n.type === 'pipeline')) {
    const [head, ...rest] = pipeline.children;
    const file = head?.type === 'command' ? catted(source, head) : null;
    if (file !== null && rest.some((stage) => /^(?:(?:ba|z|k|da|a|mk)?sh)$/.test(nameOf(stage)))) paths.push(file);
  }
  return paths;
}

/**
 * Command lines written as text: each `${CLAUDE_PLUGIN_ROOT}/…` path, a batch file's `%~dp0…`, and (`strings`)
 * each quoted string of a script in another language that holds a path or starts with a launcher
 * (`subprocess.run(["bash", "helpers/x"])`, `execSync("bash ./x")`).
 */
export function quotedCommands(text: string, strings: boolean): string[][] {
  const commands: string[][] = [];
  for (const m of text.matchAll(/\$\{?CLAUDE_PLUGIN_ROOT\}?((?:\/[^\s"'`;|&<>()$]+)+)/g))
    commands.push([`\${CLAUDE_PLUGIN_ROOT}${m[1]!}`]);
  for (const m of text.matchAll(/%~dp0\\?([\w.\\/-]+)/gi)) commands.push([m[1]!.replaceAll('\\', '/')]);
  if (!strings) return commands;
  for (const m of text.matchAll(/"([^"\n]{1,200})"|'([^'\n]{1,200})'|`([^`\n]{1,200})`/g)) {
    const words = (m[1] ?? m[2] ?? m[3]!).trim().split(/\s+/);
    if (words.some((word) => word.includes('/')) || launchers.test(words[0]!)) commands.push(words);
  }
  return commands;
}

/** Does a wrapper run a file named by its argument (`"$DIR/$1"`, `exec bash "$@"`, `%~dp0%1`)? */
export const usesArguments = (text: string): boolean => /\$\{?[1-9@*]\}?|%~?[a-z]*[1-9*]/.test(text);

/** The files a wrapper runs by the arguments it is given: each next to it or under the plugin root. */
export function argumentTargets(
  wrapper: string,
  args: readonly string[],
  root: string,
  exists: (path: string) => boolean,
): string[] {
  const targets: string[] = [];
  for (const arg of args) {
    if (arg === '' || arg.startsWith('-') || arg.includes('$')) continue;
    for (const name of [arg, `${arg}.sh`, `${arg}.py`, `${arg}.js`, `${arg}.mjs`, `${arg}.ts`]) {
      const path = resolveWord(name, dirname(wrapper), root, exists);
      if (path !== null && path !== wrapper) {
        targets.push(path);
        break;
      }
    }
  }
  return targets;
}

/** Who is shown to run a script: a hook or a server, and the wrappers between it and the script. */
export type Origin = Readonly<{ label: string; hook: boolean; through: readonly string[] }>;
/** A hook or server command line: its commands' words and its whole text. */
export type Start = Readonly<{ label: string; hook: boolean; words: readonly (readonly string[])[]; text: string }>;

/**
 * The plugin files each start is shown to run, directly or through scripts, with the first start that
 * reaches them (hooks are given first, so a script both a hook and a server run is the hook's). Breadth
 * first, so a script is credited to its shortest chain.
 */
export function reachOf(
  starts: readonly Start[],
  root: string,
  files: ReadonlyMap<string, ScanFile>,
  runsOf: (path: string) => readonly Invocation[],
): Map<string, Origin> {
  const exists = (path: string): boolean => files.has(path);
  const reached = new Map<string, Origin>();
  for (const { label, hook, words, text } of starts) {
    const origin: Origin = { label, hook, through: [] };
    const queue: (Invocation & { origin: Origin })[] = [];
    for (const run of words.map((w) => invocationOf(w, null, root, exists))) if (run) queue.push({ ...run, origin });
    for (const command of quotedCommands(text, false)) {
      const run = invocationOf(command, null, root, exists, false);
      if (run) queue.push({ ...run, origin });
    }
    for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
      const { path, args } = next;
      const text = files.get(path)?.text;
      const through = { ...next.origin, through: [...next.origin.through, path] };
      // A wrapper given arguments runs the file they name, next to it or under the plugin root.
      if (args.length > 0 && text != null && usesArguments(text)) {
        for (const target of argumentTargets(path, args, root, exists))
          if (!reached.has(target)) queue.push({ path: target, args: [], origin: through });
      }
      if (reached.has(path)) continue;
      reached.set(path, next.origin);
      for (const run of runsOf(path)) if (!reached.has(run.path)) queue.push({ ...run, origin: through });
    }
  }
  return reached;
}
