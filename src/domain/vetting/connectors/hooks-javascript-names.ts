// JavaScript builtins through which a script names things indirectly or hides text, and the methods of
// strings and arrays folded when the text is known: `Reflect.get(process, 'env')`, `Object.assign`,
// `atob`, `Buffer.from(…, 'base64' | 'hex')`, `String.fromCharCode(...codes)`, `decodeURIComponent`,
// `zlib.inflateSync`, `'…'.split('').reverse().join('')`, `[…].map(c => String.fromCharCode(c))`.
import { base64, charCodes, decoded, hex, mayBeCode } from './hooks-decode.ts';
import { usesEnvironment } from './hooks-effects.ts';
import {
  addRest,
  assign,
  concat,
  dataOf,
  elementOf,
  empty,
  join,
  joinAll,
  labelsOf,
  pushItem,
  setItems,
  text,
  withTaint,
  type Value,
} from './hooks-flow.ts';
import type { JsCall } from './hooks-javascript-api.ts';
import { itemsOf } from './hooks-javascript-context.ts';

const arg = (c: JsCall, i: number): Value => c.args[i] ?? empty;

function list(c: JsCall, items: readonly Value[] | null, rest: Value): Value {
  const obj = c.site('list');
  if (items !== null) setItems(c.flow, obj, items);
  else addRest(c.flow, obj, rest);
  return { objs: [obj] };
}

const percent = (s: string): string | undefined => {
  try {
    return decodeURIComponent(s);
  } catch {
    return undefined;
  }
};

const codes = (c: JsCall): Value => {
  const values = c.args.length === 1 && itemsOf(arg(c, 0)) ? itemsOf(arg(c, 0))! : c.args;
  const numbers = values.map((v) => v.num);
  const known = numbers.every((n): n is number => n !== undefined) ? charCodes(numbers) : undefined;
  const labels = [...values.flatMap((v) => labelsOf(v)), ...(mayBeCode(known) ? ['decoded:String.fromCharCode'] : [])];
  return known === undefined ? { taint: labels } : text(known, labels);
};

type Handler = (c: JsCall) => Value;
const handlers: Readonly<Record<string, Handler>> = {
  atob: (c) => decoded(arg(c, 0), 'atob', base64),
  'Buffer.from': (c) => {
    const encoding = (arg(c, 1).str ?? 'utf8').toLowerCase();
    const items = itemsOf(arg(c, 0));
    if (items !== null) return codes({ ...c, args: [arg(c, 0)] });
    if (encoding === 'base64' || encoding === 'base64url') return decoded(arg(c, 0), `Buffer.from ${encoding}`, base64);
    if (encoding === 'hex') return decoded(arg(c, 0), 'Buffer.from hex', hex);
    return arg(c, 0);
  },
  'String.fromCharCode': codes,
  'String.fromCodePoint': codes,
  decodeURIComponent: (c) => decoded(arg(c, 0), 'decodeURIComponent', percent),
  decodeURI: (c) => decoded(arg(c, 0), 'decodeURI', percent),
  unescape: (c) => decoded(arg(c, 0), 'unescape', percent),
  'zlib.inflateSync': (c) => decoded(arg(c, 0), 'zlib'),
  'zlib.gunzipSync': (c) => decoded(arg(c, 0), 'zlib'),
  'zlib.unzipSync': (c) => decoded(arg(c, 0), 'zlib'),
  'zlib.inflateRawSync': (c) => decoded(arg(c, 0), 'zlib'),
  'zlib.brotliDecompressSync': (c) => decoded(arg(c, 0), 'zlib'),
  'Object.keys': (c) => spread(c),
  'Object.values': (c) => spread(c),
  'Object.entries': (c) => spread(c),
  'Object.fromEntries': (c) => ({ taint: labelsOf(arg(c, 0)) }),
  'Object.assign': (c) => {
    const target = arg(c, 0);
    for (const source of c.args.slice(1)) {
      for (const obj of target.objs ?? []) {
        for (const from of source.objs ?? []) for (const [k, v] of from.fields) assign(c.flow, obj.fields, k, v);
        addRest(c.flow, obj, dataOf(source));
      }
    }
    return withTaint(
      target,
      c.args.slice(1).flatMap((a) => a.taint ?? []),
    );
  },
  'Reflect.get': (c) => (arg(c, 1).str !== undefined ? c.attribute(arg(c, 0), arg(c, 1).str!) : dataOf(arg(c, 0))),
  'Reflect.apply': (c) => c.callback(arg(c, 0), itemsOf(arg(c, 2)) ?? []),
  'JSON.parse': (c) => ({ taint: labelsOf(arg(c, 0)) }),
  'Array.from': (c) =>
    list(
      c,
      itemsOf(arg(c, 0)) ?? (arg(c, 0).str !== undefined ? [...arg(c, 0).str!].map((ch) => text(ch)) : null),
      elementOf(arg(c, 0)),
    ),
  'Promise.resolve': (c) => arg(c, 0),
  'Object.getPrototypeOf': (c) => arg(c, 0),
  'Reflect.getPrototypeOf': (c) => arg(c, 0),
  'Promise.all': (c) => arg(c, 0),
  structuredClone: (c) => arg(c, 0),
  'url.fileURLToPath': (c) => fromFileUrl(arg(c, 0)),
  'path.join': (c) => joinPath(c.args),
  'path.resolve': (c) => joinPath(c.args),
  'path.dirname': (c) => {
    const p = arg(c, 0);
    if (p.str === undefined) return dataOf(p);
    return text(
      /^\$__dir__(?:\/\.\.)*$/.test(p.str) ? `${p.str}/..` : p.str.includes('/') ? p.str.replace(/\/[^/]*$/, '') : '.',
    );
  },
  'path.normalize': (c) => arg(c, 0),
};

/** `Object.entries(process.env)`: every element of it, the environment read as data. */
function spread(c: JsCall): Value {
  usesEnvironment(c.flow, c.node, arg(c, 0));
  return list(c, null, elementOf(arg(c, 0)));
}

const fromFileUrl = (value: Value): Value =>
  value.str !== undefined ? text(value.str.replace(/^file:\/\//, ''), value.taint) : value;

/** `path.join(__dirname, 'x.js')`: a later absolute part starts again. */
function joinPath(parts: readonly Value[]): Value {
  let out: Value[] = [];
  for (const part of parts) {
    if (part.str !== undefined && /^(?:\/|~)/.test(part.str)) out = [part];
    else out.push(...(out.length > 0 ? [text('/'), part] : [part]));
  }
  return concat(out);
}

/** A builtin by canonical name; undefined when it is none of these. */
export const builtinCall = (c: JsCall): Value | undefined => handlers[c.name]?.(c);

/** `new URL('./x.js', import.meta.url)`: the URL of the file next to the script. */
export function newUrl(c: JsCall): Value {
  const [relative, base] = [arg(c, 0), arg(c, 1)];
  if (relative.str !== undefined && base.str !== undefined && /^file:\/\//.test(base.str))
    return text(`${base.str.replace(/\/[^/]*$/, '')}/${relative.str.replace(/^\.\//, '')}`.replace(/\/\.$/, ''));
  return concat([relative]);
}

/** Methods of text and arrays, folded when known; undefined when the receiver is neither. */
export function valueMethod(c: JsCall, receiver: Value, method: string): Value | undefined {
  if (receiver.str !== undefined || receiver.template !== undefined) return stringMethod(c, receiver, method);
  return arrayMethod(c, receiver, method);
}

/** `split`, `replace`, `slice`, `toLowerCase` … of text, folded when it is known. */
function stringMethod(c: JsCall, receiver: Value, method: string): Value | undefined {
  const known = receiver.str;
  const first = arg(c, 0);
  switch (method) {
    case 'split':
      if (known !== undefined && first.str !== undefined)
        return list(
          c,
          known.split(first.str).map((s) => text(s, receiver.taint)),
          empty,
        );
      return list(c, null, dataOf(receiver));
    case 'concat':
      return concat([receiver, ...c.args]);
    case 'replace':
    case 'replaceAll':
      if (known !== undefined && first.str !== undefined && arg(c, 1).str !== undefined)
        return text(
          method === 'replace' ? known.replace(first.str, arg(c, 1).str!) : known.replaceAll(first.str, arg(c, 1).str!),
          receiver.taint,
        );
      return { taint: labelsOf(receiver) };
    case 'toLowerCase':
    case 'toUpperCase':
    case 'trim':
    case 'toString':
    case 'valueOf':
    case 'normalize':
      if (known === undefined) return receiver;
      return text(
        method === 'toLowerCase'
          ? known.toLowerCase()
          : method === 'toUpperCase'
            ? known.toUpperCase()
            : method === 'trim'
              ? known.trim()
              : known,
        receiver.taint,
      );
    case 'slice':
    case 'substring':
    case 'substr':
      if (known !== undefined && first.num !== undefined)
        return text(
          method === 'substr' ? known.substr(first.num, arg(c, 1).num) : known[method](first.num, arg(c, 1).num),
          receiver.taint,
        );
      return dataOf(receiver);
    case 'charAt':
    case 'at':
      return known !== undefined && first.num !== undefined
        ? text(known.at(first.num) ?? '', receiver.taint)
        : dataOf(receiver);
    default:
      return undefined;
  }
}

/** `join`, `map`, `reverse`, `reduce`, `push` … of arrays; callbacks are called with the elements. */
function arrayMethod(c: JsCall, receiver: Value, method: string): Value | undefined {
  const first = arg(c, 0);
  const items = itemsOf(receiver);
  if (items === null && !(receiver.objs ?? []).some((o) => o.kind === 'list')) return undefined;
  const element = elementOf(receiver);
  switch (method) {
    case 'join':
      if (items !== null) {
        const sep = first.str ?? ',';
        return concat(items.flatMap((item, i) => (i === 0 ? [item] : [text(sep), item])));
      }
      return { taint: labelsOf(receiver) };
    case 'reverse':
    case 'toReversed':
      return items === null
        ? receiver
        : list(
            c,
            [...items].reverse().map((i) => withTaint(i, ['decoded:reverse'])),
            empty,
          );
    case 'map':
    case 'flatMap':
      if (items !== null && items.length <= 256)
        return list(
          c,
          items.map((item, i) => c.callback(first, [item, { num: i }])),
          empty,
        );
      return list(c, null, c.callback(first, [element]));
    case 'filter':
    case 'slice':
    case 'sort':
    case 'toSorted':
    case 'flat':
    case 'concat':
      for (const cb of [first].filter((a) => (a.fns ?? []).length > 0)) c.callback(cb, [element]);
      return method === 'concat'
        ? list(
            c,
            items && c.args.every((a) => itemsOf(a)) ? [...items, ...c.args.flatMap((a) => itemsOf(a)!)] : null,
            joinAll([element, ...c.args.map(elementOf)]),
          )
        : list(c, null, element);
    case 'forEach':
    case 'find':
    case 'findLast':
    case 'some':
    case 'every':
      return join(c.callback(first, [element]), method.startsWith('find') ? element : empty);
    case 'reduce': {
      if (items !== null && items.length <= 256 && (first.fns ?? []).length > 0) {
        let acc = c.args[1] ?? items[0] ?? empty;
        for (const item of c.args[1] === undefined ? items.slice(1) : items) acc = c.callback(first, [acc, item]);
        return acc;
      }
      return join(c.callback(first, [element, element]), element);
    }
    case 'push':
    case 'unshift':
      for (const obj of receiver.objs ?? []) for (const value of c.args) pushItem(c.flow, obj, value);
      return empty;
    case 'pop':
    case 'shift':
    case 'at':
      return element;
    case 'includes':
    case 'indexOf':
      return empty;
    default:
      return undefined;
  }
}
