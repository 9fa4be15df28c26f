// JavaScript and TypeScript expressions as the hooks connector evaluates them (hooks-javascript.ts runs
// the statements): names through the scopes and globals, strings and template literals with their
// escapes, members and subscripts of library names, objects and data, calls and `new` of library
// functions (hooks-javascript-api.ts), builtins (hooks-javascript-names.ts) and the script's own
// functions and classes; callbacks given to what the model does not know are called with its data.
import { readEnv, usesEnvironment } from './hooks-effects.ts';
import {
  dataOf,
  elementOf,
  empty,
  join,
  joinAll,
  labelsOf,
  ref,
  setItems,
  text,
  withTaint,
  type Callable,
  type Obj,
  type Scope,
  type Value,
} from './hooks-flow.ts';
import { metadataKey, withoutInput } from './hooks-sensitive.ts';
import { canonical, libraryCall, libraryProperty, objectMethod, pipe, type JsCall } from './hooks-javascript-api.ts';
import { awaited, itemsOf, site, type Js } from './hooks-javascript-context.ts';
import { builtinCall, newUrl, valueMethod } from './hooks-javascript-names.ts';
import { binary, objectLiteral, operatorOf, promise, stringValue } from './hooks-javascript-values.ts';
import { LibraryCall, numberLiteral } from './hooks-script-common.ts';
import { childOf, type ShellNode } from './hooks-syntax.ts';

const globals = new Set(
  'require process module fetch Request eval Function XMLHttpRequest WebSocket navigator atob btoa Buffer String JSON Object Reflect Promise setTimeout setInterval Deno Bun decodeURIComponent decodeURI unescape Array console URL structuredClone'.split(
    ' ',
  ),
);

export function lookup(js: Js, scope: Scope, name: string): Value {
  const value = scope.lookup(name);
  if (value !== undefined) return value;
  if (name === 'globalThis' || name === 'global' || name === 'window' || name === 'self') return ref('global');
  if (name === '__dirname') return text('$__dir__');
  if (name === '__filename') return text(`$__dir__/${js.flow.path.replace(/^.*\//, '')}`);
  return globals.has(name) ? ref(name) : empty;
}

/** A property of a value: a library name (an environment variable), an object's field or method, data of data. */
export function property(js: Js, node: ShellNode, base: Value, name: string): Value {
  let out = empty;
  for (const r of base.refs ?? [])
    out = join(
      out,
      libraryProperty(js.flow, node, r, name, (n) => readEnv(js.flow, node, n)),
    );
  // Any function's constructor is Function, any object's constructor's constructor too.
  if (name === 'constructor' && base.refs === undefined && (base.fns || base.objs || base.str !== undefined))
    out = join(out, ref(base.fns ? 'Function' : 'Object'));
  if (name === 'url' && base.refs?.includes('import.meta'))
    out = text(`file://$__dir__/${js.flow.path.replace(/^.*\//, '')}`);
  if ((name === 'dirname' || name === 'filename') && base.refs?.includes('import.meta'))
    out = text(name === 'dirname' ? '$__dir__' : `$__dir__/${js.flow.path.replace(/^.*\//, '')}`);
  for (const obj of base.objs ?? []) {
    const field = obj.fields.get(name);
    if (field !== undefined) out = join(out, bindThis(field, base));
    else if (obj.cls !== null) out = join(out, member(js, obj, name, base));
    else if (obj.kind === 'promise' && name === 'then') out = join(out, ref('promise.then'));
  }
  if ((name === 'pathname' || name === 'href') && base.str !== undefined)
    out = join(out, text(base.str.replace(/^file:\/\//, '')));
  return withTaint(out, carried(base, name));
}

/**
 * The labels a member of a value carries: those of the value (data of data), but not the hook's input for
 * a metadata field, nor the whole environment for one variable of it (`process.env.X` is only X).
 */
const carried = (base: Value, key: string | undefined): readonly string[] | undefined => {
  if (base.refs?.includes('process.env')) return undefined;
  return key !== undefined && metadataKey(key) ? withoutInput(base.taint) : base.taint;
};

/** A function read from an object is called with the object as `this`. */
const bindThis = (value: Value, self: Value): Value =>
  value.fns
    ? { ...value, fns: value.fns.map((fn) => (fn.kind === 'function' && fn.self === undefined ? { ...fn, self } : fn)) }
    : value;

/** A member of the script's class: a method bound to the instance, a getter called. */
function member(js: Js, obj: Obj, name: string, self: Value): Value {
  for (let cls: Callable | null = obj.cls, depth = 0; cls !== null && depth < 8; depth++) {
    const scope = cls.scope as Scope;
    const value = scope.vars.get(name);
    if (value !== undefined) {
      const getters = (value.fns ?? []).filter((fn) => fn.decorators?.includes('get'));
      if (getters.length > 0) return joinAll(getters.map((fn) => js.invoke({ ...fn, self }, [], fn.node)));
      return bindThis(value, self);
    }
    const base = (scope.vars.get('extends')?.fns ?? [])[0];
    cls = base?.kind === 'class' ? base : null;
  }
  return dataOf(self);
}

export function subscript(js: Js, node: ShellNode, base: Value, key: Value): Value {
  // `f['constructor']`, `globalThis[name]` with the name known: the property itself.
  if (key.str !== undefined && (base.objs ?? []).length === 0 && base.str === undefined)
    return property(js, node, base, key.str);
  let out = empty;
  for (const r of base.refs ?? []) {
    if (key.str !== undefined)
      out = join(
        out,
        libraryProperty(js.flow, node, r, key.str, (n) => readEnv(js.flow, node, n)),
      );
    // `for (k in process.env) … process.env[k]`: every variable, the whole environment.
    else if (r === 'process.env')
      out = join(out, key.taint?.includes('env:*') ? { taint: ['env:*'] } : readEnv(js.flow, node, null));
  }
  for (const obj of base.objs ?? []) {
    if (key.str !== undefined)
      out = join(out, bindThis(obj.fields.get(key.str) ?? (obj.cls ? member(js, obj, key.str, base) : obj.rest), base));
    else if (key.num !== undefined && obj.items !== null) out = join(out, obj.items.at(key.num) ?? obj.rest);
    else out = join(out, elementOf({ objs: [obj] }));
  }
  if (base.str !== undefined && key.num !== undefined) out = join(out, text(base.str.at(key.num) ?? ''));
  return withTaint(out, carried(base, key.str));
}

/** One call as the library model sees it: methods, not closures. */
class Call extends LibraryCall<Js> implements JsCall {
  callback(callee: Value, args: readonly Value[]): Value {
    return joinAll((callee.fns ?? []).map((fn) => this.state.invoke(fn, args, this.node)));
  }
  attribute(base: Value, name: string): Value {
    return property(this.state, this.node, base, name);
  }
  evaluate(code: string): Value {
    return this.state.run(code, this.node);
  }
}

function argumentsOf(js: Js, node: ShellNode | undefined, scope: Scope): Value[] {
  if (node === undefined) return [];
  if (node.type === 'template_string') return [stringValue(js, node, scope)];
  const args: Value[] = [];
  for (const child of node.children) {
    if (child.type === 'spread_element') {
      const value = child.children[0] ? expr(js, child.children[0], scope) : empty;
      args.push(...(itemsOf(value) ?? [elementOf(value)]));
    } else args.push(expr(js, child, scope));
  }
  return args;
}

type Taken = { out: Value; handled: boolean };
/** Collects what the ways of calling a callee return (made once per call, not per value). */
const takeInto =
  (result: Taken) =>
  (value: Value | undefined): void => {
    if (value === undefined) return;
    result.out = join(result.out, value);
    result.handled = true;
  };

/** A call (or `new`): library functions, builtins, the script's functions, methods of objects and values. */
export function call(js: Js, node: ShellNode, scope: Scope, construct: boolean): Value {
  const fn = childOf(node, construct ? 'constructor' : 'function');
  if (fn === undefined) return empty;
  const isMember = fn.type === 'member_expression' || fn.type === 'subscript_expression';
  const receiver = isMember ? expr(js, childOf(fn, 'object') ?? fn, scope) : null;
  const method =
    fn.type === 'member_expression'
      ? js.flow.source.slice(childOf(fn, 'property')?.start ?? 0, childOf(fn, 'property')?.end ?? 0)
      : fn.type === 'subscript_expression'
        ? expr(js, childOf(fn, 'index') ?? fn, scope).str
        : undefined;
  const callee =
    fn.type === 'import'
      ? ref('import')
      : receiver !== null
        ? method === undefined
          ? dataOf(receiver)
          : property(js, node, receiver, method)
        : expr(js, fn, scope);
  const args = argumentsOf(js, childOf(node, 'arguments'), scope);
  const result: Taken = { out: empty, handled: false };
  const take = takeInto(result);
  for (const name of callee.refs ?? []) {
    const full = canonical(name);
    const c = new Call(js, node, full, receiver, args);
    if (full === 'URL' && construct) take(newUrl(c));
    else if (full === 'Promise' && construct) take(promise(js, node, args));
    else if (full === 'promise.then' || /\.(?:call|apply|bind)$/.test(full)) continue;
    else take(libraryCall(c) ?? builtinCall(c));
  }
  // `f.call(this, x)`, `f.apply(this, [x])`, `f.bind(this)(x)`: the function itself.
  if (
    receiver !== null &&
    (method === 'call' || method === 'apply' || method === 'bind') &&
    (receiver.fns || receiver.refs)
  ) {
    const rest = method === 'apply' ? (itemsOf(args[1] ?? empty) ?? [elementOf(args[1] ?? empty)]) : args.slice(1);
    if (method === 'bind') return receiver;
    for (const name of receiver.refs ?? [])
      take(
        libraryCall(new Call(js, node, canonical(name), null, rest)) ??
          builtinCall(new Call(js, node, canonical(name), null, rest)),
      );
    for (const f of receiver.fns ?? []) take(js.invoke(f, rest, node));
  }
  for (const obj of receiver?.objs ?? [])
    if (method !== undefined) take(objectMethod(new Call(js, node, method, receiver, args), obj, method));
  if (method === 'pipe' && receiver !== null) {
    pipe(new Call(js, node, 'pipe', receiver, args), receiver, args[0] ?? empty);
    take(args[0] ?? empty);
  }
  for (const f of callee.fns ?? []) take(f.kind === 'class' ? js.instantiate(f, args, node) : js.invoke(f, args, node));
  if (!result.handled && receiver !== null && method !== undefined)
    take(valueMethod(new Call(js, node, method, receiver, args), receiver, method));
  if (result.handled) return result.out;
  // What the model does not know: callbacks are called with its data; `then` gives what they return.
  const data = awaited(receiver ?? empty);
  const results = args.filter((a) => a.fns).map((a) => joinAll(a.fns!.map((f) => js.invoke(f, [data, data], node))));
  if (method === 'then' || method === 'catch' || method === 'finally') return joinAll(results);
  for (const value of args) usesEnvironment(js.flow, node, value);
  if (method !== undefined && /^(?:get)$/.test(method) && args[0]?.str !== undefined && metadataKey(args[0].str))
    return { taint: withoutInput(receiver?.taint) ?? [] };
  return {
    taint: [
      ...new Set([
        ...labelsOf(dataOf(callee)),
        ...(receiver ? labelsOf(receiver) : []),
        ...args.flatMap((a) => (a.fns ? [] : labelsOf(a))),
      ]),
    ],
  };
}

export function expr(js: Js, node: ShellNode, scope: Scope): Value {
  js.flow.budget--;
  const source = js.flow.source;
  switch (node.type) {
    case 'identifier':
    case 'shorthand_property_identifier':
      return lookup(js, scope, source.slice(node.start, node.end));
    case 'this':
      return scope.lookup('this') ?? empty;
    case 'string':
    case 'template_string':
      return stringValue(js, node, scope);
    case 'number':
      return numberLiteral(source, node, Number.isFinite);
    case 'true':
      return { num: 1 };
    case 'false':
    case 'null':
    case 'undefined':
      return empty;
    case 'member_expression': {
      const prop = childOf(node, 'property');
      const object = childOf(node, 'object');
      if (object?.type === 'import' || source.slice(node.start, node.end) === 'import.meta') return ref('import.meta');
      return property(js, node, expr(js, object ?? node, scope), prop ? source.slice(prop.start, prop.end) : '');
    }
    case 'meta_property':
      return ref('import.meta');
    case 'subscript_expression':
      return subscript(
        js,
        node,
        expr(js, childOf(node, 'object') ?? node, scope),
        expr(js, childOf(node, 'index') ?? node, scope),
      );
    case 'call_expression':
      return call(js, node, scope, false);
    case 'new_expression':
      return call(js, node, scope, true);
    case 'await_expression':
      return awaited(node.children[0] ? expr(js, node.children[0], scope) : empty);
    case 'binary_expression':
      return binary(
        operatorOf(js, node),
        expr(js, childOf(node, 'left') ?? node, scope),
        expr(js, childOf(node, 'right') ?? node, scope),
      );
    case 'unary_expression': {
      const value = expr(js, childOf(node, 'argument') ?? node, scope);
      const op = operatorOf(js, node);
      return op === '-' && value.num !== undefined
        ? { num: -value.num }
        : op === '+' || op === '~'
          ? dataOf(value)
          : empty;
    }
    case 'ternary_expression':
      expr(js, childOf(node, 'condition') ?? node, scope);
      return join(
        expr(js, childOf(node, 'consequence') ?? node, scope),
        expr(js, childOf(node, 'alternative') ?? node, scope),
      );
    case 'parenthesized_expression':
    case 'as_expression':
    case 'satisfies_expression':
    case 'non_null_expression':
    case 'type_assertion':
    case 'spread_element':
      return node.children[0] ? expr(js, node.children.at(node.type === 'type_assertion' ? -1 : 0)!, scope) : empty;
    case 'yield_expression':
      return node.children[0] ? expr(js, node.children[0], scope) : empty;
    case 'regex':
    case 'update_expression':
      return empty;
    default:
      return composite(js, node, scope);
  }
}

/** Sequences, arrays, objects, functions, assignments, and what else an expression holds. */
function composite(js: Js, node: ShellNode, scope: Scope): Value {
  switch (node.type) {
    case 'sequence_expression':
      return node.children.map((c) => expr(js, c, scope)).at(-1) ?? empty;
    case 'array': {
      const obj = site(js, node, 'list');
      const items: Value[] = [];
      for (const child of node.children) {
        const value = expr(js, child, scope);
        if (child.type === 'spread_element') items.push(...(itemsOf(value) ?? [elementOf(value)]));
        else items.push(value);
      }
      setItems(js.flow, obj, items);
      return { objs: [obj] };
    }
    case 'object':
      return objectLiteral(js, node, scope);
    case 'arrow_function':
    case 'function_expression':
    case 'function':
    case 'generator_function':
    case 'class':
      return { fns: [js.callable(node, scope)] };
    case 'assignment_expression': {
      const value = expr(js, childOf(node, 'right') ?? node, scope);
      const left = childOf(node, 'left');
      if (left) js.bind(left, value, scope);
      return value;
    }
    case 'augmented_assignment_expression': {
      const left = childOf(node, 'left');
      const op = operatorOf(js, node).replace(/=$/, '');
      const value = binary(
        op === '||' || op === '??' || op === '&&' ? '||' : op,
        left ? expr(js, left, scope) : empty,
        expr(js, childOf(node, 'right') ?? node, scope),
      );
      if (left) js.bind(left, value, scope);
      return value;
    }
    default:
      return joinAll(node.children.filter((c) => c.field !== 'operator').map((c) => dataOf(expr(js, c, scope))));
  }
}
