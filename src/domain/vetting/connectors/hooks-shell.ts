// What a shell script EXECUTES, from its syntax tree: fetched or decoded code handed to an interpreter
// (`curl … | sh`, `bash <(curl …)`, `eval "$(curl …)"`, `base64 -d | sh`, a downloaded file run), and
// through hooks-commands.ts credential reads and data sent out. Text the script only carries (strings
// it prints, patterns it matches, comments, case patterns, heredocs fed to `cat`) runs nothing.
import type { Severity } from '../findings.ts';
import { credentialRead, fetchers, networkUse, shells, simpleOf, type Simple, type Verdict } from './hooks-commands.ts';
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
  simple.name === 'basenc';

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
  risks: Map<string, LocatedRisk>;
};

const commandsIn = (ctx: Context, node: ShellNode): Simple[] =>
  nodesWhere(node, (n) => n.type === 'command')
    .map((n) => simpleOf(ctx.source, n))
    .filter((s): s is Simple => s !== null);

/** Does this part of the script produce code from outside: a fetch, a decoder, a computed command, a tainted variable? */
function untrusted(ctx: Context, node: ShellNode): boolean {
  const commands = commandsIn(ctx, node);
  if (commands.some((s) => s.name === null || fetchers.has(s.name) || decoders(s))) return true;
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
function readsProgramFromStdin(simple: Simple): boolean {
  if (simple.name === null) return true; // `| $SHELL`
  if (simple.name === 'source' || simple.name === '.') return simple.args[0]?.value === '/dev/stdin';
  if (simple.name === 'eval') return false;
  if (!shells.has(simple.name) && !interpreters.test(simple.name) && simple.name !== 'iex') return false;
  const program = simple.args.find((arg) => !arg.value.startsWith('-') || arg.value === '-');
  const inline = simple.args.some((arg) => /^-(?:\w*c|e|-command|-eval)$/i.test(arg.value) && arg.value !== '-');
  return !inline && (program === undefined || program.value === '-' || program.value === '/dev/stdin');
}

function checkPipeline(ctx: Context, node: ShellNode): void {
  const stages = node.children.filter((child) => child.type !== 'comment');
  for (let i = 1; i < stages.length; i++) {
    const stage = stages[i]!;
    const command = stage.type === 'command' ? stage : childOf(stage, 'body');
    const simple = command?.type === 'command' ? simpleOf(ctx.source, command) : null;
    if (simple === null || !readsProgramFromStdin(simple)) continue;
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
  const codeTaking =
    name === 'eval' || name === 'source' || name === '.' || shells.has(name) || interpreters.test(name);
  if (!codeTaking) return;
  for (const arg of args) {
    const substituted = nodesWhere(
      arg.node,
      (n) => n.type === 'command_substitution' || n.type === 'process_substitution',
    );
    if (substituted.some((s) => untrusted(ctx, s)) || (name === 'eval' && untrusted(ctx, arg.node)))
      return rce(ctx, node);
    if (ctx.taintedFiles.has(arg.value) && !arg.value.startsWith('-')) return rce(ctx, node, 'runs a downloaded file');
  }
  // The code `eval` and `sh -c` run is shell too: read it as such.
  const flag = args.findIndex((a) => /^-\w*c$/.test(a.value));
  const inline = name === 'eval' ? args : shells.has(name) && flag !== -1 ? args.slice(flag + 1, flag + 2) : [];
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
  const simple = simpleOf(ctx.source, node);
  if (simple === null) return;
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
  const simple = body?.type === 'command' ? simpleOf(ctx.source, body) : null;
  if (simple === null || simple.name === null || !shells.has(simple.name) || !readsProgramFromStdin(simple)) return;
  for (const heredoc of nodesWhere(node, (n) => n.type === 'heredoc_body')) {
    if (ctx.depth < 3) nested(ctx, textOf(ctx.source, heredoc), { offset: heredoc.line - 1 });
  }
}

/** The parser could not read this part: check its lines with the patterns, as for a script in another language. */
function checkUnreadable(ctx: Context, node: ShellNode): void {
  textOf(ctx.source, node)
    .split('\n')
    .forEach((text, i) => {
      if (/^\s*#/.test(text)) return;
      for (const risk of lineRisks(text)) add(ctx, risk.id, risk.what, { ...node, line: node.line + i });
    });
}

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
      break;
  }
  for (const child of node.children) walk(ctx, child);
}

/** Variables assigned fetched or decoded content, and files a fetch writes (`curl -o f`, `curl … > f`). */
function taint(ctx: Context, root: ShellNode): void {
  for (let round = 0; round < 2; round++) {
    for (const assignment of nodesWhere(root, (n) => n.type === 'variable_assignment')) {
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
    risks: new Map(),
  };
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
