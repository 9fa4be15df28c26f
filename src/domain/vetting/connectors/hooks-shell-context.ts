// The state of reading one shell script (or one hook command line): the names it gives commands, what it
// has put into variables and files (fetched or decoded code, credentials, data of this machine), the
// file descriptors it opened on a socket, and the risks found so far, one per rule and line (the louder
// kept).
import type { Severity } from '../../kernel/findings.ts';
import { decoders, fetchesRemote } from './hooks-shell-code.ts';
import { simpleOf, type Simple } from './hooks-commands.ts';
import { resolved, type Names } from './hooks-indirection.ts';
import { excerpt, type ShellRisk } from './hooks-lines.ts';
import * as syntax from './hooks-syntax.ts';
import { readingsOf } from './hooks-shell-values.ts';

/** A risk at a line of the scanned text (from 1). */
export type LocatedRisk = ShellRisk & Readonly<{ line: number }>;

/** What a value carries: credentials (described), secret variables (named), data of this machine. */
export type Carried = Readonly<{ credentials: readonly string[]; secrets: readonly string[]; local: boolean }>;
export const nothing: Carried = { credentials: [], secrets: [], local: false };
export const joined = (all: readonly Carried[]): Carried => ({
  credentials: [...new Set(all.flatMap((c) => c.credentials))],
  secrets: [...new Set(all.flatMap((c) => c.secrets))],
  local: all.some((c) => c.local),
});

export type Context = {
  source: string;
  parse: syntax.ShellParser;
  depth: number;
  /** When set, every risk is reported at this line (code parsed out of a string of the outer script). */
  at: number | null;
  /** Lines before the parsed text in the scanned one (a heredoc's body). */
  offset: number;
  /** Variables holding fetched or decoded content; files and directories a fetch or a decode wrote. */
  taintedVariables: Set<string>;
  taintedFiles: Set<string>;
  taintedDirs: Set<string>;
  /** File descriptors opened on a socket (`exec 3<>/dev/tcp/…`). */
  remoteFds: Set<string>;
  /** Variables and files holding credentials or data of this machine. */
  carriedBy: Map<string, Carried>;
  carriedFiles: Map<string, Carried>;
  /** What a network command reads on stdin, when a pipeline feeds it (hooks-shell-leaks.ts). */
  stdin: WeakMap<syntax.ShellNode, Carried>;
  /** Fixed variables, aliases and wrapping functions: what a command really is (hooks-indirection.ts). */
  names: Names;
  risks: Map<string, LocatedRisk>;
};

/** A command as it runs: wrappers taken off, a fixed variable or an alias for a name replaced. */
export const simpleIn = (ctx: Context, node: syntax.ShellNode): Simple | null => {
  // Nodes belong to one parse of one source, and a script's fixed names do not change: read each once.
  let simple = simples.get(node);
  if (simple === undefined) {
    const plain = simpleOf(ctx.source, node);
    simple = plain === null ? null : resolved(ctx.source, plain, ctx.names);
    if (simple?.name === null) simple = { ...simple, name: programOf(ctx, simple) };
    simples.set(node, simple);
  }
  return simple;
};
const simples = new WeakMap<syntax.ShellNode, Simple | null>();

/**
 * The program a computed name always stands for, as far as the script says (`PY=${PYTHON:-python3}`,
 * `JQ=$(command -v jq || echo jq)`), or null: a name nobody can read stays computed.
 */
function programOf(ctx: Context, simple: Simple): string | null {
  const name = syntax.childOf(simple.node, 'name');
  if (name === undefined || !syntax.isDynamic(name)) return null;
  const programs = new Set(
    readingsOf(ctx.source, name, ctx.names).map((reading) => {
      const found = /^\s*(?:command\s+-v|which|type\s+-P)\s+([\w.+-]+)/.exec(reading);
      return found ? found[1]! : reading;
    }),
  );
  // `python3` or `python`: one program whatever its version.
  const family = new Set([...programs].map((p) => syntax.commandName(p).replace(/[\d.]+$/, '')));
  const [only] = programs;
  return family.size === 1 && only !== undefined && [...programs].every((p) => /^[\w./+-]+$/.test(p))
    ? syntax.commandName(only)
    : null;
}

export const commandsIn = (ctx: Context, node: syntax.ShellNode): Simple[] =>
  syntax
    .nodesWhere(node, (n) => n.type === 'command')
    .map((n) => simpleIn(ctx, n))
    .filter((s): s is Simple => s !== null);

/** A redirect that reads from a socket: `< /dev/tcp/h/80`, or `<&3` after `exec 3<>/dev/tcp/h/80`. */
export const readsSocket = (ctx: Context, redirect: syntax.ShellNode): boolean => {
  const destination = syntax.childOf(redirect, 'destination');
  if (destination === undefined || !/^\s*\d*<(?!<)/.test(syntax.textOf(ctx.source, redirect))) return false;
  const value = syntax.wordValue(ctx.source, destination);
  return (
    /^\/dev\/(?:tcp|udp)\//.test(value) || (/<&/.test(syntax.textOf(ctx.source, redirect)) && ctx.remoteFds.has(value))
  );
};

/** Does this part of the script produce code from outside: a fetch, a decoder, a computed command, a tainted variable? */
export function untrusted(ctx: Context, node: syntax.ShellNode): boolean {
  const commands = commandsIn(ctx, node);
  const producing = (s: Simple) => s.name === null || fetchesRemote(s) || ctx.names.producers.has(s.name);
  if (commands.some((s) => producing(s) || decoders(s))) return true;
  if (syntax.nodesWhere(node, (n) => n.type === 'file_redirect').some((r) => readsSocket(ctx, r))) return true;
  return syntax
    .nodesWhere(node, (n) => n.type === 'variable_name')
    .some((n) => ctx.taintedVariables.has(syntax.textOf(ctx.source, n)));
}

const rank: Readonly<Record<Severity, number>> = { INFO: 0, LOW: 1, MEDIUM: 2, HIGH: 3, CRITICAL: 4 };
const severityOf: Readonly<Record<string, Severity>> = {
  'hooks-remote-code-execution': 'CRITICAL',
  'hooks-credential-access': 'HIGH',
  'hooks-data-exfiltration': 'HIGH',
  'hooks-remote-fetch': 'MEDIUM',
};

/** Records a risk at the node's line; a louder one for the same rule and line replaces a quieter one. */
export function add(ctx: Context, id: string, what: string, node: syntax.ShellNode, severity?: Severity): void {
  const line = ctx.at ?? node.line + ctx.offset;
  const key = `${id}:${line}`;
  const level = severity ?? severityOf[id] ?? 'HIGH';
  const before = ctx.risks.get(key);
  if (before !== undefined && rank[before.severity] >= rank[level]) return;
  const fragment = excerpt(ctx.source.slice(node.start, node.start + Math.max(node.end - node.start, 80)));
  ctx.risks.set(key, { id, severity: level, what, fragment, line });
}

export const rce = (ctx: Context, node: syntax.ShellNode, what = 'downloads and executes remote code'): void =>
  add(ctx, 'hooks-remote-code-execution', what, node);
