// JavaScript builtins through which a script names things indirectly or hides text, and the methods of
// strings and arrays folded when the text is known: `Reflect.get(process, 'env')`, `Object.assign`,
// `atob`, `Buffer.from(…, 'base64' | 'hex')`, `String.fromCharCode(...codes)`, `decodeURIComponent`,
// `zlib.inflateSync`, `'…'.split('').reverse().join('')`, `[…].map(c => String.fromCharCode(c))`.
import { base64, charCodes, decoded, hex, mayBeCode } from './hooks-decode.ts';
import { usesEnvironment } from './hooks-effects.ts';
import * as flow from './hooks-flow.ts';
import type { JsCall } from './hooks-javascript-api.ts';
import { itemsOf } from './hooks-javascript-context.ts';

const arg = (c: JsCall, i: number): flow.Value => c.args[i] ?? flow.empty;

function list(c: JsCall, items: readonly flow.Value[] | null, rest: flow.Value): flow.Value {
  const obj = c.site('list');
  if (items !== null) flow.setItems(c.flow, obj, items);
  else flow.addRest(c.flow, obj, rest);
  return { objs: [obj] };
}

const percent = (s: string): string | undefined => {
  try {
    return decodeURIComponent(s);
  } catch {
    return undefined;
  }
};

const codes = (c: JsCall): flow.Value => {
  const values = c.args.length === 1 && itemsOf(arg(c, 0)) ? itemsOf(arg(c, 0))! : c.args;
  const numbers = values.map((v) => v.num);
  const known = numbers.every((n): n is number => n !== undefined) ? charCodes(numbers) : undefined;
  const labels = [
    ...values.flatMap((v) => flow.labelsOf(v)),
    ...(mayBeCode(known) ? ['decoded:String.fromCharCode'] : []),
  ];
  return known === undefined ? { taint: labels } : flow.text(known, labels);
};

type Handler = (c: JsCall) => flow.Value;
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
  'Object.fromEntries': (c) => ({ taint: flow.labelsOf(arg(c, 0)) }),
  'Object.assign': (c) => {
    const target = arg(c, 0);
    for (const source of c.args.slice(1)) {
      for (const obj of target.objs ?? []) {
        for (const from of source.objs ?? []) for (const [k, v] of from.fields) flow.assign(c.flow, obj.fields, k, v);
        flow.addRest(c.flow, obj, flow.dataOf(source));
      }
    }
    return flow.withTaint(
      target,
      c.args.slice(1).flatMap((a) => a.taint ?? []),
    );
  },
  'Reflect.get': (c) => (arg(c, 1).str !== undefined ? c.attribute(arg(c, 0), arg(c, 1).str!) : flow.dataOf(arg(c, 0))),
  'Reflect.apply': (c) => c.callback(arg(c, 0), itemsOf(arg(c, 2)) ?? []),
  'JSON.parse': (c) => ({ taint: flow.labelsOf(arg(c, 0)) }),
  'Array.from': (c) =>
    list(
      c,
      itemsOf(arg(c, 0)) ?? (arg(c, 0).str !== undefined ? [...arg(c, 0).str!].map((ch) => flow.text(ch)) : null),
      flow.elementOf(arg(c, 0)),
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
    if (p.str === undefined) return flow.dataOf(p);
    return flow.text(
      /^\$__dir__(?:\/\.\.)*$/.test(p.str) ? `${p.str}/..` : p.str.includes('/') ? p.str.replace(/\/[^/]*$/, '') : '.',
    );
  },
  'path.normalize': (c) => arg(c, 0),
};

/** `Object.entries(process.env)`: every element of it, the environment read as data. */
function spread(c: JsCall): flow.Value {
  usesEnvironment(c.flow, c.node, arg(c, 0));
  return list(c, null, flow.elementOf(arg(c, 0)));
}

const fromFileUrl = (value: flow.Value): flow.Value =>
  value.str !== undefined ? flow.text(value.str.replace(/^file:\/\//, ''), value.taint) : value;

/** `path.join(__dirname, 'x.js')`: a later absolute part starts again. */
function joinPath(parts: readonly flow.Value[]): flow.Value {
  let out: flow.Value[] = [];
  for (const part of parts) {
    if (part.str !== undefined && /^(?:\/|~)/.test(part.str)) out = [part];
    else out.push(...(out.length > 0 ? [flow.text('/'), part] : [part]));
  }
  return flow.concat(out);
}

/** A builtin by canonical name; undefined when it is none of these. */
export const builtinCall = (c: JsCall): flow.Value | undefined => handlers[c.name]?.(c);

/** `new URL('./x.js', import.meta.url)`: the URL of the file next to the script. */
export function newUrl(c: JsCall): flow.Value {
  const [relative, base] = [arg(c, 0), arg(c, 1)];
  if (relative.str !== undefined && base.str !== undefined && /^file:\/\//.test(base.str))
    return flow.text(`${base.str.replace(/\/[^/]*$/, '')}/${relative.str.replace(/^\.\//, '')}`.replace(/\/\.$/, ''));
  return flow.concat([relative]);
}

/** Methods of text and arrays, folded when known; undefined when the receiver is neither. */
export function valueMethod(c: JsCall, receiver: flow.Value, method: string): flow.Value | undefined {
  if (receiver.str !== undefined || receiver.template !== undefined) return stringMethod(c, receiver, method);
  return arrayMethod(c, receiver, method);
}

/** `split`, `replace`, `slice`, `toLowerCase` … of text, folded when it is known. */
function stringMethod(c: JsCall, receiver: flow.Value, method: string): flow.Value | undefined {
  const known = receiver.str;
  const first = arg(c, 0);
  switch (method) {
    case 'split':
      if (known !== undefined && first.str !== undefined)
        return list(
          c,
          known.split(first.str).map((s) => flow.text(s, receiver.taint)),
          flow.empty,
        );
      return list(c, null, flow.dataOf(receiver));
    case 'concat':
      return flow.concat([receiver, ...c.args]);
    case 'replace':
    case 'replaceAll':
      if (known !== undefined && first.str !== undefined && arg(c, 1).str !== undefined)
        return flow.text(
          method === 'replace' ? known.replace(first.str, arg(c, 1).str!) : known.replaceAll(first.str, arg(c, 1).str!),
          receiver.taint,
        );
      return { taint: flow.labelsOf(receiver) };
    case 'toLowerCase':
    case 'toUpperCase':
    case 'trim':
    case 'toString':
    case 'valueOf':
    case 'normalize':
      if (known === undefined) return receiver;
      return flow.text(
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
        return flow.text(
          method === 'substr' ? known.substr(first.num, arg(c, 1).num) : known[method](first.num, arg(c, 1).num),
          receiver.taint,
        );
      return flow.dataOf(receiver);
    case 'charAt':
    case 'at':
      return known !== undefined && first.num !== undefined
        ? flow.text(known.at(first.num) ?? '', receiver.taint)
        : flow.dataOf(receiver);
    default:
      return undefined;
  }
}

/** `join`, `map`, `reverse`, `reduce`, `push` … of arrays; callbacks are called with the elements. */
function arrayMethod(c: JsCall, receiver: flow.Value, method: string): flow.Value | undefined {
  const first = arg(c, 0);
  const items = itemsOf(receiver);
  if (items === null && !(receiver.objs ?? []).some((o) => o.kind === 'list')) return undefined;
  const element = flow.elementOf(receiver);
  switch (method) {
    case 'join':
      if (items !== null) {
        const sep = first.str ?? ',';
        return flow.concat(items.flatMap((item, i) => (i === 0 ? [item] : [flow.text(sep), item])));
      }
      return { taint: flow.labelsOf(receiver) };
    case 'reverse':
    case 'toReversed':
      return items === null
        ? receiver
        : list(
            c,
            [...items].reverse().map((i) => flow.withTaint(i, ['decoded:reverse'])),
            flow.empty,
          );
    case 'map':
    case 'flatMap':
      if (items !== null && items.length <= 256)
        return list(
          c,
          items.map((item, i) => c.callback(first, [item, { num: i }])),
          flow.empty,
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
            flow.joinAll([element, ...c.args.map(flow.elementOf)]),
          )
        : list(c, null, element);
    case 'forEach':
    case 'find':
    case 'findLast':
    case 'some':
    case 'every':
      return flow.join(c.callback(first, [element]), method.startsWith('find') ? element : flow.empty);
    case 'reduce': {
      if (items !== null && items.length <= 256 && (first.fns ?? []).length > 0) {
        let acc = c.args[1] ?? items[0] ?? flow.empty;
        for (const item of c.args[1] === undefined ? items.slice(1) : items) acc = c.callback(first, [acc, item]);
        return acc;
      }
      return flow.join(c.callback(first, [element, element]), element);
    }
    case 'push':
    case 'unshift':
      for (const obj of receiver.objs ?? []) for (const value of c.args) flow.pushItem(c.flow, obj, value);
      return flow.empty;
    case 'pop':
    case 'shift':
    case 'at':
      return element;
    case 'includes':
    case 'indexOf':
      return flow.empty;
    default:
      return undefined;
  }
}
