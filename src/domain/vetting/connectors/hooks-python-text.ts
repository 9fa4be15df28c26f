// Python text as a script builds it: string literals with their escapes, f-strings, `%` and `.format`,
// `+`, `*` and `/` (pathlib), and the methods of strings folded when the text is known (`join`,
// `replace`, `decode('rot13')` …); what is computed keeps its labels.
import { base64, decoded, hex, rot13 } from './hooks-decode.ts';
import { concat, dataOf, empty, labelsOf, setItems, text, withTaint, type Scope, type Value } from './hooks-flow.ts';
import { itemsOf, site, type Py } from './hooks-python-context.ts';
import { childOf, type ShellNode } from './hooks-syntax.ts';

const escapes: Readonly<Record<string, string>> = {
  n: '\n',
  t: '\t',
  r: '\r',
  a: '\x07',
  b: '\b',
  f: '\f',
  v: '\v',
  '0': '\0',
};
/** Python's escapes in a string literal. */
export const unescape = (value: string): string =>
  value.replace(
    /\\(?:x([0-9a-fA-F]{2})|u([0-9a-fA-F]{4})|U([0-9a-fA-F]{8})|([0-7]{1,3})|(\n)|(.))/gs,
    (_, x, u, big, oct, nl, other: string) =>
      x || u || big
        ? String.fromCodePoint(parseInt((x ?? u ?? big) as string, 16))
        : oct
          ? String.fromCharCode(parseInt(oct as string, 8))
          : nl
            ? ''
            : (escapes[other] ?? (/['"\\]/.test(other) ? other : `\\${other}`)),
  );

export function stringValue(py: Py, node: ShellNode, scope: Scope): Value {
  const source = py.flow.source;
  const prefix = /^[a-zA-Z]*/.exec(source.slice(node.start, node.start + 3))![0].toLowerCase();
  const parts: Value[] = [];
  for (const child of node.children) {
    if (child.type === 'string_content') {
      let content = source.slice(child.start, child.end);
      if (!prefix.includes('r')) content = unescape(content);
      if (prefix.includes('f')) content = content.replaceAll('{{', '{').replaceAll('}}', '}');
      parts.push(text(content));
    } else if (child.type === 'interpolation') {
      const inner = childOf(child, 'expression');
      parts.push(inner ? py.expr(inner, scope) : empty);
    }
  }
  return parts.length === 0 ? text('') : concat(parts);
}

/** `'%s/%s' % (a, b)` and `'{}/{name}'.format(a, name=b)`: the pieces in order. */
function format(template: string, pattern: RegExp, pick: (spec: string, i: number) => Value): Value {
  const parts: Value[] = [];
  let last = 0;
  let i = 0;
  for (const m of template.matchAll(pattern)) {
    parts.push(text(template.slice(last, m.index)), pick(m[1] ?? '', i++));
    last = m.index + m[0].length;
  }
  parts.push(text(template.slice(last)));
  return concat(parts);
}

export function binary(py: Py, node: ShellNode, op: string, left: Value, right: Value): Value {
  if (op === '+') {
    const lists = [itemsOf(left), itemsOf(right)];
    if (lists[0] && lists[1]) {
      const obj = site(py, node, 'list');
      setItems(py.flow, obj, [...lists[0], ...lists[1]]);
      return { objs: [obj] };
    }
    if (left.num !== undefined && right.num !== undefined) return { num: left.num + right.num };
    return concat([left, right]);
  }
  if (op === '/' && (left.refs ?? []).includes('pathlib.Path()'))
    return { ...concat([left, text('/'), right]), refs: ['pathlib.Path()'] };
  if (op === '%' && left.str !== undefined) {
    const values = itemsOf(right) ?? [right];
    return withTaint(
      format(left.str, /%(?:\([^)]*\))?[-#0 +]*\d*(?:\.\d+)?[sdrifxXoc]/g, (_, i) => values[i] ?? dataOf(right)),
      labelsOf(right),
    );
  }
  if (op === '*' && left.str !== undefined && right.num !== undefined && right.num < 64)
    return text(left.str.repeat(right.num), left.taint);
  if (op === '^' && left.num !== undefined && right.num !== undefined) return { num: left.num ^ right.num };
  if (op === '-' && left.num !== undefined && right.num !== undefined) return { num: left.num - right.num };
  return { taint: [...labelsOf(left), ...labelsOf(right)] };
}

/** Methods of text: folded when the text is known, its labels kept either way. */
export function stringMethod(
  base: Value,
  method: string,
  args: readonly Value[],
  kwargs: ReadonlyMap<string, Value>,
): Value | undefined {
  const known = base.str;
  const first = args[0];
  switch (method) {
    case 'join': {
      const items = first === undefined ? null : itemsOf(first);
      if (items !== null && known !== undefined)
        return concat(items.flatMap((item, i) => (i === 0 ? [item] : [text(known), item])));
      return { taint: [...labelsOf(base), ...(first ? labelsOf(first) : [])] };
    }
    case 'format':
      if (known === undefined) return undefined;
      return format(known, /\{([^{}]*)\}/g, (spec, i) => {
        const name = spec.replace(/[!:].*$/, '');
        return (/^\d+$/.test(name) ? args[Number(name)] : name === '' ? args[i] : kwargs.get(name)) ?? empty;
      });
    case 'replace':
      return known !== undefined && first?.str !== undefined && args[1]?.str !== undefined
        ? text(known.replaceAll(first.str, args[1].str), base.taint)
        : undefined;
    case 'encode':
    case 'lower':
    case 'upper':
    case 'strip':
    case 'lstrip':
    case 'rstrip':
    case 'casefold':
      if (known === undefined) return undefined;
      if (method === 'encode' || args.length > 0) return base;
      return text(
        method === 'lower' || method === 'casefold'
          ? known.toLowerCase()
          : method === 'upper'
            ? known.toUpperCase()
            : known.trim(),
        base.taint,
      );
    case 'decode': {
      const encoding = (first?.str ?? 'utf-8').toLowerCase().replace(/[-_]/g, '');
      if (encoding === 'rot13') return decoded(base, 'rot13', rot13);
      if (encoding === 'hex') return decoded(base, 'hex', hex);
      if (encoding === 'base64') return decoded(base, 'base64', base64);
      return base;
    }
    case 'translate':
    case 'swapcase':
      return decoded(base, `str.${method}`);
    case 'split':
    case 'splitlines':
    case 'partition':
    case 'rsplit':
      return { taint: labelsOf(base) };
    default:
      return undefined;
  }
}
