// What a value of a Python or JavaScript script holds, as far as the script shows it: the text it is
// when the script spells it (constant strings folded through concatenation, formatting, joins and
// decoders), the API it stands for (`urllib.request.urlopen`, `child_process.execSync`, whatever the
// script calls it), the objects and functions it refers to, and where its data comes from (labels: the
// environment, a credential file, the hook's input, the network, a decoder). hooks-python.ts and
// hooks-javascript.ts compute values; hooks-effects.ts judges what a script does with them.
import type { LocatedRisk } from './hooks-shell.ts';
import type { ScriptFact } from './hooks-analysis-types.ts';
import type { Invocation } from './hooks-reach.ts';
import type { Parsers, ShellNode } from './hooks-syntax.ts';

/**
 * Where data comes from: `env:NAME` (`env:*` the whole environment, `env:?` a variable named at run time),
 * `cred:PATH` (a credential file, or `keychain`), `input:HOW` (the hook's stdin: the user's prompts and
 * tool output), `fetched:HOST` (the network), `decoded:HOW` (a decoder's output).
 */
export type Label = string;

export const labelKind = (label: Label): string => label.slice(0, label.indexOf(':'));
export const labelDetail = (label: Label): string => label.slice(label.indexOf(':') + 1);

/** A function, lambda, method or class of the script, or a promise's resolver; `scope` is the evaluator's. */
export type Callable = Readonly<{
  node: ShellNode;
  scope: unknown;
  kind: 'function' | 'class' | 'resolve';
  /** The object a method is bound to. */
  self?: Value;
  /** What a resolver resolves. */
  target?: Obj;
  /** Python decorators that change how it is called (`property`, `staticmethod`, `classmethod`). */
  decorators?: readonly string[];
  /** The code its nodes point into, when it was defined in code a string of the script holds (`eval`). */
  code?: Readonly<{ source: string; at: number | null }>;
}>;

/** An object the script builds (a dict, a list, an instance, a request, a socket): shared, so it can change. */
export class Obj {
  readonly fields = new Map<string, Value>();
  /** The elements in order while every change keeps them known (a literal list, an argv). */
  items: Value[] | null = null;
  /** What went in under keys or positions the script computes. */
  rest: Value = empty;
  /** The class of an instance of the script's own class. */
  cls: Callable | null = null;
  readonly kind: string;
  readonly refs: readonly string[];
  constructor(kind: string, refs: readonly string[] = []) {
    this.kind = kind;
    this.refs = refs;
  }
}

export type Value = Readonly<{
  /** The text, when the script spells all of it. */
  str?: string;
  /** The text with each computed part as `\u0001`, when some of it is known (`https://h/\u0001`). */
  template?: string;
  /** The API it stands for, by its canonical name. */
  refs?: readonly string[];
  taint?: readonly Label[];
  /** The labels of a computed start (a URL whose base is configured): not data the URL carries. */
  lead?: readonly Label[];
  objs?: readonly Obj[];
  fns?: readonly Callable[];
  num?: number;
}>;

export const empty: Value = Object.freeze({});
export const text = (str: string, taint?: readonly Label[]): Value =>
  taint && taint.length > 0 ? { str, taint } : { str };
export const ref = (name: string, taint?: readonly Label[]): Value =>
  taint && taint.length > 0 ? { refs: [name], taint } : { refs: [name] };
export const tainted = (...labels: Label[]): Value => ({ taint: labels });

const cap = 12;
function union<T>(a: readonly T[] | undefined, b: readonly T[] | undefined): readonly T[] | undefined {
  if (b === undefined || b.length === 0 || a === b) return a;
  if (a === undefined || a.length === 0) return b;
  let out: T[] | null = null;
  for (const item of b) {
    if (a.includes(item) || out?.includes(item)) continue;
    if (a.length + (out?.length ?? 0) >= cap) break;
    (out ??= []).push(item);
  }
  return out === null ? a : [...a, ...out];
}

/** The same function bound to the same object is one callable, however often the script reads it. */
const sameFn = (x: Callable, y: Callable): boolean =>
  x === y ||
  (x.node === y.node &&
    x.scope === y.scope &&
    x.kind === y.kind &&
    x.target === y.target &&
    x.self?.objs?.[0] === y.self?.objs?.[0]);

function unionFns(
  a: readonly Callable[] | undefined,
  b: readonly Callable[] | undefined,
): readonly Callable[] | undefined {
  if (b === undefined || b.length === 0 || a === b) return a;
  if (a === undefined || a.length === 0) return b;
  const extra = b.filter((fn) => !a.some((old) => sameFn(old, fn)));
  return extra.length === 0 ? a : [...a, ...extra].slice(0, cap);
}

const commonPrefix = (a: string, b: string): string => {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return a.slice(0, i);
};

/** Either value (a variable assigned twice, both branches of an `if`): `a` itself when `b` adds nothing. */
export function join(a: Value, b: Value): Value {
  if (a === b || b === empty) return a;
  if (a === empty) return b;
  const str = a.str !== undefined && a.str === b.str ? a.str : undefined;
  const left = textOf(a);
  const right = textOf(b);
  const template =
    str !== undefined || left === undefined || right === undefined
      ? undefined
      : left === right
        ? left
        : `${commonPrefix(left, right)}\u0001`;
  const out: { -readonly [K in keyof Value]: Value[K] } = {};
  if (str !== undefined) out.str = str;
  if (template !== undefined && template !== '\u0001') out.template = template;
  const refs = union(a.refs, b.refs);
  const taint = union(a.taint, b.taint);
  const lead = union(a.lead, b.lead);
  const objs = union(a.objs, b.objs);
  const fns = unionFns(a.fns, b.fns);
  if (refs) out.refs = refs;
  if (taint) out.taint = taint;
  if (lead) out.lead = lead;
  if (objs) out.objs = objs;
  if (fns) out.fns = fns;
  if (a.num !== undefined && a.num === b.num) out.num = a.num;
  const same =
    out.str === a.str &&
    out.template === a.template &&
    refs === a.refs &&
    taint === a.taint &&
    lead === a.lead &&
    objs === a.objs &&
    fns === a.fns &&
    out.num === a.num;
  return same ? a : out;
}

export const joinAll = (values: readonly Value[]): Value => values.reduce(join, empty);

/** The value with more labels (what flows out of a call, an attribute, an operation on it). */
export const withTaint = (value: Value, labels: readonly Label[] | undefined): Value => {
  const taint = union(value.taint, labels);
  return taint === value.taint || taint === undefined ? value : { ...value, taint };
};

/** Only the data of a value: its labels, nothing it stands for. */
export const dataOf = (value: Value): Value => (value.taint && value.taint.length > 0 ? { taint: value.taint } : empty);

/** Every label a value carries, with those of the objects it holds (a dict of secrets is secret). */
export function labelsOf(value: Value, seen: Set<Obj> = new Set()): Label[] {
  let labels: readonly Label[] = value.taint ?? [];
  for (const obj of value.objs ?? []) {
    if (seen.has(obj)) continue;
    seen.add(obj);
    for (const field of obj.fields.values()) labels = union(labels, labelsOf(field, seen)) ?? labels;
    for (const item of obj.items ?? []) labels = union(labels, labelsOf(item, seen)) ?? labels;
    labels = union(labels, labelsOf(obj.rest, seen)) ?? labels;
  }
  return [...labels];
}

/** The text of a value when known, else its template (computed parts as `\u0001`). */
export const textOf = (value: Value): string | undefined => value.str ?? value.template;

/** Text a script builds from parts (`a + b`, f-strings, template literals, `%`, `.format`, `.join`). */
export function concat(parts: readonly Value[]): Value {
  let str: string | undefined = '';
  let template = '';
  let taint: readonly Label[] | undefined;
  let lead: readonly Label[] | undefined;
  let known = false;
  parts.forEach((part, i) => {
    const t = textOf(part);
    if (part.str !== undefined) known = true;
    else if (t !== undefined) known = true;
    if (str !== undefined) str = part.str === undefined ? undefined : str + part.str;
    template += t ?? '\u0001';
    // The labels of a computed first part say where a URL goes, not what it carries.
    if (i === 0 && t === undefined) lead = union(part.taint, part.lead);
    else if (i === 0) lead = part.lead;
    taint = union(taint, part.taint);
  });
  const out: { -readonly [K in keyof Value]: Value[K] } = {};
  if (str !== undefined) out.str = str;
  else if (known) out.template = template.replace(/\u0001+/g, '\u0001');
  if (taint && taint.length > 0) out.taint = taint;
  if (lead && lead.length > 0) out.lead = lead;
  return out;
}

/** A scope of names: a module, a function's body, a class body, a block. */
export class Scope {
  readonly vars = new Map<string, Value>();
  /** Names a function's body declares `global` (Python). */
  readonly globals = new Set<string>();
  readonly parent: Scope | null;
  readonly kind: 'module' | 'function' | 'class' | 'block';
  constructor(parent: Scope | null, kind: 'module' | 'function' | 'class' | 'block') {
    this.parent = parent;
    this.kind = kind;
  }

  lookup(name: string): Value | undefined {
    const own = this.vars.get(name);
    if (own !== undefined) return own;
    for (let scope = this.parent; scope !== null; scope = scope.parent) {
      // A class body's names are not seen from the methods inside it.
      if (scope.kind === 'class') continue;
      const value = scope.vars.get(name);
      if (value !== undefined) return value;
    }
    return undefined;
  }
}

/** What the analysis of one script has found so far. */
export type Report = {
  risks: Map<string, LocatedRisk>;
  facts: Map<string, ScriptFact>;
  runs: Invocation[];
};

/** The state of one script's analysis, shared by the evaluator, the API models and the judgements. */
export type Flow = {
  /** The text the nodes point into (code a string of the script holds, when nested). */
  source: string;
  parsers: Parsers;
  /** Every risk and fact is reported at this line (code held in a string of the outer script). */
  at: number | null;
  depth: number;
  /** Did this pass change any variable, field or file? The analysis runs again until nothing does. */
  changed: boolean;
  /** Nodes left to evaluate before calls stop being followed (a bound on the work per script). */
  budget: number;
  report: Report;
  /** What the script wrote into files, by path: a fetched file run later is remote code. */
  files: Map<string, readonly Label[]>;
  /** The script's directory and the plugin it belongs to: where the files it runs are looked up. */
  dir: string;
  root: string;
  exists: (path: string) => boolean;
  /** The script's own path, for what it runs. */
  path: string;
  /** The prefix of the plugin's own environment variables (`CLAUDE_MEM_` for claude-mem), or ''. */
  own: string;
  /** How the script's language names the environment and stdin in messages. */
  names: Readonly<{ env: string; input: string }>;
  /** What a command line the script runs was read to (hooks-programs.ts): each is read once. */
  commandLines: Map<string, unknown>;
};

/** Marks the pass as changed when a slot gains something; returns the joined value. */
export function assign(flow: Flow, map: Map<string, Value>, key: string, value: Value): Value {
  const old = map.get(key);
  const next = old === undefined ? value : join(old, value);
  if (next !== old) {
    map.set(key, next);
    flow.changed = true;
  }
  return next;
}

/** Adds to an object's elements or computed keys. */
export function addRest(flow: Flow, obj: Obj, value: Value): void {
  const next = join(obj.rest, value);
  if (next !== obj.rest) {
    obj.rest = next;
    flow.changed = true;
  }
}

export const lineOf = (flow: Flow, node: ShellNode): number => flow.at ?? node.line;

/** What iterating a value gives: its elements, its fields' values, its labels. */
export function elementOf(value: Value): Value {
  let out = dataOf(value);
  for (const obj of value.objs ?? []) {
    for (const item of obj.items ?? []) out = join(out, item);
    for (const field of obj.fields.values()) if (!obj.cls) out = join(out, field);
    out = join(out, obj.rest);
  }
  // A string's characters are of the string.
  if (value.str !== undefined || value.template !== undefined) out = join(out, dataOf(value));
  return out;
}

/** Sets the elements a literal (`[a, b]`, a tuple) gives each time it is evaluated: joined with earlier ones. */
export function setItems(flow: Flow, obj: Obj, items: readonly Value[]): void {
  if (obj.items === null && obj.fields.size === 0 && obj.rest === empty) {
    obj.items = [...items];
    if (items.length > 0) flow.changed = true;
    return;
  }
  // Evaluated again (a later pass, another call), the literal meets what was appended to it since.
  if (obj.items !== null && obj.items.length >= items.length) {
    items.forEach((item, i) => {
      const next = join(obj.items![i]!, item);
      if (next !== obj.items![i]) {
        obj.items![i] = next;
        flow.changed = true;
      }
    });
    return;
  }
  for (const item of items) addRest(flow, obj, item);
  if (obj.items !== null) {
    for (const item of obj.items) addRest(flow, obj, item);
    obj.items = null;
  }
}

/** Adds an element at the end (`append`, `push`): the order stays known while nothing else changed it. */
export function pushItem(flow: Flow, obj: Obj, item: Value): void {
  if (obj.items !== null && obj.items.length < 64 && obj.rest === empty) {
    // Evaluated again in a later pass, the same push would repeat: an element already there is not added.
    if (!obj.items.some((old) => old === item || (old.str !== undefined && old.str === item.str))) {
      obj.items.push(item);
      flow.changed = true;
    }
    return;
  }
  addRest(flow, obj, item);
}

/** Where a function defined now reads its text from: the nested code being run, if any. */
export const codeOf = (flow: Flow): Pick<Callable, 'code'> =>
  flow.depth > 0 ? { code: { source: flow.source, at: flow.at } } : {};

/** Runs `body` with the flow reading the text a function was defined in. */
export function inCode<T>(flow: Flow, fn: Callable, body: () => T): T {
  if (fn.code === undefined || fn.code.source === flow.source) return body();
  const saved = { source: flow.source, at: flow.at };
  flow.source = fn.code.source;
  flow.at = fn.code.at;
  try {
    return body();
  } finally {
    flow.source = saved.source;
    flow.at = saved.at;
  }
}
