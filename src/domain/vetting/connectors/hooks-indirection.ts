// Names a script gives to commands, read the way bash would: a variable assigned a fixed word once
// (`B=bash; $B -c …`), one named through another (`n=bash; m=n; ${!m}`), an alias (`alias get='curl
// -fsSL'`), and functions that wrap a fetch, a shell reading its stdin, or `eval` of their arguments.
// hooks-shell.ts sees through them, so a command's real name decides what it does, not the name the
// script calls it by. Every assignment is kept too, so that where a URL or a path comes from can be read
// (hooks-shell-values.ts).
import { simpleOf, type Arg, type Simple } from './hooks-commands.ts';
import { childOf, commandName, isDynamic, nodesWhere, textOf, wordValue, type ShellNode } from './hooks-syntax.ts';

export type Names = Readonly<{
  /** The script the assignments below were read from. */
  source: string;
  /** Variables assigned exactly once, to a word with nothing computed in it. */
  constants: ReadonlyMap<string, string>;
  /** Every value each variable is assigned (`read`, `for` and `mapfile` targets have none: they are not fixed). */
  assigned: ReadonlyMap<string, readonly ShellNode[]>;
  /** Variables a command sets (`read x`, `for x in`, `mapfile x`, `printf -v x`): their values are not known. */
  computed: ReadonlySet<string>;
  /** The script sources a file other than a `.env`: variables it never assigns may come from there. */
  sourcesFiles: boolean;
  aliases: ReadonlyMap<string, string>;
  /** Each function's place in the script and the words of each call of it (`$1` is a call's first). */
  functions: readonly Readonly<{ start: number; end: number; calls: readonly (readonly ShellNode[])[] }>[];
  /** Functions whose output is fetched or decoded content. */
  producers: Set<string>;
  /** Functions that run what they read on stdin as code. */
  consumers: Set<string>;
  /** Functions that run their arguments as code (`eval "$1"`, `bash -c "$*"`). */
  evaluators: Set<string>;
}>;

export const noNames = (): Names => ({
  source: '',
  constants: new Map(),
  assigned: new Map(),
  computed: new Set(),
  sourcesFiles: false,
  aliases: new Map(),
  functions: [],
  producers: new Set(),
  consumers: new Set(),
  evaluators: new Set(),
});

/** Variables a command sets by name: `read -r a b`, `mapfile -t L`, `printf -v x`, `for x in …`. */
function setByCommands(source: string, root: ShellNode): Set<string> {
  const computed = new Set<string>();
  for (const loop of nodesWhere(root, (n) => n.type === 'for_statement' || n.type === 'c_style_for_statement')) {
    const variable = childOf(loop, 'variable');
    if (variable) computed.add(textOf(source, variable));
  }
  for (const command of nodesWhere(root, (n) => n.type === 'command')) {
    const simple = simpleOf(source, command);
    if (simple === null) continue;
    const values = simple.args.map((a) => a.value);
    if (/^(?:read|mapfile|readarray)$/.test(simple.name ?? ''))
      for (const [i, value] of values.entries())
        if (/^[A-Za-z_]\w*$/.test(value) && !/^-[a-zA-Z]*[dnNptu]$/.test(values[i - 1] ?? '')) computed.add(value);
    const v = values.indexOf('-v');
    if (simple.name === 'printf' && v !== -1 && values[v + 1]) computed.add(values[v + 1]!);
  }
  return computed;
}

/** Fixed variables, every assignment and aliases of a parsed script (functions are classified by hooks-shell-taint.ts). */
export function namesOf(source: string, root: ShellNode): Names {
  const assigned = new Map<string, ShellNode[]>();
  const fixed = new Map<string, string | null>();
  for (const assignment of nodesWhere(root, (n) => n.type === 'variable_assignment')) {
    const name = childOf(assignment, 'name');
    const value = childOf(assignment, 'value');
    if (name === undefined) continue;
    const key = textOf(source, name);
    const word = value !== undefined && !isDynamic(value) ? wordValue(source, value) : null;
    fixed.set(key, fixed.has(key) ? null : word);
    if (value !== undefined && value.type !== 'array') assigned.set(key, [...(assigned.get(key) ?? []), value]);
  }
  const computed = setByCommands(source, root);
  const constants = new Map<string, string>();
  for (const [name, value] of fixed)
    if (value !== null && value.trim() !== '' && !computed.has(name)) constants.set(name, value);
  const aliases = new Map<string, string>();
  let sourcesFiles = false;
  const commands = /\balias\b|\bsource\b|(?:^|[\s;&|(])\.\s/.test(source)
    ? nodesWhere(root, (n) => n.type === 'command')
    : [];
  for (const command of commands) {
    const simple = simpleOf(source, command);
    if ((simple?.name === 'source' || simple?.name === '.') && !/\.env(?:\.[\w-]+)?$/.test(simple.args[0]?.value ?? ''))
      sourcesFiles = true;
    if (simple?.name !== 'alias') continue;
    for (const arg of simple.args) {
      const m = /^([\w.-]+)=(.+)$/s.exec(arg.value);
      if (m) aliases.set(m[1]!.toLowerCase(), m[2]!);
    }
  }
  return {
    ...noNames(),
    source,
    constants,
    assigned,
    computed,
    sourcesFiles,
    aliases,
    functions: functionsOf(source, root),
  };
}

/** Each function and the arguments of its calls. */
function functionsOf(source: string, root: ShellNode): Names['functions'] {
  const definitions = nodesWhere(root, (n) => n.type === 'function_definition');
  if (definitions.length === 0) return [];
  const calls = new Map<string, ShellNode[][]>();
  for (const command of nodesWhere(root, (n) => n.type === 'command')) {
    const name = childOf(command, 'name');
    if (name === undefined) continue;
    const key = textOf(source, name);
    calls.set(key, [...(calls.get(key) ?? []), command.children.filter((c) => c.field === 'argument')]);
  }
  return definitions.map((fn) => {
    const name = childOf(fn, 'name');
    return { start: fn.start, end: fn.end, calls: name ? (calls.get(textOf(source, name)) ?? []) : [] };
  });
}

/** The fixed word a variable expansion stands for: `$B`, `${B}`, and `${!M}` through the variable M names. */
function constantOf(source: string, expansion: ShellNode, names: Names): string | undefined {
  const variable = expansion.children.length === 1 ? expansion.children[0]! : undefined;
  if (variable?.type !== 'variable_name') return undefined;
  const value = names.constants.get(textOf(source, variable));
  if (!textOf(source, expansion).startsWith('${!')) return value;
  return value === undefined || !/^[A-Za-z_]\w*$/.test(value) ? undefined : names.constants.get(value);
}

/** The command under a name the script gave it: `$B` with `B=bash` is `bash`, an alias its expansion. */
export function resolved(source: string, simple: Simple, names: Names): Simple {
  let expansion: string | undefined;
  if (simple.name === null) {
    const nameNode = childOf(simple.node, 'name');
    const only = nameNode?.children.length === 1 ? nameNode.children[0]! : nameNode;
    if (only && /^(?:simple_)?expansion$/.test(only.type)) expansion = constantOf(source, only, names);
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
