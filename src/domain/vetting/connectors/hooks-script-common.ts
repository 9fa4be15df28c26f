// What the Python (hooks-python.ts) and JavaScript (hooks-javascript.ts) evaluators share: the record of
// the script's functions, classes and calls they keep across passes, how a call of the script's own
// function is followed (once per set of argument values, within the limits of hooks-calls.ts), the passes
// until nothing changes, the objects each literal or call makes, and the library models' canonical names.
import { callKey, contextsPerFunction, Widened } from './hooks-calls.ts';
import { empty, join, labelsOf, Obj, Scope, withTaint, type Callable, type Flow, type Value } from './hooks-flow.ts';
import type { Nested } from './hooks-programs.ts';
import type { ShellNode, ShellParser } from './hooks-syntax.ts';

/** What an evaluator keeps of the script's functions, classes and calls while it reads it. */
export type Bookkeeping = {
  frames: Value[][];
  stack: ShellNode[];
  /** Every function of the script by its node (the first closure seen), read once on its own. */
  defined: Map<ShellNode, Callable>;
  /** What each function gives read on its own (its parameters unknown). */
  summaries: Map<ShellNode, Value>;
  /** Code held in strings, parsed once. */
  parsed: Map<string, ShellNode>;
  /** The calls followed this pass, by function and arguments (callKey). */
  calls: Map<ShellNode, Map<string, Value>>;
  /** Arguments of calls not followed, for each function's own reading. */
  widened: Widened;
  instances: Map<ShellNode, Obj>;
  classes: Map<Scope, Callable>;
  persistent: Map<ShellNode, Callable>;
};

/** A new, empty record. */
export const bookkeeping = (): Bookkeeping => ({
  frames: [],
  stack: [],
  defined: new Map(),
  summaries: new Map(),
  parsed: new Map(),
  calls: new Map(),
  widened: new Widened(),
  instances: new Map(),
  classes: new Map(),
  persistent: new Map(),
});

/** An evaluator's state as the shared parts use it. */
export type Interpreter = Bookkeeping & { flow: Flow; parse: ShellParser; pass: number };

/** The object a literal or a call makes, the same one each time it is evaluated. */
export const site = (state: { sites: Map<ShellNode, Obj> }, node: ShellNode, kind: string): Obj => {
  let obj = state.sites.get(node);
  if (obj === undefined) state.sites.set(node, (obj = new Obj(kind)));
  return obj;
};

/** The elements of a list, tuple or array, in order, when every one is known. */
export const itemsOf = (value: Value): readonly Value[] | null =>
  (value.objs ?? []).find((o) => o.items !== null)?.items ?? null;

/** The one instance of a class of the script. */
export function instanceOf(state: Bookkeeping, cls: Callable): Obj {
  let obj = state.instances.get(cls.node);
  if (obj === undefined) {
    obj = new Obj('instance');
    obj.cls = cls;
    state.instances.set(cls.node, obj);
  }
  return obj;
}

/** Code held in a string, parsed once: the same text gives the same nodes, so what a pass learns holds in the next. */
export function parsedOnce(state: Interpreter, code: string): ShellNode {
  let tree = state.parsed.get(code);
  if (tree === undefined) state.parsed.set(code, (tree = state.parse(code)));
  return tree;
}

/** A call of a function of the script, as the language evaluator hands it to `follow`. */
export type Following = Readonly<{
  /** Every value the call gives (positional, then by keyword): what it is keyed and tainted by. */
  given: readonly Value[];
  /** The function read on its own (once a pass), whatever the limits. */
  force: boolean;
  /** Keeps the arguments of a call not followed; says whether the function's reading has more to read. */
  widen: () => boolean;
  /** Binds the parameters in the call's scope. */
  enter: (scope: Scope) => void;
  /** Evaluates the body with a frame pushed for its returns: what the call gives. */
  body: (scope: Scope) => Value;
}>;

/**
 * Follows a call into a function of the script, once per pass for each set of argument values; a call
 * not followed (a recursion, a chain too deep, the limits reached) gives the function's own reading with
 * what its arguments carry.
 */
export function follow(state: Interpreter, fn: Callable, call: Following): Value {
  const own = state.summaries.get(fn.node) ?? empty;
  const fallback = (): Value =>
    withTaint(
      own,
      call.given.flatMap((a) => labelsOf(a)),
    );
  const key = call.force ? (call.given.length > 0 ? '*' : '') : callKey(call.given, fn.self);
  if (key === null) return own;
  const contexts = state.calls.get(fn.node) ?? new Map<string, Value>();
  state.calls.set(fn.node, contexts);
  const known = contexts.get(key);
  if (known !== undefined) return known;
  const limited =
    state.stack.includes(fn.node) ||
    state.stack.length >= 4 ||
    state.flow.budget < 0 ||
    contexts.size >= contextsPerFunction(fn.node);
  if (!call.force && limited) {
    if (call.widen()) state.flow.changed = true;
    return fallback();
  }
  contexts.set(key, fallback());
  const scope = new Scope(fn.scope as Scope, 'function');
  call.enter(scope);
  state.stack.push(fn.node);
  state.frames.push([]);
  try {
    const result = call.body(scope);
    const next = join(own, result);
    if (key === '' && next !== own) {
      state.summaries.set(fn.node, next);
      state.flow.changed = true;
    }
    contexts.set(key, result);
    return result;
  } finally {
    state.stack.pop();
    state.frames.pop();
  }
}

/**
 * Evaluates the script until nothing changes (at most three passes); after each evaluation every function
 * is read once on its own (`alone`, given the class it is a method of), as a framework, an event or an
 * export may call it.
 */
export function settle(
  state: Interpreter,
  evaluate: () => void,
  alone: (fn: Callable, cls: Callable | undefined) => void,
): void {
  for (let pass = 0; pass < 3; pass++) {
    state.flow.changed = false;
    state.pass = pass;
    state.calls.clear();
    evaluate();
    for (const fn of [...state.defined.values()]) alone(fn, state.classes.get(fn.scope as Scope));
    if (!state.flow.changed) break;
  }
}

/** A number literal as a value (`1_000` is 1000): its number when `known` accepts it, else nothing known. */
export function numberLiteral(source: string, node: ShellNode, known: (n: number) => boolean): Value {
  const n = Number(source.slice(node.start, node.end).replaceAll('_', ''));
  return known(n) ? { num: n } : empty;
}

/** One call of a library function as a library model sees it: methods, not closures. */
export abstract class LibraryCall<S extends { flow: Flow; nested: Nested; sites: Map<ShellNode, Obj> }> {
  protected readonly state: S;
  readonly node: ShellNode;
  readonly name: string;
  readonly receiver: Value | null;
  readonly args: readonly Value[];
  constructor(state: S, node: ShellNode, name: string, receiver: Value | null, args: readonly Value[]) {
    this.state = state;
    this.node = node;
    this.name = name;
    this.receiver = receiver;
    this.args = args;
  }
  get flow(): Flow {
    return this.state.flow;
  }
  get nested(): Nested {
    return this.state.nested;
  }
  /** The object this call makes (one per call in the script). */
  site(kind: string): Obj {
    return site(this.state, this.node, kind);
  }
}

/**
 * The canonical name of a library value however it was reached, by a model's aliases (in order; `$1` in
 * a replacement is the pattern's first group, `$MODULE` the name's first part), remembered per name.
 */
export function canonicalNames(aliases: readonly (readonly [RegExp, string])[]): (name: string) => string {
  const known = new Map<string, string>();
  return (name) => {
    let out = known.get(name);
    if (out !== undefined) return out;
    out = name;
    for (const [pattern, replacement] of aliases) {
      const m = pattern.exec(out);
      if (m === null) continue;
      out = out.replace(pattern, replacement.replace('$MODULE', out.split('.')[0]!).replace('$1', m[1] ?? ''));
    }
    if (known.size < 4096) known.set(name, out);
    return out;
  };
}
