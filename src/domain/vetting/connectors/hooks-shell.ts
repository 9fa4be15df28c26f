// What a shell script EXECUTES, from its syntax tree: fetched or decoded code handed to an interpreter
// (`curl … | sh`, `bash <(curl …)`, `eval "$(curl …)"`, `base64 -d | sh`, a downloaded file run), and
// through hooks-commands.ts credential reads and data sent out. Text the script only carries (strings
// it prints, patterns it matches, comments, case patterns, heredocs fed to `cat`) runs nothing.
import type { Severity } from '../findings.ts';
import { credentialRead, fetchers, networkUse, shells, simpleOf, type Simple, type Verdict } from './hooks-commands.ts';
import { namesOf, resolved, runsArguments, type Names } from './hooks-indirection.ts';
import { excerpt, lineRisks, type ShellRisk } from './hooks-lines.ts';
import { childOf, isDynamic, nodesWhere, textOf, wordValue, type ShellNode, type ShellParser } from './hooks-syntax.ts';

/** A risk at a line of the scanned text (from 1). */
export type LocatedRisk = ShellRisk & Readonly<{ line: number }>;

const severityOf: Readonly<Record<string, Severity>> = {
  'hooks-remote-code-execution': 'CRITICAL',
  'hooks-credential-access': 'HIGH',
  'hooks-data-exfiltration': 'HIGH',
  'hooks-remote-fetch': 'MEDIUM',
};

const interpreters = /^(?:python[\d.]*|node|nodejs|perl|ruby|php|deno|bun|pwsh|powershell|lua|tclsh)$/;
const decoders = (simple: Simple): boolean =>
  (simple.name === 'base64' && simple.args.some((a) => /^(?:-d|-D|--decode|-\w*d\w*)$/.test(a.value))) ||
  (simple.name === 'openssl' && simple.args.some((a) => a.value === '-d' || a.value === 'base64')) ||
  (simple.name === 'xxd' && simple.args.some((a) => /^-r/.test(a.value))) ||
  simple.name === 'uudecode' ||
  simple.name === 'base32' ||
  simple.name === 'basenc' ||
  simple.name === 'rev' ||
  // rot13 and friends: two character sets, nothing deleted or squeezed
  (simple.name === 'tr' &&
    simple.args.filter((a) => !a.value.startsWith('-')).length >= 2 &&
    simple.args.every((a) => !/^-\w*[ds]/.test(a.value))) ||
  // `printf '\x63\x75…'`, `echo -e '\143…'`: code spelled as escapes (colour codes are not piped to a shell)
  ((simple.name === 'printf' || simple.name === 'echo') &&
    simple.args.some((a) => /\\(?:x[0-9a-f]{1,2}|[0-7]{3}|u[0-9a-f]{4})/i.test(a.value)));

type Context = {
  source: string;
  parse: ShellParser;
  depth: number;
  /** When set, every risk is reported at this line (code parsed out of a string of the outer script). */
  at: number | null;
  /** Lines before the parsed text in the scanned one (a heredoc's body). */
  offset: number;
  taintedVariables: Set<string>;
  taintedFiles: Set<string>;
  /** Fixed variables, aliases and wrapping functions: what a command really is (hooks-indirection.ts). */
  names: Names;
  risks: Map<string, LocatedRisk>;
};

/** A command as it runs: wrappers taken off, a fixed variable or an alias for a name replaced. */
const simpleIn = (ctx: Context, node: ShellNode): Simple | null => {
  // Nodes belong to one parse of one source, and a script's fixed names do not change: read each once.
  let simple = simples.get(node);
  if (simple === undefined) {
    const plain = simpleOf(ctx.source, node);
    simple = plain === null ? null : resolved(ctx.source, plain, ctx.names);
    simples.set(node, simple);
  }
  return simple;
};
const simples = new WeakMap<ShellNode, Simple | null>();

const commandsIn = (ctx: Context, node: ShellNode): Simple[] =>
  nodesWhere(node, (n) => n.type === 'command')
    .map((n) => simpleIn(ctx, n))
    .filter((s): s is Simple => s !== null);

/** Does this part of the script produce code from outside: a fetch, a decoder, a computed command, a tainted variable? */
function untrusted(ctx: Context, node: ShellNode): boolean {
  const commands = commandsIn(ctx, node);
  const producing = (s: Simple) => s.name === null || fetchers.has(s.name) || ctx.names.producers.has(s.name);
  if (commands.some((s) => producing(s) || decoders(s))) return true;
  return nodesWhere(node, (n) => n.type === 'variable_name').some((n) =>
    ctx.taintedVariables.has(textOf(ctx.source, n)),
  );
}

function add(ctx: Context, id: string, what: string, node: ShellNode): void {
  const line = ctx.at ?? node.line + ctx.offset;
  const key = `${id}:${line}`;
  if (ctx.risks.has(key)) return;
  const fragment = excerpt(ctx.source.slice(node.start, node.start + Math.max(node.end - node.start, 80)));
  ctx.risks.set(key, { id, severity: severityOf[id] ?? 'HIGH', what, fragment, line });
}

const rce = (ctx: Context, node: ShellNode, what = 'downloads and executes remote code') =>
  add(ctx, 'hooks-remote-code-execution', what, node);

/** Does an interpreter invocation read its program from stdin (`sh`, `bash -s`, `python3 -`)? */
function readsProgramFromStdin(simple: Simple, names: Names): boolean {
  if (simple.name === null) return true; // `| $SHELL`
  if (names.consumers.has(simple.name)) return true;
  // `… | xargs sh -c '{}'`: each line becomes code
  if (simple.name === 'xargs') return simple.args.some((a) => shells.has(a.value) || a.value === 'eval');
  if (simple.name === 'source' || simple.name === '.') return simple.args[0]?.value === '/dev/stdin';
  if (simple.name === 'eval') return false;
  if (!shells.has(simple.name) && !interpreters.test(simple.name) && simple.name !== 'iex') return false;
  const program = simple.args.find((arg) => !arg.value.startsWith('-') || arg.value === '-');
  const inline = simple.args.some((arg) => /^-(?:\w*c|e|-command|-eval)$/i.test(arg.value) && arg.value !== '-');
  return !inline && (program === undefined || program.value === '-' || program.value === '/dev/stdin');
}

/** A pipeline's stages; one the grammar wrapped with a heredoc that follows it is opened up. */
const stagesOf = (node: ShellNode): ShellNode[] =>
  node.children
    .filter((child) => child.type !== 'comment')
    .flatMap((child) => {
      const body = child.type === 'redirected_statement' ? childOf(child, 'body') : undefined;
      return body?.type === 'pipeline' ? stagesOf(body) : [child];
    });

function checkPipeline(ctx: Context, node: ShellNode): void {
  const stages = stagesOf(node);
  for (let i = 1; i < stages.length; i++) {
    const stage = stages[i]!;
    const command = stage.type === 'command' ? stage : childOf(stage, 'body');
    const simple = command?.type === 'command' ? simpleIn(ctx, command) : null;
    if (simple === null || !readsProgramFromStdin(simple, ctx.names)) continue;
    const upstream = stages.slice(0, i);
    if (upstream.some((s) => untrusted(ctx, s))) {
      const decoded = upstream.some((s) => commandsIn(ctx, s).some(decoders));
      rce(ctx, node, decoded ? 'decodes and executes hidden code' : undefined);
      return;
    }
  }
}

/** `eval`, `sh -c`, `python -c`, `source`/`.` and interpreters given fetched code as an argument. */
function checkInterpreter(ctx: Context, simple: Simple): void {
  const { name, args, node } = simple;
  if (name === null) return;
  if (ctx.taintedFiles.has(name) || [...ctx.taintedFiles].some((f) => name === f.replace(/^.*\//, ''))) {
    if (simple.node.children.some((c) => c.field === 'name' && /\//.test(textOf(ctx.source, c))))
      return rce(ctx, node, 'runs a downloaded file');
  }
  // The word after `-c`/`-e` of a shell or interpreter is code, as every argument of `eval` is.
  const flag = args.findIndex((a) => (shells.has(name) ? /^-\w*c$/ : /^-(?:c|e|-eval)$/).test(a.value));
  const codeArg = flag !== -1 && (shells.has(name) || interpreters.test(name)) ? args[flag + 1] : undefined;
  const evaluates = name === 'eval' || ctx.names.evaluators.has(name);
  const codeTaking = evaluates || name === 'source' || name === '.' || shells.has(name) || interpreters.test(name);
  if (!codeTaking) return;
  for (const arg of args) {
    const substituted = nodesWhere(
      arg.node,
      (n) => n.type === 'command_substitution' || n.type === 'process_substitution',
    );
    if (substituted.some((s) => untrusted(ctx, s)) || ((evaluates || arg === codeArg) && untrusted(ctx, arg.node))) {
      const decoded = substituted.some((s) => commandsIn(ctx, s).some(decoders));
      return rce(ctx, node, decoded ? 'decodes and executes hidden code' : undefined);
    }
    if (ctx.taintedFiles.has(arg.value) && !arg.value.startsWith('-')) return rce(ctx, node, 'runs a downloaded file');
  }
  // Code given to `python -c`, `node -e`: the patterns read it, as they read scripts in those languages.
  if (codeArg && !shells.has(name) && !isDynamic(codeArg.node))
    for (const risk of lineRisks(codeArg.value)) add(ctx, risk.id, risk.what, node);
  // The code `eval` and `sh -c` run is shell too: read it as such.
  const inline = name === 'eval' ? args : shells.has(name) && codeArg ? [codeArg] : [];
  const code = inline
    .filter((a) => !isDynamic(a.node))
    .map((a) => a.value)
    .join(' ');
  if (code.trim() !== '' && ctx.depth < 3) nested(ctx, code, { line: node.line + ctx.offset });
}

/** Risks of shell code held in a string of the script (`sh -c '…'`, `eval '…'`, a heredoc fed to bash). */
function nested(ctx: Context, code: string, at: Readonly<{ line: number } | { offset: number }>): void {
  const place = 'line' in at ? { at: ctx.at ?? at.line } : { offset: ctx.offset + at.offset };
  const inner: Context = { ...ctx, ...place, source: code, depth: ctx.depth + 1, risks: new Map() };
  walk(inner, ctx.parse(code));
  for (const risk of inner.risks.values()) {
    const key = `${risk.id}:${risk.line}`;
    if (!ctx.risks.has(key)) ctx.risks.set(key, risk);
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
  const report = (verdict: Verdict | null) => {
    if (verdict) add(ctx, verdict.id, verdict.what, node);
  };
  report(credentialRead(ctx.source, simple));
  report(networkUse(ctx.source, simple));
}

function checkRedirect(ctx: Context, node: ShellNode): void {
  const destination = childOf(node, 'destination');
  if (destination === undefined) return;
  const value = wordValue(ctx.source, destination);
  if (/^\/dev\/(?:tcp|udp)\//.test(value)) add(ctx, 'hooks-data-exfiltration', 'sends data through a raw socket', node);
  // Read from (`< ~/.ssh/id_rsa`) or written to (`>> ~/.ssh/authorized_keys`): the file is the argument.
  const verdict = credentialRead(ctx.source, { node, name: 'cat', args: [{ node: destination, value }] });
  if (verdict) add(ctx, verdict.id, verdict.what, node);
}

/** A heredoc given to a shell is its script; one given to `cat` is a message. */
function checkHeredoc(ctx: Context, node: ShellNode): void {
  const body = childOf(node, 'body');
  const simple = body?.type === 'command' ? simpleIn(ctx, body) : null;
  if (simple === null || simple.name === null || !shells.has(simple.name) || !readsProgramFromStdin(simple, ctx.names))
    return;
  for (const heredoc of nodesWhere(node, (n) => n.type === 'heredoc_body')) {
    if (ctx.depth < 3) nested(ctx, textOf(ctx.source, heredoc), { offset: heredoc.line - 1 });
  }
}

/** `bash < <(curl …)`, `sh < downloaded`: a shell reading its program from a fetched stream or file. */
function checkStdinRedirect(ctx: Context, node: ShellNode): void {
  const body = childOf(node, 'body');
  const simple = body?.type === 'command' ? simpleIn(ctx, body) : null;
  if (simple === null || !readsProgramFromStdin(simple, ctx.names)) return;
  for (const redirect of node.children.filter((c) => c.type === 'file_redirect')) {
    const destination = childOf(redirect, 'destination');
    if (destination === undefined || !/^\s*0?<(?!<)/.test(textOf(ctx.source, redirect))) continue;
    if (untrusted(ctx, destination) || ctx.taintedFiles.has(wordValue(ctx.source, destination))) return rce(ctx, node);
  }
}

/**
 * The parser could not read this part: each line that parses alone is read as shell; the others are
 * checked with the patterns, as for a script in another language, without the quoted text of a `case`
 * pattern (`*"curl | sh"*)`), which is what a guard matches, not what it runs.
 */
function checkUnreadable(ctx: Context, node: ShellNode): void {
  textOf(ctx.source, node)
    .split('\n')
    .forEach((text, i) => {
      if (/^\s*#/.test(text) || text.trim() === '') return;
      const line = node.line + i + ctx.offset;
      if (ctx.depth < 3 && !hasError(ctx.parse(text))) return nested(ctx, text, { line });
      const checked = /^\s*[*"'(][^\n]*\)\s/.test(text) ? text.replace(/"[^"]*"|'[^']*'/g, '""') : text;
      for (const risk of lineRisks(checked)) add(ctx, risk.id, risk.what, { ...node, line: node.line + i });
    });
}

const hasError = (node: ShellNode): boolean => node.type === 'ERROR' || node.children.some((child) => hasError(child));

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
    case 'pipeline':
      checkPipeline(ctx, node);
      break;
    case 'command':
      checkCommand(ctx, node);
      break;
    case 'file_redirect':
      checkRedirect(ctx, node);
      break;
    case 'redirected_statement':
      checkHeredoc(ctx, node);
      checkStdinRedirect(ctx, node);
      break;
  }
  for (const child of node.children) walk(ctx, child);
}

/** Variables assigned fetched or decoded content, and files a fetch writes (`curl -o f`, `curl … > f`). */
function taint(ctx: Context, root: ShellNode): void {
  const assignments = nodesWhere(root, (n) => n.type === 'variable_assignment');
  // A second round only when the first tainted a variable another assignment may read.
  for (let round = 0, before = -1; round < 2 && before !== ctx.taintedVariables.size; round++) {
    before = ctx.taintedVariables.size;
    for (const assignment of assignments) {
      const name = childOf(assignment, 'name');
      const value = childOf(assignment, 'value');
      if (name && value && untrusted(ctx, value)) ctx.taintedVariables.add(textOf(ctx.source, name));
    }
  }
  for (const simple of commandsIn(ctx, root)) {
    if (simple.name === null || !fetchers.has(simple.name)) continue;
    simple.args.forEach((arg, i) => {
      const output = /^(?:-o|-O|--output|--output-document)$/.test(arg.value) ? simple.args[i + 1]?.value : undefined;
      const attached = /^(?:--output|--output-document)=(.+)$|^-\w*[oO](\S+)$/.exec(arg.value);
      const file = output ?? attached?.[1] ?? attached?.[2];
      if (file) ctx.taintedFiles.add(file);
    });
  }
  for (const statement of nodesWhere(root, (n) => n.type === 'redirected_statement')) {
    const body = childOf(statement, 'body');
    if (body === undefined || !untrusted(ctx, body)) continue;
    for (const redirect of statement.children.filter((c) => c.type === 'file_redirect')) {
      const destination = childOf(redirect, 'destination');
      if (destination && /^\s*\d*>/.test(textOf(ctx.source, redirect)))
        ctx.taintedFiles.add(wordValue(ctx.source, destination));
    }
  }
}

/** Functions that fetch or decode, that run their stdin, or that run their arguments, as bash would call them. */
function classifyFunctions(ctx: Context, root: ShellNode): void {
  const functions = nodesWhere(root, (n) => n.type === 'function_definition');
  const size = () => ctx.names.producers.size + ctx.names.consumers.size + ctx.names.evaluators.size;
  // A second round only when the first found a wrapper another function may call.
  for (let round = 0, before = -1; round < 2 && functions.length > 0 && before !== size(); round++) {
    before = size();
    for (const fn of functions) {
      const name = childOf(fn, 'name');
      const body = childOf(fn, 'body');
      if (name === undefined || body === undefined) continue;
      const key = textOf(ctx.source, name).toLowerCase();
      // One pass over the body's commands (no variable is tainted yet: taint() runs after this).
      for (const s of commandsIn(ctx, body)) {
        if (s.name === null || fetchers.has(s.name) || ctx.names.producers.has(s.name) || decoders(s))
          ctx.names.producers.add(key);
        if (s.name !== null && s.name !== key && readsProgramFromStdin(s, ctx.names)) ctx.names.consumers.add(key);
        if (runsArguments(ctx.source, s) || (s.name !== null && ctx.names.evaluators.has(s.name)))
          ctx.names.evaluators.add(key);
      }
    }
  }
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
    names: namesOf(source, root),
    risks: new Map(),
  };
  classifyFunctions(ctx, root);
  taint(ctx, root);
  walk(ctx, root);
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
