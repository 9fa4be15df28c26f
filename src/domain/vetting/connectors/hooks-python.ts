// A Python script as the hooks connector reads it: its statements evaluated over values
// (hooks-flow.ts), so what a call does is judged by what flows into it, not by how the script spells
// it. Imports bind library names (aliases included), functions and classes of the script are followed
// into with the values they are given (and each is also read once on its own, as a framework may call
// it), and the whole script is evaluated again until nothing changes (a value assigned late reaches a
// function defined early). Local modules it imports are files it runs.
import { basename } from '../../plugin/paths.ts';
import {
  codeOf,
  inCode,
  empty,
  join,
  joinAll,
  labelsOf,
  Obj,
  Scope,
  text,
  type Callable,
  type Flow,
  type Value,
} from './hooks-flow.ts';
import type { Nested } from './hooks-programs.ts';
import { libraryCall } from './hooks-python-api.ts';
import { bind, imports } from './hooks-python-bind.ts';
import type { Py } from './hooks-python-context.ts';
import { attribute, expr, pyCall } from './hooks-python-expr.ts';
import { bookkeeping, follow, instanceOf, parsedOnce, settle, type Bookkeeping } from './hooks-script-common.ts';
import { childOf, type ShellNode, type ShellParser } from './hooks-syntax.ts';
import { usesEnvironment } from './hooks-effects.ts';

type State = Py & Bookkeeping;

const isPersistent = (scope: Scope): boolean =>
  scope.kind === 'module' || (scope.kind === 'class' && scope.parent !== null && isPersistent(scope.parent));

const nameOf = (py: State, node: ShellNode | undefined): string =>
  node === undefined ? '' : py.flow.source.slice(node.start, node.end);

function define(
  py: State,
  node: ShellNode,
  scope: Scope,
  kind: 'function' | 'class',
  decorators: readonly string[],
): Callable {
  const persistent = isPersistent(scope);
  let fn = persistent ? py.persistent.get(node) : undefined;
  if (fn === undefined) {
    const own = kind === 'class' ? new Scope(scope, 'class') : scope;
    fn = { node, scope: own, kind, ...(decorators.length > 0 ? { decorators } : {}), ...codeOf(py.flow) };
    if (persistent) py.persistent.set(node, fn);
  }
  if (kind === 'function' && !py.defined.has(node)) py.defined.set(node, fn);
  bind(py, childOf(node, 'name') ?? node, { fns: [fn] }, scope);
  return fn;
}

function defineClass(py: State, node: ShellNode, scope: Scope, decorators: readonly string[]): void {
  const cls = define(py, node, scope, 'class', decorators);
  const own = cls.scope as Scope;
  py.classes.set(own, cls);
  const bases = childOf(node, 'superclasses');
  if (bases) own.vars.set('__bases__', joinAll(bases.children.map((b) => expr(py, b, scope))));
  const body = childOf(node, 'body');
  if (body) block(py, body.children, own);
}

function bindParameters(
  py: State,
  fn: Callable,
  scope: Scope,
  args: readonly Value[],
  kwargs: ReadonlyMap<string, Value>,
): void {
  const params = childOf(fn.node, 'parameters')?.children ?? [];
  const positional = fn.self ? [fn.self, ...args] : args;
  let i = 0;
  for (const p of params) {
    const inner = childOf(p, 'name') ?? p.children.find((c) => c.type === 'identifier') ?? p;
    const name = nameOf(py, p.type === 'identifier' ? p : inner);
    let value: Value;
    if (p.type === 'list_splat_pattern') {
      const obj = new Obj('list');
      obj.items = positional.slice(i);
      i = positional.length;
      value = { objs: [obj] };
    } else if (p.type === 'dictionary_splat_pattern') {
      const obj = new Obj('dict');
      for (const [k, v] of kwargs) obj.fields.set(k, v);
      value = { objs: [obj] };
    } else if (p.type === 'keyword_separator' || p.type === 'positional_separator') continue;
    else {
      const fallback = childOf(p, 'value');
      value = positional[i++] ?? kwargs.get(name) ?? (fallback ? expr(py, fallback, fn.scope as Scope) : empty);
    }
    scope.vars.set(name, value);
  }
}

/** Calls a function or class of the script, reading it in the text it was defined in. */
function invoke(
  py: State,
  fn: Callable,
  args: readonly Value[],
  kwargs: ReadonlyMap<string, Value>,
  force = false,
): Value {
  return inCode(py.flow, fn, () => {
    if (fn.kind === 'class') {
      const obj = instanceOf(py, fn);
      const init = attribute(py, { objs: [obj] }, '__init__');
      for (const f of init.fns ?? []) invoke(py, f, args, kwargs);
      return { objs: [obj] };
    }
    if (fn.kind !== 'function') return empty;
    return follow(py, fn, {
      given: [...args, ...kwargs.values()],
      force,
      widen: () => py.widened.add(fn.node, args, kwargs),
      enter: (scope) => bindParameters(py, fn, scope, args, kwargs),
      body: (scope) => {
        const body = childOf(fn.node, 'body');
        if (fn.node.type === 'lambda') return body ? expr(py, body, scope) : empty;
        if (body) block(py, body.children, scope);
        return joinAll(py.frames.at(-1)!);
      },
    });
  });
}

const compound = /_statement$|_clause$|^(?:block|module|decorated_definition|function_definition|class_definition)$/;

function statement(py: State, node: ShellNode, scope: Scope): void {
  if (py.flow.budget < 0) return;
  switch (node.type) {
    case 'import_statement':
    case 'import_from_statement':
      return imports(py, node, scope);
    case 'future_import_statement':
    case 'pass_statement':
    case 'break_statement':
    case 'continue_statement':
      return;
    case 'function_definition':
      define(py, node, scope, 'function', []);
      return;
    case 'class_definition':
      return defineClass(py, node, scope, []);
    case 'decorated_definition': {
      const decorators = node.children
        .filter((c) => c.type === 'decorator')
        .map((d) => {
          if (d.children[0]) expr(py, d.children[0], scope);
          return nameOf(py, d.children[0]).replace(/\(.*$/s, '');
        });
      const definition = childOf(node, 'definition');
      if (definition?.type === 'class_definition') defineClass(py, definition, scope, decorators);
      else if (definition) define(py, definition, scope, 'function', decorators);
      return;
    }
    case 'return_statement':
      py.frames.at(-1)?.push(node.children[0] ? expr(py, node.children[0], scope) : empty);
      return;
    case 'global_statement':
    case 'nonlocal_statement':
      for (const c of node.children)
        scope.globals.add(`${node.type === 'global_statement' ? '' : '^'}${nameOf(py, c)}`);
      return;
    case 'for_statement': {
      const right = childOf(node, 'right');
      const left = childOf(node, 'left');
      const items = right ? expr(py, right, scope) : empty;
      if (right) usesEnvironment(py.flow, right, items);
      if (left) bind(py, left, elementFor(items), scope);
      for (const c of node.children) if (c.field === 'body' || c.field === 'alternative') statement(py, c, scope);
      return;
    }
    case 'with_item': {
      const value = node.children[0];
      if (value?.type === 'as_pattern') {
        const v = value.children[0] ? expr(py, value.children[0], scope) : empty;
        const target = childOf(value, 'alias')?.children[0];
        if (target) bind(py, target, v, scope);
      } else if (value) expr(py, value, scope);
      return;
    }
    case 'print_statement':
      for (const c of node.children) usesEnvironment(py.flow, node, expr(py, c, scope));
      return;
    case 'exec_statement': {
      const code = childOf(node, 'code');
      libraryCall(pyCall(py, node, 'builtins.exec', null, [code ? expr(py, code, scope) : empty], new Map(), scope));
      return;
    }
    case 'expression_statement':
      for (const c of node.children) expr(py, c, scope);
      return;
    default:
      if (compound.test(node.type) || node.type === 'with_clause')
        for (const c of node.children) {
          if (compound.test(c.type) || c.type === 'with_clause' || c.type === 'with_item') statement(py, c, scope);
          else if (c.type === 'as_pattern' && node.type === 'except_clause') continue;
          else expr(py, c, scope);
        }
      else expr(py, node, scope);
  }
}

const elementFor = (value: Value): Value => {
  let out: Value = labelsOf(value).length > 0 ? { taint: labelsOf(value) } : empty;
  for (const obj of value.objs ?? []) {
    for (const item of obj.items ?? []) out = join(out, item);
    out = join(out, obj.rest);
  }
  return out;
};

function block(py: State, nodes: readonly ShellNode[], scope: Scope): void {
  for (const node of nodes) statement(py, node, scope);
}

/** Code held in a constant string, parsed and run in a scope, reported at the line of the call. */
function run(py: State, code: string, scope: Scope, expression: boolean, node: ShellNode): Value {
  if (py.flow.depth >= 3) return empty;
  const saved = { source: py.flow.source, at: py.flow.at, depth: py.flow.depth };
  const at = py.flow.at ?? node.line;
  const tree = parsedOnce(py, code);
  py.flow.source = code;
  py.flow.at = at;
  py.flow.depth++;
  try {
    const statements = tree.children;
    const last = statements.at(-1);
    block(py, expression ? statements.slice(0, -1) : statements, scope);
    return expression && last
      ? expr(py, last.type === 'expression_statement' ? (last.children[0] ?? last) : last, scope)
      : empty;
  } finally {
    Object.assign(py.flow, saved);
  }
}

/** Evaluates a Python script until nothing changes (at most three passes), recording what it does in `flow`. */
export function analysePython(flow: Flow, tree: ShellNode, parse: ShellParser, nested: Nested): void {
  const module = new Scope(null, 'module');
  module.vars.set('__file__', text(`$__dir__/${basename(flow.path)}`));
  module.vars.set('__name__', text('__main__'));
  const py: State = {
    flow,
    parse,
    nested,
    module,
    pass: 0,
    star: [],
    sites: new Map(),
    ...bookkeeping(),
    invoke: (fn, args, kwargs) => invoke(py, fn, args, kwargs),
    run: (code, scope, expression, node) => run(py, code, scope, expression, node),
    expr: (node, scope) => expr(py, node, scope),
    lambda: (node, scope) => {
      const fn: Callable = { node, scope, kind: 'function', ...codeOf(py.flow) };
      if (!py.defined.has(node)) py.defined.set(node, fn);
      return fn;
    },
  };
  settle(
    py,
    () => {
      py.star.length = 0;
      block(py, tree.children, module);
    },
    // Each function once on its own: a framework, a decorator or a callback may call it.
    (fn, cls) => {
      const self = cls && !fn.decorators?.includes('staticmethod') ? { objs: [instanceOf(py, cls)] } : undefined;
      const bound = self ? { ...fn, self } : fn;
      invoke(py, bound, [], new Map(), true);
      // Again with the arguments of the calls not followed, for where they go.
      const widened = py.widened.args(fn.node);
      if (widened.length > 0 || py.widened.kwargs(fn.node).size > 0)
        invoke(py, bound, widened, py.widened.kwargs(fn.node), true);
    },
  );
}
