// JSON documents that remember where things are. The values come from JSON.parse, so the gateway reads a
// manifest exactly as Claude Code (a JavaScript program) does; a scanner beside it only maps every object,
// array item and key to its line, which is what findings (`path:line`) and inventory locations need.
import type { ScanFile } from '../kernel/findings.ts';

/** A parsed JSON or YAML document that remembers the line of every object, array item and key. */
export type Doc = Readonly<{ value: unknown; lineOf: (node: unknown, key?: string | number) => number }>;

export type JsonRead =
  | Readonly<{ status: 'missing'; path: string }>
  | Readonly<{ status: 'oversized'; path: string; file: ScanFile }>
  | Readonly<{ status: 'invalid'; path: string; line: number; message: string }>
  | Readonly<{ status: 'ok'; path: string; doc: Doc }>;

/** Lines of a collection: its own (where it opens) and those of its keys or item indexes. */
export type Mark = { line: number; keys: Map<string | number, number> };
export type Marks = WeakMap<object, Mark>;

/** A document over `value` whose lines are looked up in `marks`; anything unmarked is on line 1. */
export const docOf = (value: unknown, marks: Marks): Doc => ({
  value,
  lineOf: (node, key) => {
    const mark = typeof node === 'object' && node !== null ? marks.get(node) : undefined;
    return (key === undefined ? mark?.line : (mark?.keys.get(key) ?? mark?.line)) ?? 1;
  },
});

/** Offset → line (from 1), by binary search over the line starts. */
export function lineIndex(text: string): (offset: number) => number {
  const starts = [0];
  for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) starts.push(at + 1);
  return (offset) => {
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo + 1;
  };
}

type ScanEvents = Readonly<{
  open: (at: number) => void;
  key: (key: string, at: number) => void;
  item: (at: number) => void;
  close: () => void;
}>;

const stringToken = /"(?:[^"\\\u0000-\u001f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"/y;
const literalToken = /true|false|null|-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

/**
 * Walk the RFC 8259 grammar of `text`, reporting where collections open, keys and items start and
 * collections close. Returns -1 for a valid text, else the offset of the first token that breaks it, which
 * is how a syntax error gets its line (JSON.parse names no position for many errors on Node 20). An
 * explicit stack, not recursion, so nesting depth costs no call stack.
 */
function scanJson(text: string, on: ScanEvents): number {
  const stack: Array<'{' | '['> = [];
  let i = 0;
  let state: 'value' | 'key' | 'after' = 'value';
  const skip = () => {
    while (i < text.length && ' \t\n\r'.includes(text[i]!)) i++;
  };
  const token = (pattern: RegExp): string | null => {
    pattern.lastIndex = i;
    const match = pattern.exec(text);
    if (match !== null) i += match[0].length;
    return match?.[0] ?? null;
  };
  for (;;) {
    skip();
    if (state === 'value') {
      const c = text[i];
      if (c === '{' || c === '[') {
        on.open(i);
        i++;
        skip();
        if (text[i] === (c === '{' ? '}' : ']')) {
          i++;
          on.close();
          state = 'after';
          continue;
        }
        stack.push(c);
        if (c === '{') state = 'key';
        else on.item(i);
        continue;
      }
      if (token(c === '"' ? stringToken : literalToken) === null) return i;
      state = 'after';
    } else if (state === 'key') {
      const at = i;
      const key = token(stringToken);
      skip();
      if (key === null || text[i] !== ':') return i;
      i++;
      on.key(JSON.parse(key) as string, at);
      state = 'value';
    } else {
      const top = stack.at(-1);
      if (top === undefined) return i < text.length ? i : -1;
      if (text[i] === ',') {
        i++;
        skip();
        if (top === '{') state = 'key';
        else {
          on.item(i);
          state = 'value';
        }
      } else if (text[i] === (top === '{' ? '}' : ']')) {
        i++;
        stack.pop();
        on.close();
      } else return i;
    }
  }
}

const own = (node: unknown, key: string | number): unknown =>
  typeof node === 'object' && node !== null && Object.hasOwn(node, key)
    ? (node as Record<string | number, unknown>)[key]
    : undefined;

/**
 * The lines of `root` (the JSON.parse value of `text`). The scan follows the value down: the collection a key
 * or item opens is the value under that key. With a duplicate key JSON.parse keeps the last value, and the
 * last occurrence is also the one marked last.
 */
function marksOf(text: string, root: unknown, line: (offset: number) => number): Marks {
  const marks: Marks = new WeakMap();
  const open: Array<{ node: unknown; mark: Mark; index: number }> = [];
  let next = root;
  scanJson(text, {
    open: (at) => {
      const mark: Mark = { line: line(at), keys: new Map() };
      if (typeof next === 'object' && next !== null) marks.set(next, mark);
      open.push({ node: next, mark, index: -1 });
    },
    key: (key, at) => {
      const top = open.at(-1)!;
      top.mark.keys.set(key, line(at));
      next = own(top.node, key);
    },
    item: (at) => {
      const top = open.at(-1)!;
      top.index++;
      top.mark.keys.set(top.index, line(at));
      next = own(top.node, top.index);
    },
    close: () => {
      open.pop();
    },
  });
  return marks;
}

const noEvents: ScanEvents = { open: () => {}, key: () => {}, item: () => {}, close: () => {} };

/** JSON with lines; an invalid text gives the line of the error and a message that does not echo it. */
export function parseJson(text: string): Doc | Readonly<{ line: number; message: string }> {
  const line = lineIndex(text);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    const offset = scanJson(text, noEvents);
    // A text the grammar accepts and JSON.parse still refuses is one too deep for the engine.
    if (offset === -1) return { line: 1, message: 'is too deeply nested to read' };
    const at = line(offset);
    return { line: at, message: `is not valid JSON (line ${at})` };
  }
  return docOf(value, marksOf(text, value, line));
}

/** A needed JSON file of the tree, read. */
export function readJson(path: string, file: ScanFile | undefined): JsonRead {
  if (file === undefined) return { status: 'missing', path };
  if (file.oversized) return { status: 'oversized', path, file };
  if (file.text === null) return { status: 'invalid', path, line: 1, message: 'is a binary file, not JSON' };
  const parsed = parseJson(file.text);
  return 'value' in parsed ? { status: 'ok', path, doc: parsed } : { status: 'invalid', path, ...parsed };
}
