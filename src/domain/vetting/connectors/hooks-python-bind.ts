// What Python assignments, imports and containers do: names bound in the scope Python would, tuples
// unpacked, attributes and items of the script's objects set, the names an import binds (a local module
// is a file the script runs), comprehensions (over a known list, element by element, so
// `''.join(chr(c) for c in [...])` folds), and the methods of lists and dicts.
import {
  addRest,
  assign,
  dataOf,
  elementOf,
  empty,
  join,
  labelsOf,
  pushItem,
  Scope,
  setItems,
  text,
  type Obj,
  type Value,
} from './hooks-flow.ts';
import { itemsOf, site, type Py } from './hooks-python-context.ts';
import { canonical } from './hooks-python-api.ts';
import { resolveWord } from './hooks-reach.ts';
import { childOf, type ShellNode } from './hooks-syntax.ts';

/** `list.append`, `dict.update`, `dict.get` … on the lists and dicts of the script. */
export function containerMethod(py: Py, obj: Obj, method: string, args: readonly Value[]): Value | undefined {
  const first = args[0] ?? empty;
  switch (method) {
    case 'append':
    case 'add':
      pushItem(py.flow, obj, first);
      return empty;
    case 'extend':
    case 'update':
      for (const source of first.objs ?? []) {
        for (const item of source.items ?? []) pushItem(py.flow, obj, item);
        for (const [k, v] of source.fields) assign(py.flow, obj.fields, k, v);
      }
      addRest(py.flow, obj, dataOf(first));
      return empty;
    case 'insert':
    case '__setitem__':
    case 'setdefault':
      if (first.str !== undefined) assign(py.flow, obj.fields, first.str, args[1] ?? empty);
      else addRest(py.flow, obj, args[1] ?? empty);
      return method === 'setdefault' ? (obj.fields.get(first.str ?? '') ?? empty) : empty;
    case 'get':
    case 'pop':
      return join(
        first.str !== undefined ? (obj.fields.get(first.str) ?? obj.rest) : elementOf({ objs: [obj] }),
        args[1] ?? empty,
      );
    case 'copy':
      return { objs: [obj] };
    case 'items':
    case 'values':
    case 'keys':
      return { taint: labelsOf({ objs: [obj] }) };
    default:
      return undefined;
  }
}

export function comprehension(py: Py, node: ShellNode, scope: Scope): Value {
  const body = childOf(node, 'body');
  const clause = node.children.find((c) => c.type === 'for_in_clause');
  const left = clause && childOf(clause, 'left');
  const iterable = clause && childOf(clause, 'right') ? py.expr(childOf(clause, 'right')!, scope) : empty;
  const obj = site(py, node, 'list');
  const known = itemsOf(iterable) ?? (iterable.str !== undefined ? [...iterable.str].map((c) => text(c)) : null);
  const inner = (element: Value): Value => {
    const local = new Scope(scope, 'block');
    if (left) bind(py, left, element, local);
    for (const c of node.children) if (c.type === 'if_clause') for (const x of c.children) py.expr(x, local);
    return body ? py.expr(body, local) : empty;
  };
  if (
    known !== null &&
    known.length <= 256 &&
    clause === node.children.find((c) => c.type === 'for_in_clause') &&
    node.children.filter((c) => c.type === 'for_in_clause').length === 1
  )
    setItems(py.flow, obj, known.map(inner));
  else addRest(py.flow, obj, inner(elementOf(iterable)));
  return { objs: [obj] };
}

/**
 * Assigns a name in the scope Python would (`global`, `nonlocal`), joined with what it held. Only the
 * module's and classes' names outlive a pass, so only their changes call for another one.
 */
export function setName(py: Py, scope: Scope, name: string, value: Value): void {
  let into: Scope = scope;
  if (scope.globals.has(name)) into = py.module;
  else if (scope.globals.has(`^${name}`))
    for (let s = scope.parent; s !== null; s = s.parent)
      if (s.vars.has(name)) {
        into = s;
        break;
      }
  if (into.kind === 'module' || into.kind === 'class') assign(py.flow, into.vars, name, value);
  else into.vars.set(name, join(into.vars.get(name) ?? empty, value));
}

/** Assigns a value to a target: a name, a tuple of names, an attribute, a subscript. */
export function bind(py: Py, target: ShellNode, value: Value, scope: Scope): void {
  const source = py.flow.source;
  switch (target.type) {
    case 'identifier':
      return setName(py, scope, source.slice(target.start, target.end), value);
    case 'pattern_list':
    case 'tuple_pattern':
    case 'list_pattern':
    case 'tuple':
    case 'list':
    case 'expression_list': {
      const items = itemsOf(value);
      target.children.forEach((child, i) => bind(py, child, items?.[i] ?? elementOf(value), scope));
      return;
    }
    case 'list_splat_pattern':
    case 'parenthesized_expression':
      if (target.children[0]) bind(py, target.children[0], value, scope);
      return;
    case 'attribute': {
      const object = py.expr(childOf(target, 'object') ?? target, scope);
      const name = source.slice(childOf(target, 'attribute')?.start ?? 0, target.end);
      for (const obj of object.objs ?? []) assign(py.flow, obj.fields, name, value);
      return;
    }
    case 'subscript': {
      const object = py.expr(childOf(target, 'value') ?? target, scope);
      const keyNode = childOf(target, 'subscript');
      const key = keyNode ? py.expr(keyNode, scope) : empty;
      for (const obj of object.objs ?? []) {
        if (key.str !== undefined) assign(py.flow, obj.fields, key.str, value);
        else addRest(py.flow, obj, value);
      }
      return;
    }
  }
}

const nameOf = (py: Py, node: ShellNode | undefined): string =>
  node === undefined ? '' : py.flow.source.slice(node.start, node.end);

/** A module the script imports that is a file of the plugin (`import helpers`, `from .lib import send`). */
function localModule(py: Py, module: string, level: number, names: readonly string[]): void {
  if (py.pass > 0 || py.flow.depth > 0) return;
  const path = `${level > 1 ? '../'.repeat(level - 1) : ''}${module.replaceAll('.', '/')}`;
  const bases = module === '' ? names : [path, ...names.map((n) => `${path}/${n}`)];
  for (const base of bases) {
    for (const candidate of [`${base}.py`, `${base}/__init__.py`]) {
      const found = resolveWord(candidate.replace(/^\//, ''), py.flow.dir, py.flow.root, py.flow.exists);
      if (found !== null && found !== py.flow.path) {
        py.flow.report.runs.push({ path: found, args: [] });
        return;
      }
    }
  }
}

export function imports(py: Py, node: ShellNode, scope: Scope): void {
  const source = py.flow.source;
  if (node.type === 'import_statement') {
    for (const child of node.children) {
      const dotted = child.type === 'aliased_import' ? (childOf(child, 'name') ?? child) : child;
      const module = nameOf(py, dotted);
      const alias = child.type === 'aliased_import' ? childOf(child, 'alias') : undefined;
      if (alias) bind(py, alias, { refs: [canonical(module)] }, scope);
      else setName(py, scope, module.split('.')[0]!, { refs: [canonical(module.split('.')[0]!)] });
      localModule(py, module, 0, []);
    }
    return;
  }
  const moduleNode = childOf(node, 'module_name');
  const raw = moduleNode ? source.slice(moduleNode.start, moduleNode.end) : '';
  const level = /^\.*/.exec(raw)![0].length;
  const module = raw.slice(level);
  const names: string[] = [];
  for (const child of node.children) {
    if (child.field !== 'name') {
      if (child.type === 'wildcard_import') py.star.push(canonical(module));
      continue;
    }
    const dotted = child.type === 'aliased_import' ? (childOf(child, 'name') ?? child) : child;
    const name = nameOf(py, dotted);
    names.push(name);
    const alias = child.type === 'aliased_import' ? childOf(child, 'alias') : undefined;
    setName(py, scope, alias ? nameOf(py, alias) : name, { refs: [canonical(`${module}.${name}`)] });
  }
  if (level > 0 || module !== '') localModule(py, module, level || 1, names);
}
