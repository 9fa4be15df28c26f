// The state one JavaScript script's analysis shares between its modules (hooks-javascript.ts runs the
// statements, hooks-javascript-expr.ts the expressions, hooks-javascript-values.ts literals and
// operators, hooks-javascript-bind.ts assignments and imports), and small helpers they all use.
import { empty, join, type Callable, type Flow, type Obj, type Scope, type Value } from './hooks-flow.ts';
import type { Nested } from './hooks-programs.ts';
export { itemsOf, site } from './hooks-script-common.ts';
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

/** What awaiting a value gives: a promise's resolved value, or the value itself. */
export const awaited = (value: Value): Value =>
  (value.objs ?? []).reduce(
    (out, obj) => (obj.kind === 'promise' ? join(out, obj.fields.get('@value') ?? empty) : out),
    value,
  );
