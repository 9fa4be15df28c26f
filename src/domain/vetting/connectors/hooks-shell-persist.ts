// Code a script leaves to run later, read as the code it is: a `trap` handler, an alias's expansion,
// `PROMPT_COMMAND`, lines written into a shell startup file (`~/.bashrc`, `~/.zshrc`, `~/.profile` …) and
// crontab entries. Fetched content written into a startup file is remote code run at every new shell.
import type { Simple } from './hooks-commands.ts';
import { commandsIn, rce, simpleIn, untrusted, type Context } from './hooks-shell-context.ts';
import { childOf, isDynamic, nodesWhere, textOf, wordValue, type ShellNode } from './hooks-syntax.ts';

/** Reads code held in a string as shell, reporting at `line` (hooks-shell.ts). */
export type Nested = (ctx: Context, code: string, at: Readonly<{ line: number }>) => void;

const startupFile =
  /^(?:~|\$\{?HOME\}?)\/(?:\.(?:bashrc|bash_profile|bash_login|profile|zshrc|zprofile|zshenv|zlogin|kshrc|mkshrc)|\.config\/fish\/config\.fish)$|^\/etc\/(?:profile(?:\.d\/\S+)?|bash\.bashrc|zsh\/\S+|environment)$/;
const atLine = (ctx: Context, node: ShellNode) => ({ line: node.line + ctx.offset });
const fixedWords = (simple: Simple): string[] =>
  simple.args.filter((a) => !isDynamic(a.node) && !/^-[neE]+$/.test(a.value)).map((a) => a.value);

/** `trap 'code' EXIT`, `alias x='code'`: the code runs later. */
export function persistence(ctx: Context, simple: Simple, nested: Nested): void {
  if (ctx.depth >= 3) return;
  const code =
    simple.name === 'trap'
      ? simple.args.find((a) => !a.value.startsWith('-'))
      : simple.name === 'alias'
        ? undefined
        : null;
  if (code && !isDynamic(code.node) && code.value.trim() !== '') nested(ctx, code.value, atLine(ctx, simple.node));
  if (simple.name === 'alias')
    for (const arg of simple.args) {
      const m = /^[\w.-]+=(.+)$/s.exec(arg.value);
      if (m && !isDynamic(arg.node)) nested(ctx, m[1]!, atLine(ctx, simple.node));
    }
}

/** `echo '…' >> ~/.bashrc`, `cat >> ~/.zshrc <<EOF`, `curl … > ~/.bashrc`: lines every new shell runs. */
export function persistentWrites(ctx: Context, statement: ShellNode, nested: Nested): void {
  if (ctx.depth >= 3) return;
  const body = childOf(statement, 'body');
  const writes = statement.children.filter((c) => {
    const destination = c.type === 'file_redirect' ? childOf(c, 'destination') : undefined;
    return (
      destination && /^\s*\d*>/.test(textOf(ctx.source, c)) && startupFile.test(wordValue(ctx.source, destination))
    );
  });
  if (body === undefined || writes.length === 0) return;
  if (untrusted(ctx, body)) return rce(ctx, statement, 'writes fetched code into a shell startup file');
  for (const simple of commandsIn(ctx, body)) {
    if (simple.name === 'echo' || simple.name === 'printf')
      nested(ctx, fixedWords(simple).join(' '), atLine(ctx, statement));
  }
  for (const heredoc of nodesWhere(statement, (n) => n.type === 'heredoc_body'))
    nested(ctx, textOf(ctx.source, heredoc), atLine(ctx, statement));
}

/** `echo '* * * * * curl … | sh' | crontab -`: each entry's command. */
export function persistentPipeline(ctx: Context, stages: readonly ShellNode[], nested: Nested): void {
  const last = stages[stages.length - 1];
  const simple = last?.type === 'command' ? simpleIn(ctx, last) : null;
  if (ctx.depth >= 3 || simple?.name !== 'crontab') return;
  for (const stage of stages.slice(0, -1)) {
    for (const writer of commandsIn(ctx, stage)) {
      if (writer.name !== 'echo' && writer.name !== 'printf') continue;
      for (const entry of fixedWords(writer)
        .join(' ')
        .split(/\\n|\n/)) {
        const command = entry.replace(/^\s*(?:@\w+|(?:\S+\s+){5})/, '');
        if (command.trim() !== '') nested(ctx, command, atLine(ctx, writer.node));
      }
    }
  }
}

/** `PROMPT_COMMAND='…'`: run before every prompt of the shell that reads it. */
export function persistentAssignments(ctx: Context, root: ShellNode, nested: Nested): void {
  if (!ctx.source.includes('PROMPT_COMMAND')) return;
  for (const assignment of nodesWhere(root, (n) => n.type === 'variable_assignment')) {
    const name = childOf(assignment, 'name');
    const value = childOf(assignment, 'value');
    if (name && value && textOf(ctx.source, name) === 'PROMPT_COMMAND' && !isDynamic(value))
      nested(ctx, wordValue(ctx.source, value), atLine(ctx, assignment));
  }
}
