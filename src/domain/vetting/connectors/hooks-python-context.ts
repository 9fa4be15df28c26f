// The state one Python script's analysis shares between its modules (hooks-python.ts runs the
// statements, hooks-python-expr.ts the expressions, hooks-python-text.ts and hooks-python-bind.ts what
// text and assignments do), and small helpers they all use.
import type { Callable, Flow, Obj, Scope, Value } from './hooks-flow.ts';
import type { Nested } from './hooks-programs.ts';
export { itemsOf, site } from './hooks-script-common.ts';
import type { ShellNode, ShellParser } from './hooks-syntax.ts';

/** One call of a library function (or a method of an object a library call made). */
export type PyCall = Readonly<{
  flow: Flow;
  node: ShellNode;
  name: string;
  receiver: Value | null;
  args: readonly Value[];
  kwargs: ReadonlyMap<string, Value>;
  /** The object this call makes (one per call in the script). */
  site: (kind: string) => Obj;
  /** Calls a function of the script. */
  invoke: (callee: Value, args: readonly Value[]) => Value;
  attribute: (base: Value, name: string) => Value;
  /** A name of the module scope (`globals()['x']`). */
  lookup: (name: string) => Value;
  /** Code held in a constant string, run in the script's scope (`exec`, `eval`): the value of an expression. */
  evaluate: (code: string, expression: boolean) => Value;
  nested: Nested;
}>;

/** The state of one Python script's analysis; the statement evaluator (hooks-python.ts) fills in the functions. */
export type Py = {
  flow: Flow;
  /** The pass over the script (from 0): imported files are looked up in the first only. */
  pass: number;
  parse: ShellParser;
  nested: Nested;
  module: Scope;
  /** Modules imported with `from m import *`: a name nobody assigned may be theirs. */
  star: string[];
  /** The objects each literal or call makes, so a later pass finds the same ones. */
  sites: Map<ShellNode, Obj>;
  invoke: (callee: Callable, args: readonly Value[], kwargs: ReadonlyMap<string, Value>, node: ShellNode) => Value;
  run: (code: string, scope: Scope, expression: boolean, node: ShellNode) => Value;
  lambda: (node: ShellNode, scope: Scope) => Callable;
  /** Evaluates an expression (hooks-python-expr.ts). */
  expr: (node: ShellNode, scope: Scope) => Value;
};

/** The operator token of an expression (`+`, `%`, `in`). */
export const operatorOf = (py: Py, node: ShellNode): string => {
  const op = node.children.find((c) => c.field === 'operator');
  return op ? py.flow.source.slice(op.start, op.end) : '';
};

/** A call's argument by position, or by keyword. */
export const arg = (c: PyCall, i: number, key?: string): Value | undefined =>
  c.args[i] ?? (key === undefined ? undefined : c.kwargs.get(key));

/** The first element of an address tuple `(host, port)`. */
export const hostOfAddress = (address: Value | undefined): Value | undefined => {
  const first = (address?.objs ?? [])[0]?.items?.[0];
  return first ?? address;
};
