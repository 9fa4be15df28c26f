// Reading the estate file's YAML nodes with their line numbers (docs/estate.md): a mapping's keys checked against
// the keys its item allows, its values read as strings, one of a set, string lists or secret references.
// Every problem is collected with its line, none stops the reading, so that one run names them all. A
// message names keys and lines, never a value the file gives (a value may be a secret written by mistake).
import { isMap, isScalar, isSeq, type LineCounter, type Node, type Pair, type YAMLMap } from 'yaml';
import { parseSecretReference, type SecretReference } from '../kernel/secret-reference.ts';

export type EstateFileError = Readonly<{ line: number; message: string }>;

/** A key shown in a message: one that reads as a key; anything else (a value pasted as a key) is not echoed. */
const keyLike = /^[A-Za-z][A-Za-z0-9_.-]{0,39}$/;
export const shownKey = (key: string): string => (keyLike.test(key) ? `'${key}'` : 'a key');

export class EstateReader {
  readonly errors: EstateFileError[] = [];
  private readonly lines: LineCounter;
  constructor(lines: LineCounter) {
    this.lines = lines;
  }

  lineOf(node: unknown, fallback = 1): number {
    const range = (node as Node | null | undefined)?.range;
    return range ? this.lines.linePos(range[0]).line : fallback;
  }

  fail(line: number, message: string): void {
    this.errors.push({ line, message });
  }

  /**
   * The fields of mapping `node` (one item of `what`), keyed by name, each with its value node and line;
   * null when `node` is not a mapping. An unknown key is an error (`hints` may explain a particular one).
   */
  fields(
    node: unknown,
    what: string,
    allowed: readonly string[],
    hints: Readonly<Record<string, string>> = {},
  ): Fields | null {
    if (!isMap(node)) {
      this.fail(this.lineOf(node), `${what} must be a mapping of ${allowed.join(', ')}`);
      return null;
    }
    const values = new Map<string, Field>();
    for (const pair of (node as YAMLMap<unknown, unknown>).items) {
      const key = keyOf(pair);
      const line = this.lineOf(pair.key, this.lineOf(node));
      if (key === null) this.fail(line, `${what}: a key must be a plain name`);
      else if (Object.hasOwn(hints, key)) this.fail(line, `${what}: ${hints[key]}`);
      else if (!allowed.includes(key)) {
        this.fail(line, `${what}: unknown key ${shownKey(key)}; allowed: ${allowed.join(', ')}`);
      } else values.set(key, { node: pair.value, line });
    }
    return new Fields(this, what, values, this.lineOf(node));
  }

  /** The items of a list at `line`; null (absent or empty `key:`) is an empty list. */
  items(node: unknown, what: string, line: number): readonly unknown[] {
    if (node === null || node === undefined || (isScalar(node) && node.value === null)) return [];
    if (!isSeq(node)) {
      this.fail(this.lineOf(node, line), `${what} must be a list`);
      return [];
    }
    return node.items;
  }
}

function keyOf(pair: Pair<unknown, unknown>): string | null {
  const key = pair.key;
  return isScalar(key) && typeof key.value === 'string' ? key.value : null;
}

type Field = Readonly<{ node: unknown; line: number }>;

/** One mapping's fields; every reader records its own error and answers null for a missing or bad value. */
export class Fields {
  private readonly reader: EstateReader;
  readonly what: string;
  private readonly values: ReadonlyMap<string, Field>;
  readonly line: number;
  constructor(
    reader: EstateReader,
    what: string,
    values: ReadonlyMap<string, Field>,
    /** The mapping's own line: where the item starts. */
    line: number,
  ) {
    this.reader = reader;
    this.what = what;
    this.values = values;
    this.line = line;
  }

  has(key: string): boolean {
    return this.values.has(key);
  }

  /** `key`'s value node (undefined when absent). */
  node(key: string): unknown {
    return this.values.get(key)?.node;
  }

  /** The line of `key`'s value (the mapping's line when the key is absent). */
  lineOf(key: string): number {
    const field = this.values.get(key);
    return field ? this.reader.lineOf(field.node, field.line) : this.line;
  }

  fail(key: string, message: string): void {
    this.reader.fail(this.lineOf(key), `${this.what}: ${message}`);
  }

  /** A string value; `required` makes an absent key an error. Empty and blank strings are refused. */
  text(key: string, required: boolean): string | null {
    const field = this.values.get(key);
    if (!field) {
      if (required) this.reader.fail(this.line, `${this.what}: '${key}' is required`);
      return null;
    }
    const { node } = field;
    if (!isScalar(node) || typeof node.value !== 'string') {
      this.fail(key, `'${key}' must be a string${isScalar(node) && node.value !== null ? ' (quote it)' : ''}`);
      return null;
    }
    if (node.value.trim() === '') {
      this.fail(key, `'${key}' must not be empty`);
      return null;
    }
    return node.value;
  }

  /** One of `values`; the message lists them, never the value given. */
  oneOf<T extends string>(key: string, values: readonly T[], required: boolean): T | null {
    const text = this.text(key, required);
    if (text === null) return null;
    if ((values as readonly string[]).includes(text)) return text as T;
    this.fail(key, `'${key}' must be one of ${values.join(', ')}`);
    return null;
  }

  /** A non-empty list of strings, each with its line. */
  textList(key: string, required: boolean): readonly Readonly<{ text: string; line: number }>[] | null {
    const field = this.values.get(key);
    if (!field) {
      if (required) this.reader.fail(this.line, `${this.what}: '${key}' is required`);
      return null;
    }
    if (!isSeq(field.node) || field.node.items.length === 0) {
      this.fail(key, `'${key}' must be a non-empty list`);
      return null;
    }
    const out: { text: string; line: number }[] = [];
    let ok = true;
    for (const item of field.node.items) {
      const line = this.reader.lineOf(item, this.lineOf(key));
      if (isScalar(item) && typeof item.value === 'string' && item.value.trim() !== '') {
        out.push({ text: item.value, line });
      } else {
        this.reader.fail(line, `${this.what}: each entry of '${key}' must be a non-empty string`);
        ok = false;
      }
    }
    return ok ? out : null;
  }

  /** A secret reference (`env:NAME` or `file:/path`); anything else is an error that never shows the value. */
  secret(key: string): SecretReference | null {
    const field = this.values.get(key);
    if (!field) return null;
    const node = field.node;
    if (!isScalar(node) || typeof node.value !== 'string') {
      this.fail(key, `'${key}' must be a reference, env:NAME or file:/path`);
      return null;
    }
    const parsed = parseSecretReference(node.value);
    if ('error' in parsed) {
      this.fail(key, `'${key}': ${parsed.error}`);
      return null;
    }
    return parsed;
  }
}
