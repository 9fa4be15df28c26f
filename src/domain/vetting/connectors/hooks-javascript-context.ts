// The state one JavaScript script's analysis shares between its modules (hooks-javascript.ts runs the
// statements, hooks-javascript-expr.ts the expressions, hooks-javascript-values.ts literals and
// operators, hooks-javascript-bind.ts assignments and imports), and small helpers they all use.
import { empty, join, Obj, type Callable, type Flow, type Scope, type Value } from './hooks-flow.ts';
import type { Nested } from './hooks-programs.ts';
import type { ShellNode } from './hooks-syntax.ts';

export type Js = {
  flow: Flow;
  /** The pass over the script (from 0): imported files are looked up in the first only. */
  pass: number;
  nested: Nested;
  module: Scope;
  sites: Map<ShellNode, Obj>;
  invoke: (callee: Callable, args: readonly Value[], node: ShellNode) => Value;
  instantiate: (cls: Callable, args: readonly Value[], node: ShellNode) => Value;
  run: (code: string, node: ShellNode) => Value;
  callable: (node: ShellNode, scope: Scope) => Callable;
  /** Binds a name, a destructuring pattern, a member to a value. */
  bind: (target: ShellNode, value: Value, scope: Scope) => void;
  /** Evaluates an expression (hooks-javascript-expr.ts). */
  expr: (node: ShellNode, scope: Scope) => Value;
};

/** The object a literal or a call makes, the same one each time it is evaluated. */
export const site = (js: Js, node: ShellNode, kind: string): Obj => {
  let obj = js.sites.get(node);
  if (obj === undefined) js.sites.set(node, (obj = new Obj(kind)));
  return obj;
};

/** The elements of an array, in order, when every one is known. */
export const itemsOf = (value: Value): readonly Value[] | null =>
  (value.objs ?? []).find((o) => o.items !== null)?.items ?? null;

/** What awaiting a value gives: a promise's resolved value, or the value itself. */
export const awaited = (value: Value): Value =>
  (value.objs ?? []).reduce(
    (out, obj) => (obj.kind === 'promise' ? join(out, obj.fields.get('@value') ?? empty) : out),
    value,
  );
