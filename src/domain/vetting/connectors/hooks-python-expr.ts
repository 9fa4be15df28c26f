// Python expressions as the hooks connector evaluates them (hooks-python.ts runs the statements): names
// through the scopes, builtins and star imports; strings with their escapes, f-strings, `%` and
// `.format`; attributes and subscripts of library names, objects and data; calls to library functions
// (hooks-python-api.ts), to the script's own functions and classes, and to methods of strings, lists,
// dicts and the objects library calls return.
import { reverse } from './hooks-decode.ts';
import { usesEnvironment } from './hooks-effects.ts';
import * as flow from './hooks-flow.ts';
import { metadataKey, withoutInput } from './hooks-sensitive.ts';
import { LibraryCall, numberLiteral } from './hooks-script-common.ts';
import { bind, comprehension, containerMethod } from './hooks-python-bind.ts';
import { arg, operatorOf, site, type Py } from './hooks-python-context.ts';
import {
  canonical,
  dirnameOf,
  libraryAttribute,
  libraryCall,
  librarySubscript,
  type PyCall,
} from './hooks-python-api.ts';
import { lookup, pythonBuiltin } from './hooks-python-names.ts';
import { isLibraryObject, objectMethod } from './hooks-python-objects.ts';
import { binary, stringMethod, stringValue } from './hooks-python-text.ts';
import { childOf, type ShellNode } from './hooks-syntax.ts';

/** An attribute of a value: a library name, an object's field or method, data of data. */
export function attribute(py: Py, base: flow.Value, name: string): flow.Value {
  let out = flow.empty;
  // A path's parent is a path: `Path(__file__).parent / "x.sh"`.
  if (name === 'parent' && base.refs?.includes('pathlib.Path()'))
    return { ...dirnameOf(base), refs: ['pathlib.Path()'] };
  for (const r of base.refs ?? []) out = flow.join(out, libraryAttribute(r, name));
  for (const obj of base.objs ?? []) {
    const field =
      obj.fields.get(name) ?? (obj.kind === 'file' && name === 'name' ? obj.fields.get('@path') : undefined);
    if (field !== undefined) out = flow.join(out, field);
    else if (obj.cls !== null) out = flow.join(out, classAttribute(py, obj, name, base));
  }
  // Attributes of data are data: `event.prompt`, `response.text`; hook metadata is not the user's.
  const labels = metadataKey(name) ? withoutInput(base.taint) : base.taint;
  return flow.withTaint(out, labels);
}

/** A method or attribute of the script's class, bound to the instance. */
function classAttribute(py: Py, obj: flow.Obj, name: string, self: flow.Value): flow.Value {
  for (let cls: flow.Callable | null = obj.cls, depth = 0; cls !== null && depth < 8; depth++) {
    const scope = cls.scope as flow.Scope;
    const member = scope.vars.get(name);
    if (member !== undefined) {
      const fns = (member.fns ?? []).map((fn) =>
        fn.decorators?.includes('staticmethod') ? fn : { ...fn, self: { objs: [obj] } },
      );
      const properties = fns.filter((fn) => fn.decorators?.includes('property'));
      if (properties.length > 0) return flow.joinAll(properties.map((fn) => py.invoke(fn, [], new Map(), fn.node)));
      return fns.length > 0 ? { ...member, fns } : member;
    }
    const base = (scope.vars.get('__bases__')?.fns ?? [])[0];
    cls = base?.kind === 'class' ? base : null;
  }
  return flow.dataOf(self);
}

const sliceOf = (py: Py, node: ShellNode): readonly (number | null)[] =>
  py.flow.source
    .slice(node.start, node.end)
    .split(':')
    .map((part) => (/^\s*-?\d+\s*$/.test(part) ? Number(part) : null));

export function subscript(
  py: Py,
  node: ShellNode,
  base: flow.Value,
  keyNode: ShellNode,
  scope: flow.Scope,
): flow.Value {
  if (keyNode.type === 'slice') {
    for (const child of keyNode.children) expr(py, child, scope);
    const [start, stop, step] = sliceOf(py, keyNode);
    if (base.str !== undefined && step === -1 && start === null && stop === null)
      return flow.text(reverse(base.str), [...(base.taint ?? []), 'decoded:[::-1]']);
    if (base.str !== undefined && (step ?? 1) === 1)
      return flow.text(base.str.slice(start ?? 0, stop ?? undefined), base.taint);
    // A slice of a list holds its elements.
    return base.objs ? { objs: base.objs, ...(base.taint ? { taint: base.taint } : {}) } : flow.dataOf(base);
  }
  const key = expr(py, keyNode, scope);
  let out = flow.empty;
  let known = false;
  for (const r of base.refs ?? []) {
    const value = librarySubscript(pyCall(py, node, r, null, [], new Map()), r, key);
    if (value !== undefined) {
      out = flow.join(out, value);
      known = true;
    }
  }
  for (const obj of base.objs ?? []) {
    known = true;
    if (key.str !== undefined) out = flow.join(flow.join(out, obj.fields.get(key.str) ?? flow.empty), obj.rest);
    else if (key.num !== undefined && obj.items !== null) out = flow.join(out, obj.items.at(key.num) ?? obj.rest);
    else out = flow.join(out, flow.elementOf({ objs: [obj] }));
  }
  if (base.str !== undefined && key.num !== undefined) out = flow.join(out, flow.text(base.str.at(key.num) ?? ''));
  if (base.refs?.includes('os.environ')) return out;
  const labels = key.str !== undefined && metadataKey(key.str) ? withoutInput(base.taint) : base.taint;
  return known && base.taint === undefined ? out : flow.withTaint(out, labels);
}

/** One call as the library model sees it; methods, not closures, so a call costs no allocations beyond itself. */
class Call extends LibraryCall<Py> implements PyCall {
  readonly kwargs: ReadonlyMap<string, flow.Value>;
  private readonly scope: flow.Scope;
  constructor(
    py: Py,
    node: ShellNode,
    name: string,
    receiver: flow.Value | null,
    args: readonly flow.Value[],
    kwargs: ReadonlyMap<string, flow.Value>,
    scope: flow.Scope,
  ) {
    super(py, node, name, receiver, args);
    this.kwargs = kwargs;
    this.scope = scope;
  }
  invoke(callee: flow.Value, values: readonly flow.Value[]): flow.Value {
    return flow.joinAll((callee.fns ?? []).map((fn) => this.state.invoke(fn, values, new Map(), this.node)));
  }
  attribute(base: flow.Value, attr: string): flow.Value {
    return attribute(this.state, base, attr);
  }
  lookup(key: string): flow.Value {
    return lookup(this.state, this.state.module, key);
  }
  evaluate(code: string, expression: boolean): flow.Value {
    return this.state.run(code, this.scope, expression, this.node);
  }
}

export const pyCall = (
  py: Py,
  node: ShellNode,
  name: string,
  receiver: flow.Value | null,
  args: readonly flow.Value[],
  kwargs: ReadonlyMap<string, flow.Value>,
  scope?: flow.Scope,
): PyCall => new Call(py, node, name, receiver, args, kwargs, scope ?? py.module);

/** The arguments of a call: positional (a `*list` spread when its elements are known), keywords, `**dict`. */
function argumentsOf(py: Py, node: ShellNode | undefined, scope: flow.Scope): [flow.Value[], Map<string, flow.Value>] {
  const args: flow.Value[] = [];
  const kwargs = new Map<string, flow.Value>();
  for (const child of node?.children ?? []) {
    if (child.type === 'keyword_argument') {
      const name = childOf(child, 'name');
      const value = childOf(child, 'value');
      if (name && value) kwargs.set(py.flow.source.slice(name.start, name.end), expr(py, value, scope));
    } else if (child.type === 'list_splat' || child.type === 'dictionary_splat') {
      const value = expr(py, child.children[0] ?? child, scope);
      const obj = (value.objs ?? [])[0];
      if (child.type === 'list_splat') args.push(...(obj?.items ?? [flow.elementOf(value)]));
      else {
        for (const [k, v] of obj?.fields ?? []) kwargs.set(k, v);
        // What `**mapping` holds beyond the keys the script spells (`dict(**os.environ)`).
        kwargs.set('**', flow.join(kwargs.get('**') ?? flow.empty, obj === undefined ? value : flow.dataOf(value)));
      }
    } else args.push(expr(py, child, scope));
  }
  return [args, kwargs];
}

function call(py: Py, node: ShellNode, scope: flow.Scope): flow.Value {
  const fn = childOf(node, 'function');
  if (fn === undefined) return flow.empty;
  const receiver = fn.type === 'attribute' ? expr(py, childOf(fn, 'object') ?? fn, scope) : null;
  const method = fn.type === 'attribute' ? py.flow.source.slice(childOf(fn, 'attribute')?.start ?? 0, fn.end) : null;
  const callee = receiver !== null && method !== null ? attribute(py, receiver, method) : expr(py, fn, scope);
  const argsNode = childOf(node, 'arguments');
  const [args, kwargs] = argumentsOf(
    py,
    argsNode?.type === 'generator_expression' ? { ...node, children: [argsNode] } : argsNode,
    scope,
  );
  let out = flow.empty;
  let handled = false;
  for (const name of callee.refs ?? []) {
    const c = pyCall(py, node, canonical(name), receiver, args, kwargs, scope);
    const value = libraryCall(c) ?? pythonBuiltin(c);
    if (value !== undefined) {
      out = flow.join(out, value);
      handled = true;
    }
  }
  for (const obj of receiver?.objs ?? []) {
    if (method === null) continue;
    const value = isLibraryObject(obj)
      ? objectMethod(pyCall(py, node, method, receiver, args, kwargs, scope), obj, method)
      : containerMethod(py, obj, method, args);
    if (value !== undefined) {
      out = flow.join(out, value);
      handled = true;
    }
  }
  for (const f of callee.fns ?? []) {
    out = flow.join(out, py.invoke(f, args, kwargs, node));
    handled = true;
  }
  // An instance of the script's class called as a function runs its `__call__`.
  for (const obj of callee.objs ?? []) {
    if (obj.cls === null) continue;
    for (const f of attribute(py, { objs: [obj] }, '__call__').fns ?? []) {
      out = flow.join(out, py.invoke(f, args, kwargs, node));
      handled = true;
    }
  }
  if (
    !handled &&
    receiver !== null &&
    method !== null &&
    (receiver.str !== undefined || receiver.template !== undefined)
  ) {
    const value = stringMethod(receiver, method, args, kwargs);
    if (value !== undefined) return value;
  }
  if (handled) return out;
  // `event.get('session_id')`: hook metadata, not what the user wrote.
  if (
    method !== null &&
    /^(?:get|pop|setdefault)$/.test(method) &&
    args[0]?.str !== undefined &&
    metadataKey(args[0].str)
  )
    return { taint: [...(withoutInput(receiver?.taint) ?? []), ...args.slice(1).flatMap((a) => flow.labelsOf(a))] };
  // A function the model does not know: what it returns is made of what it was given.
  for (const value of [...args, ...kwargs.values()]) usesEnvironment(py.flow, node, value);
  return {
    taint: [
      ...new Set([
        ...flow.labelsOf(flow.dataOf(callee)),
        ...args.flatMap((a) => flow.labelsOf(a)),
        ...[...kwargs.values()].flatMap((a) => flow.labelsOf(a)),
      ]),
    ],
  };
}

export function expr(py: Py, node: ShellNode, scope: flow.Scope): flow.Value {
  py.flow.budget--;
  const source = py.flow.source;
  switch (node.type) {
    case 'identifier':
      return lookup(py, scope, source.slice(node.start, node.end));
    case 'string':
      return stringValue(py, node, scope);
    case 'concatenated_string':
      return flow.concat(node.children.map((c) => expr(py, c, scope)));
    case 'integer':
      return numberLiteral(source, node, Number.isSafeInteger);
    case 'true':
      return { num: 1 };
    case 'false':
      return { num: 0 };
    case 'attribute':
      return attribute(
        py,
        expr(py, childOf(node, 'object') ?? node, scope),
        source.slice(childOf(node, 'attribute')?.start ?? 0, node.end),
      );
    case 'subscript': {
      const key = childOf(node, 'subscript');
      return key ? subscript(py, node, expr(py, childOf(node, 'value') ?? node, scope), key, scope) : flow.empty;
    }
    case 'call':
      return call(py, node, scope);
    case 'binary_operator':
      return binary(
        py,
        node,
        operatorOf(py, node),
        expr(py, childOf(node, 'left') ?? node, scope),
        expr(py, childOf(node, 'right') ?? node, scope),
      );
    case 'boolean_operator':
    case 'conditional_expression':
      return flow.joinAll(node.children.filter((c) => c.field !== 'operator').map((c) => expr(py, c, scope)));
    case 'not_operator':
    case 'comparison_operator':
      for (const c of node.children) if (c.field !== 'operators') expr(py, c, scope);
      return flow.empty;
    case 'unary_operator': {
      const value = expr(py, childOf(node, 'argument') ?? node, scope);
      return value.num !== undefined && operatorOf(py, node) === '-' ? { num: -value.num } : flow.dataOf(value);
    }
    case 'parenthesized_expression':
    case 'await':
    case 'list_splat':
    case 'dictionary_splat':
      return node.children[0] ? expr(py, node.children[0], scope) : flow.empty;
    case 'list_comprehension':
    case 'set_comprehension':
    case 'generator_expression':
    case 'dictionary_comprehension':
      return comprehension(py, node, scope);
    case 'lambda':
      return { fns: [py.lambda(node, scope)] };
    case 'keyword_argument':
      return expr(py, childOf(node, 'value') ?? node, scope);
    case 'yield':
      return node.children[0] ? expr(py, node.children[0], scope) : flow.empty;
    default:
      return literal(py, node, scope);
  }
}

/** Tuples, lists, sets and dicts the script writes, assignments, and what else an expression holds. */
function literal(py: Py, node: ShellNode, scope: flow.Scope): flow.Value {
  switch (node.type) {
    case 'assignment':
    case 'named_expression': {
      const right = childOf(node, 'right') ?? childOf(node, 'value');
      const value = right ? expr(py, right, scope) : flow.empty;
      const left = childOf(node, 'left') ?? childOf(node, 'name');
      if (left) bind(py, left, value, scope);
      return value;
    }
    case 'augmented_assignment': {
      const left = childOf(node, 'left');
      const value = binary(
        py,
        node,
        operatorOf(py, node).replace('=', ''),
        left ? expr(py, left, scope) : flow.empty,
        expr(py, childOf(node, 'right') ?? node, scope),
      );
      if (left) bind(py, left, value, scope);
      return value;
    }
    case 'tuple':
    case 'list':
    case 'set':
    case 'expression_list': {
      const obj = site(py, node, 'list');
      flow.setItems(
        py.flow,
        obj,
        node.children.map((c) => expr(py, c, scope)),
      );
      return { objs: [obj] };
    }
    case 'dictionary': {
      const obj = site(py, node, 'dict');
      let refs: flow.Value = flow.empty;
      for (const child of node.children) {
        if (child.type === 'pair') {
          const key = expr(py, childOf(child, 'key') ?? child, scope);
          const value = expr(py, childOf(child, 'value') ?? child, scope);
          if (key.str !== undefined) flow.assign(py.flow, obj.fields, key.str, value);
          else flow.addRest(py.flow, obj, value);
        } else if (child.type === 'dictionary_splat') {
          const spread = expr(py, child.children[0] ?? child, scope);
          for (const o of spread.objs ?? []) for (const [k, v] of o.fields) flow.assign(py.flow, obj.fields, k, v);
          flow.addRest(py.flow, obj, flow.dataOf(spread));
          if (spread.refs?.includes('os.environ')) refs = spread;
        }
      }
      return refs === flow.empty ? { objs: [obj] } : { objs: [obj], refs: refs.refs!, taint: flow.labelsOf(refs) };
    }
    default:
      return flow.joinAll(
        node.children.filter((c) => c.field !== 'operator').map((c) => flow.dataOf(expr(py, c, scope))),
      );
  }
}

export { arg };
