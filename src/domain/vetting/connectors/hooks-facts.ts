// What a shell script can do once installed, from its syntax tree: the facts of the capability
// inventory (hosts it contacts, variables and credential files it reads, programs it runs, files it
// writes outside the project), each at its line. Only what the script runs counts: text it prints, a
// `case` pattern or a comment is not read. A variable the script sets once to a fixed word, and an
// alias, are read as what they stand for (`U=https://x.example; curl "$U"` contacts x.example).
// What is left out as ordinary (the shell's own variables, builtins and plain file utilities) is
// listed in hooks-facts-ignored.ts.
import { isCredentialPath, shells, simpleOf, type Simple } from './hooks-commands.ts';
import { commandHosts, computed, operands, socketHost } from './hooks-facts-hosts.ts';
import { ignoredProgram, ignoredVariable } from './hooks-facts-ignored.ts';
import { namesOf, resolved, type Names } from './hooks-indirection.ts';
import { readsProgramFromStdin } from './hooks-shell-code.ts';
import {
  childOf,
  commandName,
  isDynamic,
  nodesWhere,
  textOf,
  wordValue,
  type ShellNode,
  type ShellParser,
} from './hooks-syntax.ts';

/**
 * What a script shows, at a line from 1: every capability kind of hooks-analysis.ts but starts-mcp-server,
 * which only a declaration shows. Written out here, not imported, as hooks-analysis.ts calls this module.
 */
export type ShellFact = Readonly<{
  kind: 'contacts-host' | 'reads-env' | 'reads-credentials' | 'runs-program' | 'writes-outside-project';
  value: string;
  line: number;
}>;
type Kind = ShellFact['kind'];

type Context = {
  source: string;
  names: Names;
  /** Functions the script defines: calling one runs no program. */
  functions: ReadonlySet<string>;
  facts: Map<string, ShellFact>;
  /** Reads shell code the script holds in a string or heredoc (null: such code is not read). */
  parse: ShellParser | null;
  depth: number;
};

const add = (ctx: Context, kind: Kind, value: string, line: number): void => {
  const key = `${kind}\u0000${value}\u0000${line}`;
  if (value !== '' && !ctx.facts.has(key)) ctx.facts.set(key, { kind, value, line });
};

/** A word with the script's fixed variables read as their values (`$U`, `${U}` with `U=x` set once). */
const expand = (ctx: Context, value: string): string =>
  value.replace(/\$\{(\w+)\}|\$(\w+)/g, (whole, braced?: string, plain?: string) => {
    const name = braced ?? plain!;
    return ctx.names.constants.get(name) ?? whole;
  });

/** `$HOME/x` and `${HOME}/x` are `~/x`: one path however the script spells the home directory. */
const homeFirst = (path: string): string => path.replace(/^(?:\$\{HOME\}|\$HOME(?!\w))(?=\/|$)/, '~');

/** Nested code is read three levels deep (`sh -c "eval '…'"`), as the risks are. */
const nestedDepth = 3;

/** The facts of shell code the script runs from a string or heredoc, each at `lineOf` its line there. */
function nestedFacts(ctx: Context, code: string, lineOf: (line: number) => number): void {
  if (ctx.parse === null || ctx.depth >= nestedDepth || code.trim() === '') return;
  for (const fact of factsOf(code, ctx.parse(code), ctx.parse, ctx.depth + 1))
    add(ctx, fact.kind, fact.value, lineOf(fact.line));
}

/** `sh -c '…'` and `eval '…'`: the code they run, at the command's line (a computed word is not read). */
function inlineShell(ctx: Context, simple: Simple, line: number): void {
  const { name, args } = simple;
  if (name === null) return;
  let code: readonly Simple['args'][number][] = [];
  if (name === 'eval' || ctx.names.evaluators.has(name)) code = args;
  else if (shells.has(name)) {
    const flag = args.findIndex((a) => /^-\w*c$/.test(a.value));
    code = flag === -1 ? [] : args.slice(flag + 1, flag + 2);
  }
  const text = code
    .filter((a) => !isDynamic(a.node))
    .map((a) => a.value)
    .join(' ');
  nestedFacts(ctx, text, () => line);
}

/** A heredoc given to a shell that reads its program from stdin (`bash <<'EOF'`) is its script. */
function heredocScripts(ctx: Context, tree: ShellNode): void {
  for (const statement of nodesWhere(tree, (n) => n.type === 'redirected_statement')) {
    const body = childOf(statement, 'body');
    const plain = body?.type === 'command' ? simpleOf(ctx.source, body) : null;
    const simple = plain === null ? null : resolved(ctx.source, plain, ctx.names);
    if (simple?.name == null || !shells.has(simple.name) || !readsProgramFromStdin(simple, ctx.names)) continue;
    for (const heredoc of nodesWhere(statement, (n) => n.type === 'heredoc_body'))
      nestedFacts(ctx, textOf(ctx.source, heredoc), (line) => heredoc.line - 1 + line);
  }
}

// --- reads-env ---------------------------------------------------------------------------------------

/** Variables the script gives a value itself: assignments, `local x`, `read x`, `for x in`, `mapfile x`. */
function assignedBy(source: string, tree: ShellNode): Set<string> {
  const assigned = new Set<string>();
  for (const node of nodesWhere(tree, (n) => n.type === 'variable_assignment')) {
    const name = childOf(node, 'name');
    const value = childOf(node, 'value');
    if (name === undefined) continue;
    const key = textOf(source, name.type === 'subscript' ? (childOf(name, 'name') ?? name) : name);
    // `X="${X:-default}"` takes X from the environment when it is set there: still a read.
    const self = value ? nodesWhere(value, (n) => n.type === 'variable_name' && textOf(source, n) === key) : [];
    if (self.length === 0) assigned.add(key);
  }
  for (const node of nodesWhere(tree, (n) => n.type === 'declaration_command')) {
    const keyword = textOf(source, node).split(/\s/, 1)[0];
    if (keyword === 'export') continue; // `export X` hands on the environment's X
    for (const child of node.children) if (child.type === 'variable_name') assigned.add(textOf(source, child));
  }
  for (const node of nodesWhere(tree, (n) => n.type === 'for_statement')) {
    const variable = childOf(node, 'variable');
    if (variable) assigned.add(textOf(source, variable));
  }
  for (const node of nodesWhere(tree, (n) => n.type === 'command')) {
    const simple = simpleOf(source, node);
    if (simple === null || simple.name === null) continue;
    const words = simple.args.map((a) => a.value);
    const targets =
      simple.name === 'read' || simple.name === 'mapfile' || simple.name === 'readarray'
        ? operands(words, simple.name === 'read' ? 'adinpstu' : 'dnOsuC', new Set())
        : simple.name === 'getopts'
          ? words.slice(1, 2)
          : simple.name === 'printf' && words[0] === '-v'
            ? words.slice(1, 2)
            : [];
    for (const target of targets) if (/^[A-Za-z_]\w*$/.test(target)) assigned.add(target);
  }
  return assigned;
}

function readsEnv(ctx: Context, tree: ShellNode): void {
  const assigned = assignedBy(ctx.source, tree);
  const skip = (n: ShellNode): boolean => n.type === 'variable_assignment' || n.type === 'for_statement';
  const visit = (node: ShellNode, parent: ShellNode | null): void => {
    if (node.type === 'variable_name') {
      const name = textOf(ctx.source, node);
      const declared =
        parent?.type === 'declaration_command' || (parent !== null && skip(parent) && node.field !== null);
      if (!declared && !assigned.has(name) && !ignoredVariable(name)) add(ctx, 'reads-env', name, node.line);
    }
    for (const child of node.children) visit(child, node);
  };
  visit(tree, null);
}

// --- commands ----------------------------------------------------------------------------------------

const keychain = (simple: Simple): string | null => {
  const [first, second] = simple.args.map((a) => a.value);
  if (
    simple.name === 'security' &&
    /^(?:find-generic-password|find-internet-password|dump-keychain)$/.test(first ?? '')
  )
    return `security ${first}`;
  if (simple.name === 'secret-tool' && first === 'lookup') return 'secret-tool lookup';
  if (simple.name === 'gh' && first === 'auth' && second === 'token') return 'gh auth token';
  if (simple.name === 'git' && first === 'credential' && second === 'fill') return 'git credential fill';
  return null;
};

// Commands whose arguments are messages, never files read; those whose first operand is a pattern or program.
const messages = new Set(['echo', 'printf', 'test', '[', ':', 'true', 'false', 'logger', 'notify-send', 'osascript']);
const patternFirst = new Set(['grep', 'egrep', 'fgrep', 'rg', 'ag', 'sed', 'awk', 'gawk', 'jq', 'yq', 'perl']);

/** The files a command creates or changes: tee, cp, mv, install, ln, touch, mkdir, `dd of=`, `sed -i`. */
function writeTargets(simple: Simple): string[] {
  const words = simple.args.map((a) => a.value);
  switch (simple.name) {
    case 'tee':
    case 'touch':
    case 'mkdir':
      return operands(words, simple.name === 'touch' ? 'dtr' : simple.name === 'mkdir' ? 'm' : '', new Set());
    case 'cp':
    case 'mv':
    case 'install':
    case 'ln': {
      const target = words.find((w, i) => words[i - 1] === '-t' || /^--target-directory=/.test(w));
      if (target !== undefined) return [target.replace(/^--target-directory=/, '')];
      const rest = operands(words, simple.name === 'install' ? 'gmoSt' : 'St', new Set(['--suffix']));
      if (simple.name === 'install' && words.includes('-d')) return rest;
      return rest.length >= 2 ? [rest.at(-1)!] : [];
    }
    case 'dd':
      return words.filter((w) => w.startsWith('of=')).map((w) => w.slice(3));
    case 'sed': {
      if (!words.some((w) => /^-[a-zA-Z]*i|^--in-place/.test(w))) return [];
      const scripted = words.some((w) => /^-[a-zA-Z]*[ef]$|^--(?:expression|file)/.test(w));
      const rest = operands(words, 'ef', new Set(['--expression', '--file'])).filter((w) => w !== '');
      return scripted ? rest : rest.slice(1);
    }
    default:
      return [];
  }
}

/** Is a path outside the project: in the home directory or absolute, other than the null device and temp? */
export function outsideProject(path: string): boolean {
  if (!/^(?:~|\/)/.test(path)) return false;
  if (/^\/dev\/(?:null|zero|tty|stdin|stdout|stderr|fd\/\d+)$/.test(path)) return false;
  if (/^\/dev\/(?:tcp|udp)\//.test(path)) return false;
  return !/^\/(?:private\/)?(?:var\/)?tmp(?:\/|$)/.test(path);
}

const outside = (ctx: Context, path: string): string | null => {
  const value = homeFirst(expand(ctx, path));
  // `$TMPDIR/x`, `${TMPDIR:-/tmp}/x`: the temporary directory, however the script names it.
  if (/^\$\{?TMPDIR\b/.test(value)) return null;
  return outsideProject(value) ? value : null;
};

/** The path part of an argument (`-F f=@path`, `--data=@path`, `<path`). */
const pathPart = (value: string): string => value.replace(/^--?[\w-]+=/, '').replace(/^[\w-]*=?[@<]/, '');

function credentialReads(ctx: Context, simple: Simple, writes: ReadonlySet<string>): void {
  const line = simple.node.line;
  const held = keychain(simple);
  if (held !== null) add(ctx, 'reads-credentials', held, line);
  if (simple.name === null || messages.has(simple.name)) return;
  let skipped =
    !patternFirst.has(simple.name) || simple.args.some((a) => /^(?:-e|-f|--regexp|--expression)/.test(a.value));
  for (const arg of simple.args) {
    if (arg.value.startsWith('-') && !arg.value.includes('=')) continue;
    if (!skipped) {
      skipped = true;
      continue;
    }
    const value = expand(ctx, arg.value);
    if (!writes.has(arg.value) && isCredentialPath(value))
      add(ctx, 'reads-credentials', homeFirst(pathPart(value)), line);
  }
}

/**
 * The program a command runs, or null: a file of the plugin (a relative path, or a path under a variable
 * other than HOME, as `"$DIR/x"` or `${CLAUDE_PLUGIN_ROOT}/x`); `(computed)` when the shell computes the name.
 */
function programOf(ctx: Context, node: ShellNode, simple: Simple | null): string | null {
  if (simple === null) return null;
  const words = node.children.filter((c) => c.field === 'name' || c.field === 'argument');
  const rawOf = (word: ShellNode): string => homeFirst(expand(ctx, wordValue(ctx.source, word)));
  const absolute = (raw: string): boolean => /^(?:\/|~\/)/.test(raw) && !/[$`]/.test(raw.replace(/^.*\//, ''));
  if (simple.name === null) {
    const word = words.find((w) => isDynamic(w));
    const raw = word ? rawOf(word) : '';
    if (absolute(raw)) return commandName(raw);
    return raw.includes('/') ? null : computed;
  }
  // The word that names the program (after wrappers such as `sudo` or `env X=1`); none for an alias.
  const word = words.find((w) => commandName(rawOf(w)) === simple.name);
  if (word === undefined) return simple.name;
  const raw = rawOf(word);
  return !raw.includes('/') || absolute(raw) ? simple.name : null;
}

const reportProgram = (ctx: Context, name: string, line: number): void => {
  if (name !== computed && (ignoredProgram(name) || ctx.functions.has(name))) return;
  add(ctx, 'runs-program', name, line);
};

/** Programs a command hands its arguments to: `xargs curl`, `find … -exec curl {} ;`. */
function handedOn(simple: Simple): string[] {
  const words = simple.args.map((a) => a.value);
  if (simple.name === 'xargs') {
    const [program] = operands(words, 'adeEIiLlnPs', new Set(['--arg-file', '--delimiter', '--max-args']));
    return program === undefined ? [] : [commandName(program)];
  }
  if (simple.name === 'find')
    return words.flatMap((w, i) =>
      /^-(?:exec|execdir|ok|okdir)$/.test(w) && words[i + 1] ? [commandName(words[i + 1]!)] : [],
    );
  return [];
}

function command(ctx: Context, node: ShellNode): void {
  const plain = simpleOf(ctx.source, node);
  const simple = plain === null ? null : resolved(ctx.source, plain, ctx.names);
  const line = node.line;
  const nameNode = childOf(node, 'name');
  const first = nameNode ? commandName(wordValue(ctx.source, nameNode)) : '';
  if (first === 'sudo' || first === 'doas') add(ctx, 'runs-program', first, line);
  // `command -v curl`: asking whether a program exists runs nothing.
  const option = node.children.find((c) => c.field === 'argument');
  if (first === 'command' && option && /^-[vV]$/.test(wordValue(ctx.source, option))) return;
  const program = programOf(ctx, node, simple);
  if (program !== null) reportProgram(ctx, program, line);
  if (simple === null) return;
  for (const handed of simple.name === null ? [] : handedOn(simple)) reportProgram(ctx, handed, line);
  if (simple.name === null) return;
  inlineShell(ctx, simple, line);
  const args = simple.args.map((a) => expand(ctx, a.value));
  for (const host of commandHosts(simple.name, args)) add(ctx, 'contacts-host', host, line);
  if ((simple.name === 'env' || simple.name === 'printenv') && simple.args.length === 0)
    add(ctx, 'reads-env', '*', line);
  if (simple.name === 'printenv')
    for (const name of args)
      if (/^[A-Za-z_]\w*$/.test(name) && !ignoredVariable(name)) add(ctx, 'reads-env', name, line);
  const targets = writeTargets(simple);
  for (const target of targets) {
    const path = outside(ctx, target);
    if (path !== null) add(ctx, 'writes-outside-project', path, line);
  }
  credentialReads(ctx, simple, new Set(targets));
}

function redirect(ctx: Context, node: ShellNode): void {
  const destination = childOf(node, 'destination');
  if (destination === undefined || destination.type === 'number') return; // `2>&1`
  const operator = ctx.source.slice(node.start, destination.start);
  const path = expand(ctx, wordValue(ctx.source, destination));
  const host = /^\/dev\/(?:tcp|udp)\//.test(path) ? socketHost(path) : null;
  if (host !== null) return add(ctx, 'contacts-host', host, node.line);
  if (/>/.test(operator) && !/>&$/.test(operator.trim())) {
    const written = outside(ctx, path);
    if (written !== null) add(ctx, 'writes-outside-project', written, node.line);
  } else if (/</.test(operator) && isCredentialPath(path)) add(ctx, 'reads-credentials', homeFirst(path), node.line);
}

/**
 * The facts of one shell script (or hook command line), by line, at most one per kind, value and line.
 * Given the parser, the code it runs from strings and heredocs (`sh -c`, `eval`, `bash <<EOF`) is read too.
 */
export const shellFacts = (source: string, tree: ShellNode, parse?: ShellParser): ShellFact[] =>
  factsOf(source, tree, parse ?? null, 0);

function factsOf(source: string, tree: ShellNode, parse: ShellParser | null, depth: number): ShellFact[] {
  const functions = new Set(
    nodesWhere(tree, (n) => n.type === 'function_definition').flatMap((fn) => {
      const name = childOf(fn, 'name');
      return name ? [textOf(source, name).toLowerCase()] : [];
    }),
  );
  const ctx: Context = { source, names: namesOf(source, tree), functions, facts: new Map(), parse, depth };
  readsEnv(ctx, tree);
  for (const node of nodesWhere(tree, (n) => n.type === 'command' || n.type === 'file_redirect')) {
    if (node.type === 'command') command(ctx, node);
    else redirect(ctx, node);
  }
  heredocScripts(ctx, tree);
  return [...ctx.facts.values()].sort(
    (a, b) => a.line - b.line || a.kind.localeCompare(b.kind) || a.value.localeCompare(b.value),
  );
}
