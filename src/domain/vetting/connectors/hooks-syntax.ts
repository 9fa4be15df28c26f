// A script as the hooks connector reads it: the syntax tree of tree-sitter's grammars (bash, Python,
// JavaScript, TypeScript) as plain data (the adapter parses, the domain walks), and what a word of a
// shell script says once quotes are read.

/**
 * A named node of a tree-sitter tree: `type` is the grammar's node type, `field` its field in the parent.
 * Python and JavaScript trees also hold the operator token of an expression (`+`, `%`, `in`) as a node in
 * the field `operator` (or `operators`); comments are left out.
 */
export type ShellNode = Readonly<{
  type: string;
  field: string | null;
  /** Offsets into the parsed source (UTF-16 code units, as String.prototype.slice takes them). */
  start: number;
  end: number;
  /** Line from 1 in the parsed source. */
  line: number;
  children: readonly ShellNode[];
}>;

/** Parses a whole script (never throws on bad syntax: the tree holds ERROR nodes there). */
export type ShellParser = (source: string) => ShellNode;

/** The parsers of the languages the hooks connector reads, each as a ShellParser over its grammar. */
export type Parsers = Readonly<{
  bash: ShellParser;
  python: ShellParser;
  javascript: ShellParser;
  typescript: ShellParser;
  tsx: ShellParser;
}>;

export const textOf = (source: string, node: ShellNode): string => source.slice(node.start, node.end);

export const childOf = (node: ShellNode, field: string): ShellNode | undefined =>
  node.children.find((child) => child.field === field);

/** Every node under `node` (itself included) for which `test` holds, in source order. */
export function nodesWhere(node: ShellNode, test: (node: ShellNode) => boolean, into: ShellNode[] = []): ShellNode[] {
  if (test(node)) into.push(node);
  for (const child of node.children) nodesWhere(child, test, into);
  return into;
}

const expansions = new Set(['simple_expansion', 'expansion', 'command_substitution', 'process_substitution']);
/** Does the word hold anything the shell computes (a variable, `$(…)`, `<(…)`)? */
export const isDynamic = (node: ShellNode): boolean =>
  expansions.has(node.type) || node.children.some((child) => isDynamic(child));

/**
 * What a word says once the shell has removed its quotes and backslashes, with expansions kept as
 * written (`$HOME`, `$(…)`): `"c""url"` and `\curl` are `curl`.
 */
export function wordValue(source: string, node: ShellNode): string {
  switch (node.type) {
    case 'raw_string':
      return textOf(source, node).slice(1, -1);
    case 'ansi_c_string':
      return ansiC(textOf(source, node).slice(2, -1));
    case 'string': {
      // In double quotes a backslash escapes only `$`, a backquote, `"`, `\` and a line break (which it removes).
      const text = textOf(source, node);
      return (text.startsWith('"') ? text.slice(1, -1) : text.slice(2, -1)).replace(/\\([$`"\\\n])/g, (_, c: string) =>
        c === '\n' ? '' : c,
      );
    }
    case 'concatenation':
    case 'command_name':
      return node.children.map((child) => wordValue(source, child)).join('');
    case 'word':
      return textOf(source, node).replace(/\\(.)/gs, '$1');
    default:
      return textOf(source, node);
  }
}

const escapes: Readonly<Record<string, string>> = { n: '\n', t: '\t', r: '\r', e: '\x1b', a: '\x07' };
/** What bash makes of `$'…'`: `$'\x63url'` is `curl`. */
const ansiC = (text: string): string =>
  text.replace(/\\(?:x([0-9a-fA-F]{1,2})|u([0-9a-fA-F]{1,4})|([0-7]{1,3})|(.))/gs, (_, hex, uni, oct, other: string) =>
    hex || uni
      ? String.fromCharCode(parseInt((hex ?? uni) as string, 16))
      : oct
        ? String.fromCharCode(parseInt(oct as string, 8))
        : (escapes[other] ?? other),
  );

/** The command a name runs: `/usr/bin/curl` and `"curl"` are `curl`. */
export const commandName = (value: string): string => value.replace(/^.*\//, '').toLowerCase();
