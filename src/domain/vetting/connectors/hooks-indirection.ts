// Names a script gives to commands, read the way bash would: a variable assigned a fixed word once
// (`B=bash; $B -c …`), an alias (`alias get='curl -fsSL'`), and functions that wrap a fetch, a shell
// reading its stdin, or `eval` of their arguments. hooks-shell.ts sees through them, so a command's
// real name decides what it does, not the name the script calls it by.
import { simpleOf, type Arg, type Simple } from './hooks-commands.ts';
import { childOf, commandName, isDynamic, nodesWhere, textOf, wordValue, type ShellNode } from './hooks-syntax.ts';

export type Names = Readonly<{
  /** Variables assigned exactly once, to a word with nothing computed in it. */
  constants: ReadonlyMap<string, string>;
  aliases: ReadonlyMap<string, string>;
  /** Functions whose output is fetched or decoded content. */
  producers: Set<string>;
  /** Functions that run what they read on stdin as code. */
  consumers: Set<string>;
  /** Functions that run their arguments as code (`eval "$1"`, `bash -c "$*"`). */
  evaluators: Set<string>;
}>;

export const noNames = (): Names => ({
  constants: new Map(),
  aliases: new Map(),
  producers: new Set(),
  consumers: new Set(),
  evaluators: new Set(),
});

/** Fixed variables and aliases of a parsed script (functions are classified by hooks-shell.ts). */
export function namesOf(source: string, root: ShellNode): Names {
  const assigned = new Map<string, string | null>();
  for (const assignment of nodesWhere(root, (n) => n.type === 'variable_assignment')) {
    const name = childOf(assignment, 'name');
    const value = childOf(assignment, 'value');
    if (name === undefined) continue;
    const key = textOf(source, name);
    const fixed = value !== undefined && !isDynamic(value) ? wordValue(source, value) : null;
    assigned.set(key, assigned.has(key) ? null : fixed);
  }
  const constants = new Map<string, string>();
  for (const [name, value] of assigned) if (value !== null && value.trim() !== '') constants.set(name, value);
  const aliases = new Map<string, string>();
  const commands = source.includes('alias') ? nodesWhere(root, (n) => n.type === 'command') : [];
  for (const command of commands) {
    const simple = simpleOf(source, command);
    if (simple?.name !== 'alias') continue;
    for (const arg of simple.args) {
      const m = /^([\w.-]+)=(.+)$/s.exec(arg.value);
      if (m) aliases.set(m[1]!.toLowerCase(), m[2]!);
    }
  }
  return { ...noNames(), constants, aliases };
}

/** The command under a name the script gave it: `$B` with `B=bash` is `bash`, an alias its expansion. */
export function resolved(source: string, simple: Simple, names: Names): Simple {
  let expansion: string | undefined;
  if (simple.name === null) {
    const nameNode = childOf(simple.node, 'name');
    const only = nameNode?.children.length === 1 ? nameNode.children[0]! : nameNode;
    const variable = only && /^(?:simple_)?expansion$/.test(only.type) ? only.children : [];
    if (variable.length === 1 && variable[0]!.type === 'variable_name')
      expansion = names.constants.get(textOf(source, variable[0]!));
  } else expansion = names.aliases.get(simple.name);
  if (expansion === undefined) return simple;
  const [first, ...rest] = expansion.trim().split(/\s+/);
  if (first === undefined || first.includes('$')) return simple;
  const nameNode = childOf(simple.node, 'name') ?? simple.node;
  const extra: Arg[] = rest.map((value) => ({ node: nameNode, value: value.replace(/^(['"])(.*)\1$/, '$2') }));
  return { node: simple.node, name: commandName(first), args: [...extra, ...simple.args] };
}

/** Does a command give its function's arguments to the shell as code? */
export const runsArguments = (source: string, simple: Simple): boolean =>
  (simple.name === 'eval' || simple.name === 'source' || simple.name === '.' || /sh$/.test(simple.name ?? '')) &&
  simple.args.some((arg) => /\$\{?[1-9@*]\}?/.test(textOf(source, arg.node)));
