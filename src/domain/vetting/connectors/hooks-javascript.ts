// A JavaScript or TypeScript script as the hooks connector reads it: its statements evaluated over
// values (hooks-flow.ts), so a call is judged by what flows into it, not by how the script spells it.
// `require` and `import` bind library names (destructured, aliased, namespaced), functions, methods and
// classes of the script are followed into with the values they are given (and each is read once on
// its own, as a framework or an event may call it), and the script is evaluated again until nothing
// changes. Local modules it imports are files it runs.
import {
  assign,
  codeOf,
  elementOf,
  empty,
  inCode,
  join,
  joinAll,
  Obj,
  ref,
  Scope,
  type Callable,
  type Flow,
  type Value,
} from './hooks-flow.ts';
import { bind, imports, localModule, persistentScope, setName } from './hooks-javascript-bind.ts';
import { awaited, type Js } from './hooks-javascript-context.ts';
import { expr, property } from './hooks-javascript-expr.ts';
import type { Nested } from './hooks-programs.ts';
import { bookkeeping, follow, instanceOf, parsedOnce, settle, type Bookkeeping } from './hooks-script-common.ts';
import { childOf, type ShellNode, type ShellParser } from './hooks-syntax.ts';

type State = Js & Bookkeeping & { parse: ShellParser };

const nameOf = (js: State, node: ShellNode | undefined): string =>
  node === undefined ? '' : js.flow.source.slice(node.start, node.end);

/** A function, method, arrow or class of the script: one per node where its scope outlives a pass. */
function callable(js: State, node: ShellNode, scope: Scope): Callable {
  const persistent = persistentScope(scope);
  let fn = persistent ? js.persistent.get(node) : undefined;
  if (fn === undefined) {
    const isClass =
      node.type === 'class' || node.type === 'class_declaration' || node.type === 'abstract_class_declaration';
    const text = js.flow.source.slice(node.start, Math.min(node.end, node.start + 16));
    const decorators = node.type === 'method_definition' && /^(?:static\s+)?get\s/.test(text) ? ['get'] : [];
    fn = {
      node,
      scope: isClass ? new Scope(scope, 'class') : scope,
      kind: isClass ? 'class' : 'function',
      ...codeOf(js.flow),
      ...(decorators.length ? { decorators } : {}),
    };
    if (persistent) js.persistent.set(node, fn);
    if (isClass) {
      js.classes.set(fn.scope as Scope, fn);
      defineClass(js, fn);
    }
  }
  if (fn.kind === 'function' && !js.defined.has(node)) js.defined.set(node, fn);
  return fn;
}

function defineClass(js: State, cls: Callable): void {
  const own = cls.scope as Scope;
  const heritage = cls.node.children.find((c) => c.type === 'class_heritage');
  const base = heritage
    ? expr(js, heritage.children[0]?.children[0] ?? heritage.children[0] ?? heritage, own.parent!)
    : empty;
  own.vars.set('extends', base);
  for (const member of childOf(cls.node, 'body')?.children ?? []) {
    if (member.type === 'method_definition') {
      const name = nameOf(js, childOf(member, 'name'));
      own.vars.set(name, join(own.vars.get(name) ?? empty, { fns: [callable(js, member, own)] }));
    }
  }
}

function instantiate(js: State, cls: Callable, args: readonly Value[], node: ShellNode): Value {
  const obj = instanceOf(js, cls);
  const self: Value = { objs: [obj] };
  // Fields first (`#token = process.env.X`), then the constructor with `this` the instance.
  for (let c: Callable | null = cls, depth = 0; c !== null && depth < 8; depth++) {
    const scope = new Scope(c.scope as Scope, 'function');
    scope.vars.set('this', self);
    for (const member of childOf(c.node, 'body')?.children ?? []) {
      if (member.type !== 'field_definition' && member.type !== 'public_field_definition') continue;
      const value = childOf(member, 'value');
      const name = nameOf(js, childOf(member, 'property') ?? childOf(member, 'name'));
      if (value) assign(js.flow, obj.fields, name, expr(js, value, scope));
    }
    const base: Callable | undefined = ((c.scope as Scope).vars.get('extends')?.fns ?? [])[0];
    c = base?.kind === 'class' ? base : null;
  }
  const ctor = property(js, node, self, 'constructor');
  for (const f of ctor.fns ?? []) if (f.kind === 'function') invoke(js, f, args, node);
  return self;
}

function bindParameters(js: State, fn: Callable, scope: Scope, args: readonly Value[]): void {
  const single = childOf(fn.node, 'parameter');
  const params = single ? [single] : (childOf(fn.node, 'parameters')?.children ?? []);
  params.forEach((p, i) => {
    const pattern =
      p.type === 'required_parameter' || p.type === 'optional_parameter' ? (childOf(p, 'pattern') ?? p) : p;
    const fallback =
      p.type === 'required_parameter' || p.type === 'optional_parameter' ? childOf(p, 'value') : undefined;
    if (pattern.type === 'rest_pattern') {
      const obj = new Obj('list');
      obj.items = args.slice(i);
      bind(js, pattern.children[0] ?? pattern, { objs: [obj] }, scope);
      return;
    }
    const value = args[i] ?? (fallback ? expr(js, fallback, fn.scope as Scope) : empty);
    bind(js, pattern, value, scope, true);
  });
}

/** Calls a function or class of the script, reading it in the text it was defined in. */
function invoke(js: State, fn: Callable, args: readonly Value[], node: ShellNode, force = false): Value {
  return inCode(js.flow, fn, () => {
    if (fn.kind === 'resolve') {
      if (fn.target) assign(js.flow, fn.target.fields, '@value', awaited(args[0] ?? empty));
      return empty;
    }
    if (fn.kind === 'class') return instantiate(js, fn, args, node);
    return follow(js, fn, {
      given: args,
      force,
      widen: () => js.widened.add(fn.node, args),
      enter: (scope) => {
        // A function called on its own gets the global object as `this` (outside strict mode).
        if (fn.node.type !== 'arrow_function') scope.vars.set('this', fn.self ?? ref('global'));
        bindParameters(js, fn, scope, args);
      },
      body: (scope) => {
        const body = childOf(fn.node, 'body');
        if (body && body.type !== 'statement_block') return expr(js, body, scope);
        if (!body) return empty;
        block(js, body.children, scope);
        return joinAll(js.frames.at(-1)!);
      },
    });
  });
}

function statement(js: State, node: ShellNode, scope: Scope): void {
  switch (node.type) {
    case 'import_statement':
      return imports(js, node, scope);
    case 'function_declaration':
    case 'generator_function_declaration':
    case 'class_declaration':
    case 'abstract_class_declaration': {
      const name = childOf(node, 'name');
      if (name) setName(js, scope, nameOf(js, name), { fns: [callable(js, node, scope)] });
      return;
    }
    case 'variable_declarator': {
      const name = childOf(node, 'name');
      const value = childOf(node, 'value');
      if (name) bind(js, name, value ? expr(js, value, scope) : empty, scope, !persistentScope(scope));
      return;
    }
    case 'return_statement':
      js.frames.at(-1)?.push(node.children[0] ? expr(js, node.children[0], scope) : empty);
      return;
    case 'for_in_statement': {
      const right = childOf(node, 'right');
      const left = childOf(node, 'left');
      const items = right ? expr(js, right, scope) : empty;
      if (left) bind(js, left, elementOf(awaited(items)), scope);
      const body = childOf(node, 'body');
      if (body) statement(js, body, scope);
      return;
    }
    case 'catch_clause': {
      const body = childOf(node, 'body');
      if (body) statement(js, body, scope);
      return;
    }
    case 'export_statement':
      if (childOf(node, 'source')) localModule(js, expr(js, childOf(node, 'source')!, scope).str ?? '');
      for (const c of node.children)
        if (c.field === 'value') expr(js, c, scope);
        else if (c.field === 'declaration') statement(js, c, scope);
      return;
    case 'expression_statement':
      for (const c of node.children) expr(js, c, scope);
      return;
    default:
      if (
        /_statement$|_declaration$|^(?:program|statement_block|else_clause|finally_clause|switch_body|switch_case|switch_default)$/.test(
          node.type,
        )
      )
        block(js, node.children, scope);
      else expr(js, node, scope);
  }
}

function block(js: State, nodes: readonly ShellNode[], scope: Scope): void {
  // Function declarations are hoisted: a call above the declaration reaches it.
  for (const node of nodes)
    if (node.type === 'function_declaration' || node.type === 'class_declaration') statement(js, node, scope);
  for (const node of nodes)
    if (node.type !== 'function_declaration' && node.type !== 'class_declaration') statement(js, node, scope);
}

/** Code held in a constant string (`eval`, `new Function`), parsed and run in the module's scope. */
function run(js: State, code: string, node: ShellNode): Value {
  if (js.flow.depth >= 3) return empty;
  const saved = { source: js.flow.source, at: js.flow.at, depth: js.flow.depth };
  const tree = parsedOnce(js, code);
  Object.assign(js.flow, { source: code, at: js.flow.at ?? node.line, depth: js.flow.depth + 1 });
  try {
    const last = tree.children.at(-1);
    block(js, tree.children.slice(0, -1), js.module);
    if (last?.type === 'expression_statement' && last.children[0]) return expr(js, last.children[0], js.module);
    if (last) statement(js, last, js.module);
    return empty;
  } finally {
    Object.assign(js.flow, saved);
  }
}

/** Evaluates a JavaScript or TypeScript script until nothing changes (at most three passes). */
export function analyseJavaScript(flow: Flow, tree: ShellNode, parse: ShellParser, nested: Nested): void {
  const module = new Scope(null, 'module');
  const js: State = {
    flow,
    nested,
    module,
    parse,
    pass: 0,
    sites: new Map(),
    ...bookkeeping(),
    invoke: (fn, args, node) => invoke(js, fn, args, node),
    instantiate: (cls, args, node) => instantiate(js, cls, args, node),
    run: (code, node) => run(js, code, node),
    callable: (node, scope) => callable(js, node, scope),
    bind: (target, value, scope) => bind(js, target, value, scope),
    expr: (node, scope) => expr(js, node, scope),
  };
  settle(
    js,
    () => block(js, tree.children, module),
    // Each function once on its own: an event, a framework or an export may call it.
    (fn, cls) => {
      const bound = cls ? { ...fn, self: { objs: [instanceOf(js, cls)] } } : fn;
      invoke(js, bound, [], fn.node, true);
      // Again with the arguments of the calls not followed, for where they go.
      if (js.widened.args(fn.node).length > 0) invoke(js, bound, js.widened.args(fn.node), fn.node, true);
    },
  );
}
