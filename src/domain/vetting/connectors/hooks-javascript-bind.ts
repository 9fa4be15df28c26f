// What JavaScript assignments and imports bind: names (a closure's assignment changes the name it
// shares), destructuring patterns (`{ execSync: x } = require(…)`, `[a, b]`, defaults, rests), members
// of the script's objects, and the names an `import` gives a module (default, namespace, named, aliased);
// a relative import is a file of the plugin the script runs.
import { addRest, assign, elementOf, empty, join, ref, type Scope, type Value } from './hooks-flow.ts';
import { canonical } from './hooks-javascript-api.ts';
import { itemsOf, type Js } from './hooks-javascript-context.ts';
import { property } from './hooks-javascript-expr.ts';
import { resolveWord } from './hooks-reach.ts';
import { childOf, type ShellNode } from './hooks-syntax.ts';

const nameOf = (js: Js, node: ShellNode | undefined): string =>
  node === undefined ? '' : js.flow.source.slice(node.start, node.end);

export const persistentScope = (scope: Scope): boolean =>
  scope.kind === 'module' || (scope.kind === 'class' && scope.parent !== null && persistentScope(scope.parent));

export function setName(js: Js, scope: Scope, name: string, value: Value): void {
  let into: Scope = scope;
  // An assignment to a name declared further out changes that name (closures share it).
  if (!scope.vars.has(name))
    for (let s = scope.parent; s !== null; s = s.parent)
      if (s.vars.has(name)) {
        into = s;
        break;
      }
  if (persistentScope(into)) assign(js.flow, into.vars, name, value);
  else into.vars.set(name, join(into.vars.get(name) ?? empty, value));
}

/** Binds a target to a value: a name, a destructuring pattern (`{ execSync: x }`, `[a, b]`), a member. */
export function bind(js: Js, target: ShellNode, value: Value, scope: Scope, declare = false): void {
  const source = js.flow.source;
  switch (target.type) {
    case 'identifier':
    case 'shorthand_property_identifier_pattern': {
      const name = source.slice(target.start, target.end);
      if (declare) scope.vars.set(name, join(scope.vars.get(name) ?? empty, value));
      else setName(js, scope, name, value);
      return;
    }
    case 'object_pattern':
      for (const child of target.children) {
        if (child.type === 'pair_pattern') {
          const key = childOf(child, 'key');
          const name =
            key?.type === 'computed_property_name'
              ? js.expr(key.children[0] ?? key, scope).str
              : key?.type === 'string'
                ? js.expr(key, scope).str
                : nameOf(js, key);
          const inner = childOf(child, 'value');
          if (inner)
            bind(js, inner, name === undefined ? elementOf(value) : property(js, child, value, name), scope, declare);
        } else if (child.type === 'shorthand_property_identifier_pattern')
          bind(js, child, property(js, child, value, nameOf(js, child)), scope, declare);
        else if (child.type === 'object_assignment_pattern') {
          const left = childOf(child, 'left');
          const right = childOf(child, 'right');
          if (left)
            bind(
              js,
              left,
              join(property(js, child, value, nameOf(js, left)), right ? js.expr(right, scope) : empty),
              scope,
              declare,
            );
        } else if (child.type === 'rest_pattern' && child.children[0])
          bind(js, child.children[0], value, scope, declare);
      }
      return;
    case 'array_pattern': {
      const items = itemsOf(value);
      target.children.forEach((child, i) => bind(js, child, items?.[i] ?? elementOf(value), scope, declare));
      return;
    }
    case 'assignment_pattern': {
      const left = childOf(target, 'left');
      const right = childOf(target, 'right');
      if (left) bind(js, left, join(value, right ? js.expr(right, scope) : empty), scope, declare);
      return;
    }
    case 'rest_pattern':
      if (target.children[0]) bind(js, target.children[0], value, scope, declare);
      return;
    case 'member_expression':
    case 'subscript_expression': {
      const object = js.expr(childOf(target, 'object') ?? target, scope);
      const key =
        target.type === 'member_expression'
          ? { str: nameOf(js, childOf(target, 'property')) }
          : js.expr(childOf(target, 'index') ?? target, scope);
      for (const obj of object.objs ?? []) {
        if (key.str !== undefined) assign(js.flow, obj.fields, key.str, value);
        else addRest(js.flow, obj, value);
      }
      return;
    }
    default:
      if (target.type === 'parenthesized_expression' && target.children[0])
        bind(js, target.children[0], value, scope, declare);
  }
}

/** A module the script imports that is a file of the plugin (`./lib/send.js`, `../util`). */
export function localModule(js: Js, specifier: string): void {
  if (js.pass > 0 || js.flow.depth > 0 || !/^\.\.?\//.test(specifier)) return;
  const bare = specifier.replace(/\.(?:js|mjs|cjs)$/, '');
  for (const candidate of [
    specifier,
    ...['.js', '.mjs', '.cjs', '.ts', '.mts', '.tsx', '/index.js', '/index.ts'].map((e) => bare + e),
  ]) {
    const found = resolveWord(candidate, js.flow.dir, js.flow.root, js.flow.exists);
    if (found !== null && found !== js.flow.path) {
      js.flow.report.runs.push({ path: found, args: [] });
      return;
    }
  }
}

export function imports(js: Js, node: ShellNode, scope: Scope): void {
  const sourceNode = childOf(node, 'source');
  const specifier = sourceNode ? (js.expr(sourceNode, scope).str ?? '') : '';
  localModule(js, specifier);
  const module: Value = /^\.\.?\//.test(specifier) ? empty : ref(canonical(specifier));
  for (const clause of node.children.filter((c) => c.type === 'import_clause' || c.type === 'import_require_clause')) {
    for (const part of clause.children) {
      if (part.type === 'identifier') bind(js, part, module, scope, true);
      else if (part.type === 'namespace_import' && part.children[0]) bind(js, part.children[0], module, scope, true);
      else if (part.type === 'named_imports')
        for (const spec of part.children) {
          const name = childOf(spec, 'name');
          const alias = childOf(spec, 'alias') ?? name;
          if (alias)
            bind(js, alias, module === empty ? empty : property(js, spec, module, nameOf(js, name)), scope, true);
        }
    }
  }
}
