// The YAML frontmatter of skills, commands and agents, read as Claude Code reads it: the text between an
// opening `---` line and the first `---` after it, parsed with the `yaml` package (YAML 1.2, duplicate keys
// refused), and, when that fails, parsed once more with plain `key: value` lines whose value holds a YAML
// indicator wrapped in double quotes. What still fails gives no fields at all; a value that is not a mapping
// gives none either. A frontmatter read otherwise than Claude Code reads it would let hooks through unvetted,
// so where parsers or versions may disagree (duplicate keys, a `---` inside a line) the other reading is
// kept too, for its hooks to be vetted as well.
import { isAlias, isMap, isScalar, isSeq, LineCounter, parseDocument, visit } from 'yaml';
import { docOf, type Doc, type Mark, type Marks } from './json-document.ts';

/** Another reading than Claude Code's that a parser or version may take, kept so its hooks are vetted too. */
export type OtherReading = Readonly<{ doc: Doc; line: number; why: string }>;

export type Frontmatter =
  | Readonly<{ ok: true; doc: Doc; others: readonly OtherReading[] }>
  | Readonly<{ ok: false; line: number; message: string; mentionsHooks: boolean; others: readonly OtherReading[] }>;

type Reading = Readonly<{ ok: true; doc: Doc }> | Readonly<{ ok: false; line: number; message: string }>;

const simpleLine = /^([a-zA-Z_-]+):\s+(.+)$/;
const indicator = /[{}[\]*&#!|>%@`]|: /;

/**
 * Claude Code's second attempt: a top-level `key: value` line whose unquoted value holds a YAML indicator
 * (a glob such as `**\/*.{ts,tsx}`, a `: ` inside a description) gets the value double-quoted. Lines are
 * split on `\n` only, so a CRLF line (ending in `\r`, which `.` does not match) is left as it is, as there.
 */
export function quoteValues(body: string): string {
  return body
    .split('\n')
    .map((line) => {
      const match = simpleLine.exec(line);
      if (match === null) return line;
      const [, key, value] = match as unknown as [string, string, string];
      const quoted = (value.startsWith('"') && value.endsWith('"')) || (value.startsWith("'") && value.endsWith("'"));
      if (quoted || !indicator.test(value)) return line;
      return `${key}: "${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
    })
    .join('\n');
}

/** How `yaml` names a plain map key in the object it builds, or null for a key that is a collection. */
function keyName(key: unknown): string | null {
  const value = isScalar(key) ? key.value : key;
  if (value === null || value === undefined) return '';
  return typeof value === 'object' ? null : String(value);
}

const own = (node: unknown, key: string | number): unknown =>
  typeof node === 'object' && node !== null && Object.hasOwn(node, key)
    ? (node as Record<string | number, unknown>)[key]
    : undefined;

/** The lines of every collection of `value`, found by walking the syntax tree beside the value it became. */
function marksOf(
  root: unknown,
  value: unknown,
  resolve: (alias: unknown) => unknown,
  line: (offset: number) => number,
): Marks {
  const marks: Marks = new WeakMap();
  const pending: Array<readonly [unknown, unknown]> = [[root, value]];
  const lineOf = (node: unknown, fallback: number): number => {
    const range = typeof node === 'object' && node !== null ? (node as { range?: readonly number[] }).range : undefined;
    return range?.[0] === undefined ? fallback : line(range[0]);
  };
  while (pending.length > 0) {
    const [node, js] = pending.pop()!;
    if (typeof js !== 'object' || js === null || marks.has(js)) continue;
    // An alias yields the very object its anchor built: mark it where the anchor wrote it.
    if (isAlias(node)) {
      pending.push([resolve(node), js]);
      continue;
    }
    if (!isMap(node) && !isSeq(node)) continue;
    const mark: Mark = { line: lineOf(node, 1), keys: new Map() };
    marks.set(js, mark);
    if (isMap(node)) {
      for (const pair of node.items) {
        const key = keyName(pair.key);
        if (key === null) continue;
        mark.keys.set(key, lineOf(pair.key, lineOf(pair.value, mark.line)));
        pending.push([pair.value, own(js, key)]);
      }
    } else {
      node.items.forEach((item, index) => {
        mark.keys.set(index, lineOf(item, mark.line));
        pending.push([item, own(js, index)]);
      });
    }
  }
  return marks;
}

// The frontmatter most skills, commands and agents have: `key: value` lines and nothing else, each value a
// plain scalar that YAML reads as the very text written, or that text in double quotes without an escape
// (how Claude Code's second attempt quotes a value holding an indicator). Read without the `yaml` package
// (most of a plugin layout's reading time went there), giving what it gives: the mapping, its line, each
// key's line. Anything else, or any doubt, goes to the parser: a key or value not of this narrow form, a
// repeated key, a blank, comment or indented line, a carriage return, a plain value that is a boolean or null,
// or holds `#`, a tab, a `: ` or a final `:`, or any character outside printable ASCII.
const flatLine = /^([A-Za-z][A-Za-z0-9_-]{0,99}): +(?:([A-Za-z][\x20-\x7e]*)|"([\x20\x21\x23-\x5b\x5d-\x7e]*)")$/;
const notPlainText = /#|:(?: |$)|^(?:true|True|TRUE|false|False|FALSE|null|Null|NULL)$|\s$/;

/** A flat frontmatter read without the parser, or null when it is not one (the parser then reads it). */
export function flatMapping(text: string, firstLine: number): Reading | null {
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  if (lines.length === 0) return null;
  const value: Record<string, string> = {};
  const keys = new Map<string | number, number>();
  for (const [index, line] of lines.entries()) {
    const match = flatLine.exec(line);
    if (match === null) return null;
    const [, key, plain, quoted] = match as unknown as [string, string, string | undefined, string | undefined];
    if (keys.has(key) || notPlainText.test(key) || (plain !== undefined && notPlainText.test(plain))) return null;
    value[key] = plain ?? quoted!;
    keys.set(key, firstLine + index);
  }
  const marks: Marks = new WeakMap();
  marks.set(value, { line: firstLine, keys });
  return { ok: true, doc: docOf(value, marks) };
}

/** One parse of `text`, whose first line is line `firstLine` of the file; the value as `yaml`'s parse() gives it. */
function parseOnce(text: string, firstLine: number, uniqueKeys: boolean): Reading {
  const flat = flatMapping(text, firstLine);
  if (flat !== null) return flat;
  const counter = new LineCounter();
  const line = (offset: number) => firstLine - 1 + counter.linePos(offset).line;
  const document = parseDocument(text, { lineCounter: counter, uniqueKeys, logLevel: 'error' });
  const failed = (at: number, message: string): Reading => {
    // An error at the very end (an unclosed bracket or quote) points at the last line that has text.
    const offset = Math.min(at, Math.max(0, text.trimEnd().length - 1));
    const what = message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '');
    return { ok: false, line: line(offset), message: `frontmatter is not readable YAML (${what.slice(0, 160)})` };
  };
  const error = document.errors[0];
  if (error !== undefined) return failed(error.pos[0], error.message);
  let value: unknown;
  try {
    // Aliases past yaml's default budget, or one naming no anchor, throw here as they do in parse().
    value = document.toJS();
  } catch (thrown) {
    // The error carries no position: point at the alias that names no anchor, else at the first alias.
    let at: number | undefined;
    visit(document, {
      Alias: (_, alias) => {
        at ??= alias.range?.[0];
        if (alias.resolve(document) !== undefined) return undefined;
        at = alias.range?.[0] ?? at;
        return visit.BREAK;
      },
    });
    return failed(at ?? 0, thrown instanceof Error ? thrown.message : 'unreadable');
  }
  return {
    ok: true,
    doc: docOf(
      value,
      marksOf(document.contents, value, (alias) => (isAlias(alias) ? alias.resolve(document) : null), line),
    ),
  };
}

/** A parse as Claude Code makes it: as written, then once more with indicator-holding values quoted. */
// `argument-hint: [pr-number] [--fix]`, as commands write it, is no YAML: a flow sequence closed on its line and
// more after it. In a frontmatter of such lines and flat lines (flatMapping) the first parse fails there for
// certain (each line is one entry: nothing can open on one line and go on to the next), and the second reads
// every value as written; that second reading is made without the parser when the quoted text is flat.
const flowThenMore = /^[A-Za-z][A-Za-z_-]{0,99}: +\[[A-Za-z0-9_ .=<>/$+-]*\](?:[ \t]+\[[A-Za-z0-9_ .=<>/$+-]*\])+$/;

function quotedFlat(body: string, firstLine: number): Reading | null {
  const lines = body.split('\n');
  if (lines.at(-1) === '') lines.pop();
  const unreadable = lines.filter((line) => flowThenMore.test(line)).length;
  if (unreadable === 0) return null;
  const rest = lines.filter((line) => !flowThenMore.test(line));
  if (rest.length > 0 && flatMapping(`${rest.join('\n')}\n`, firstLine) === null) return null;
  return flatMapping(quoteValues(body), firstLine);
}

function readYaml(body: string, firstLine: number, uniqueKeys = true): Reading {
  const flat = quotedFlat(body, firstLine);
  if (flat !== null) return flat;
  const first = parseOnce(body, firstLine, uniqueKeys);
  if (first.ok) return first;
  const quoted = quoteValues(body);
  return quoted === body ? first : parseOnce(quoted, firstLine, uniqueKeys);
}

const linesBefore = (text: string, offset: number): number => text.slice(0, offset).split('\n').length;
const mentionsHooks = (body: string): boolean => /(?:^|[\s{,])["']?hooks["']?[ \t]*:/m.test(body);

/** The YAML frontmatter of a Markdown text (opening `---` on line 1), or null when it has none. */
export function frontmatterOf(text: string): Frontmatter | null {
  // Decoded files keep a byte-order mark; reading past it sees the frontmatter even if Claude Code does not,
  // so whatever such a file declares is vetted.
  const source = text.startsWith('\uFEFF') ? text.slice(1) : text;
  const opening = /^---\s*\n/.exec(source);
  if (opening === null) return null;
  const start = opening[0].length;
  const end = source.indexOf('---', start);
  if (end === -1) return null;
  const firstLine = linesBefore(source, start);
  const body = source.slice(start, end);
  const read = readYaml(body, firstLine);
  const others: OtherReading[] = [];
  if (!read.ok) {
    const lenient = readYaml(body, firstLine, false);
    if (lenient.ok)
      others.push({
        doc: lenient.doc,
        line: read.line,
        why: 'repeats a key: Claude Code reads no field from it, a parser keeping the last value would',
      });
  }
  // The first `---` closes the frontmatter even inside a line; a reader that wants `---` alone on its line
  // would read on to that line.
  const alone = /^---[ \t]*\r?$/gm;
  alone.lastIndex = start;
  const closing = alone.exec(source);
  if (closing !== null && closing.index !== end) {
    const wider = readYaml(source.slice(start, closing.index), firstLine);
    if (wider.ok)
      others.push({
        doc: wider.doc,
        line: linesBefore(source, end),
        why: "closes at a '---' inside a line, and Claude Code reads only what comes before it",
      });
  }
  return read.ok ? { ok: true, doc: read.doc, others } : { ...read, mentionsHooks: mentionsHooks(body), others };
}
