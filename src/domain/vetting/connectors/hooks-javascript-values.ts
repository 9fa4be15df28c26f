// JavaScript literals and operators as a script writes them: strings and template literals with their
// escapes, `+` (text or numbers), `??`/`||`, arithmetic on known numbers, object literals (pairs,
// shorthands, spreads, methods) and `new Promise` (what `resolve` is given is what awaiting gives).
import * as flow from './hooks-flow.ts';
import { site, type Js } from './hooks-javascript-context.ts';
import { childOf, type ShellNode } from './hooks-syntax.ts';

const escapes: Readonly<Record<string, string>> = { n: '\n', t: '\t', r: '\r', b: '\b', f: '\f', v: '\v', '0': '\0' };
/** JavaScript's escapes in a string or template literal. */
export const unescape = (value: string): string =>
  value.replace(
    /\\(?:x([0-9a-fA-F]{2})|u\{([0-9a-fA-F]+)\}|u([0-9a-fA-F]{4})|(\r?\n)|(.))/gs,
    (_, x, braced, u, nl, other: string) =>
      x || braced || u
        ? String.fromCodePoint(parseInt((x ?? braced ?? u) as string, 16))
        : nl
          ? ''
          : (escapes[other] ?? other),
  );

export function stringValue(js: Js, node: ShellNode, scope: flow.Scope): flow.Value {
  const source = js.flow.source;
  const parts: flow.Value[] = [];
  for (const child of node.children) {
    if (child.type === 'string_fragment' || child.type === 'escape_sequence')
      parts.push(flow.text(unescape(source.slice(child.start, child.end))));
    else if (child.type === 'template_substitution')
      parts.push(child.children[0] ? js.expr(child.children[0], scope) : flow.empty);
  }
  return parts.length === 0 ? flow.text('') : flow.concat(parts);
}

/** `new Promise((resolve) => …)`: what `resolve` is given is what awaiting the promise gives. */
export function promise(js: Js, node: ShellNode, args: readonly flow.Value[]): flow.Value {
  const obj = site(js, node, 'promise');
  const resolve: flow.Callable = { node, scope: null, kind: 'resolve', target: obj };
  for (const f of args[0]?.fns ?? []) js.invoke(f, [{ fns: [resolve] }, { fns: [resolve] }], node);
  return { objs: [obj] };
}

/** The operator token of an expression. */
export const operatorOf = (js: Js, node: ShellNode): string => {
  const op = node.children.find((c) => c.field === 'operator');
  return op ? js.flow.source.slice(op.start, op.end) : '';
};

export function binary(op: string, left: flow.Value, right: flow.Value): flow.Value {
  switch (op) {
    case '+':
      return left.num !== undefined && right.num !== undefined
        ? { num: left.num + right.num }
        : flow.concat([left, right]);
    case '-':
    case '*':
    case '^':
    case '|':
    case '&':
      if (left.num !== undefined && right.num !== undefined)
        return {
          num:
            op === '-'
              ? left.num - right.num
              : op === '*'
                ? left.num * right.num
                : op === '^'
                  ? left.num ^ right.num
                  : op === '|'
                    ? left.num | right.num
                    : left.num & right.num,
        };
      return { taint: [...flow.labelsOf(left), ...flow.labelsOf(right)] };
    case '||':
    case '??':
    case '&&':
      return flow.join(left, right);
    default:
      return flow.empty;
  }
}

export function objectLiteral(js: Js, node: ShellNode, scope: flow.Scope): flow.Value {
  const obj = site(js, node, 'object');
  const source = js.flow.source;
  const self: flow.Value = { objs: [obj] };
  for (const child of node.children) {
    if (child.type === 'pair') {
      const keyNode = childOf(child, 'key');
      const key =
        keyNode === undefined
          ? flow.empty
          : keyNode.type === 'property_identifier'
            ? flow.text(source.slice(keyNode.start, keyNode.end))
            : keyNode.type === 'computed_property_name'
              ? js.expr(keyNode.children[0] ?? keyNode, scope)
              : js.expr(keyNode, scope);
      const value = js.expr(childOf(child, 'value') ?? child, scope);
      const name = key.str ?? (key.num !== undefined ? String(key.num) : undefined);
      if (name !== undefined) flow.assign(js.flow, obj.fields, name, value);
      else flow.addRest(js.flow, obj, value);
    } else if (child.type === 'shorthand_property_identifier') {
      flow.assign(js.flow, obj.fields, source.slice(child.start, child.end), js.expr(child, scope));
    } else if (child.type === 'spread_element') {
      const spread = js.expr(child.children[0] ?? child, scope);
      for (const from of spread.objs ?? []) for (const [k, v] of from.fields) flow.assign(js.flow, obj.fields, k, v);
      flow.addRest(js.flow, obj, flow.dataOf(spread));
    } else if (child.type === 'method_definition') {
      const name = childOf(child, 'name');
      if (name)
        flow.assign(js.flow, obj.fields, source.slice(name.start, name.end), { fns: [js.callable(child, scope)] });
    }
  }
  return self;
}
