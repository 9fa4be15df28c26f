// Python builtins through which a script names things indirectly or hides text: `getattr(os, 'environ')`,
// `__import__('o' + 's')`, `importlib.import_module(…)`, `vars(os)['system']`, `globals()['x']`, and the
// decoders (`base64.b64decode`, `codecs.decode(…, 'rot13')`, `bytes.fromhex`, `zlib.decompress`,
// `marshal.loads`, `chr`, `bytes([…])`, `reversed`). Containers built by `dict()`, `list()` keep what
// they hold.
import { base64, charCodes, decoded, hex, mayBeCode, reverse, rot13 } from './hooks-decode.ts';
import * as flow from './hooks-flow.ts';
import { canonical, libraryAttribute, type PyCall } from './hooks-python-api.ts';
import { arg, type Py } from './hooks-python-context.ts';

const itemsOf = (value: flow.Value | undefined): readonly flow.Value[] | null =>
  (value?.objs ?? []).find((o) => o.items !== null)?.items ?? null;

const codecs: Readonly<Record<string, ((s: string) => string | undefined) | undefined>> = {
  rot13,
  rot_13: rot13,
  hex,
  hex_codec: hex,
  base64,
  base64_codec: base64,
  zlib: undefined,
  zlib_codec: undefined,
  bz2: undefined,
  uu: undefined,
};

type Handler = (c: PyCall) => flow.Value;

const decoder =
  (decode?: (s: string) => string | undefined): Handler =>
  (c) =>
    decoded(arg(c, 0) ?? flow.empty, c.name, decode);

function list(c: PyCall, items: readonly flow.Value[] | null, rest: flow.Value): flow.Value {
  const obj = c.site('list');
  if (items !== null) flow.setItems(c.flow, obj, items);
  else flow.addRest(c.flow, obj, rest);
  return { objs: [obj] };
}

const handlers: Readonly<Record<string, Handler>> = {
  'base64.b64decode': decoder(base64),
  'base64.standard_b64decode': decoder(base64),
  'base64.urlsafe_b64decode': decoder(base64),
  'base64.decodebytes': decoder(base64),
  'base64.decodestring': decoder(base64),
  'base64.b32decode': decoder(),
  'base64.b16decode': decoder(hex),
  'base64.b85decode': decoder(),
  'base64.a85decode': decoder(),
  'binascii.a2b_base64': decoder(base64),
  'binascii.unhexlify': decoder(hex),
  'binascii.a2b_hex': decoder(hex),
  'bytes.fromhex': decoder(hex),
  'bytearray.fromhex': decoder(hex),
  'zlib.decompress': decoder(),
  'gzip.decompress': decoder(),
  'bz2.decompress': decoder(),
  'lzma.decompress': decoder(),
  'marshal.loads': decoder(),
  'codecs.decode': (c) => {
    const encoding = (arg(c, 1, 'encoding')?.str ?? 'utf-8').toLowerCase().replace('-', '_');
    return encoding in codecs
      ? decoded(arg(c, 0) ?? flow.empty, `codecs.decode ${encoding}`, codecs[encoding])
      : (arg(c, 0) ?? flow.empty);
  },
  'codecs.encode': (c) => {
    const encoding = (arg(c, 1, 'encoding')?.str ?? 'utf-8').toLowerCase().replace('-', '_');
    return encoding === 'rot13' || encoding === 'rot_13'
      ? decoded(arg(c, 0) ?? flow.empty, 'codecs.encode rot13', rot13)
      : (arg(c, 0) ?? flow.empty);
  },
  'builtins.chr': (c) => {
    const code = arg(c, 0);
    const known = code?.num === undefined ? undefined : charCodes([code.num]);
    return known === undefined
      ? flow.withTaint(flow.dataOf(code ?? flow.empty), ['decoded:chr'])
      : flow.text(known, mayBeCode(known) ? ['decoded:chr'] : []);
  },
  'builtins.bytes': (c) => {
    const first = arg(c, 0) ?? flow.empty;
    const items = itemsOf(first);
    if (items === null) return first.str !== undefined ? first : flow.dataOf(first);
    const codes = items.map((item) => item.num);
    const known = codes.every((n): n is number => n !== undefined) ? charCodes(codes) : undefined;
    return known === undefined
      ? { taint: [...flow.labelsOf(first), 'decoded:bytes'] }
      : flow.text(known, ['decoded:bytes']);
  },
  'builtins.reversed': (c) => {
    const first = arg(c, 0) ?? flow.empty;
    if (first.str !== undefined)
      return list(
        c,
        [...reverse(first.str)].map((ch) => flow.text(ch, ['decoded:reversed'])),
        flow.empty,
      );
    const items = itemsOf(first);
    return list(c, items && [...items].reverse(), flow.elementOf(first));
  },
  'builtins.list': (c) => containerOf(c),
  'builtins.tuple': (c) => containerOf(c),
  'builtins.set': (c) => containerOf(c),
  'builtins.sorted': (c) => list(c, null, flow.elementOf(arg(c, 0) ?? flow.empty)),
  'builtins.dict': (c) => {
    const first = arg(c, 0);
    const obj = c.site('dict');
    for (const source of first?.objs ?? []) for (const [k, v] of source.fields) flow.assign(c.flow, obj.fields, k, v);
    for (const [k, v] of c.kwargs) flow.assign(c.flow, obj.fields, k, v);
    if (first?.refs?.includes('os.environ')) return { objs: [obj], refs: ['os.environ'], taint: ['env:*'] };
    return first === undefined ? { objs: [obj] } : { objs: [obj], ...(first.taint ? { taint: first.taint } : {}) };
  },
  'builtins.int': (c) => {
    const first = arg(c, 0) ?? flow.empty;
    const n = first.str !== undefined ? parseInt(first.str, arg(c, 1)?.num ?? 10) : first.num;
    return n !== undefined && Number.isSafeInteger(n) ? { num: n } : flow.dataOf(first);
  },
  'builtins.getattr': (c) => {
    const base = arg(c, 0) ?? flow.empty;
    const name = arg(c, 1);
    const fallback = arg(c, 2) ?? flow.empty;
    return flow.join(name?.str !== undefined ? c.attribute(base, name.str) : flow.dataOf(base), fallback);
  },
  'builtins.setattr': (c) => {
    const name = arg(c, 1)?.str;
    if (name !== undefined)
      for (const obj of arg(c, 0)?.objs ?? []) flow.assign(c.flow, obj.fields, name, arg(c, 2) ?? flow.empty);
    return flow.empty;
  },
  'builtins.__import__': (c) => {
    const name = arg(c, 0, 'name')?.str;
    if (name === undefined) return flow.empty;
    const fromlist = arg(c, 3, 'fromlist');
    const full = fromlist !== undefined && (itemsOf(fromlist)?.length ?? 1) > 0;
    return flow.ref(canonical(full ? name : name.split('.')[0]!));
  },
  'importlib.import_module': (c) => {
    const name = arg(c, 0, 'name')?.str;
    return name === undefined ? flow.empty : flow.ref(canonical(name));
  },
  'sys.modules.get': (c) => {
    const name = arg(c, 0)?.str;
    return name === undefined ? flow.empty : flow.ref(canonical(name));
  },
  'builtins.globals': () => flow.ref('globals()'),
  'builtins.locals': () => flow.ref('globals()'),
  'builtins.vars': (c) => {
    const base = arg(c, 0);
    const name = base?.refs?.[0];
    return base === undefined ? flow.ref('globals()') : name !== undefined ? flow.ref(`${name}.__dict__`) : base;
  },
};

/** `list(x)`, `tuple(x)`: the same elements (a string's characters). */
function containerOf(c: PyCall): flow.Value {
  const first = arg(c, 0);
  if (first === undefined) return list(c, [], flow.empty);
  if (first.str !== undefined)
    return list(
      c,
      [...first.str].map((ch) => flow.text(ch, first.taint)),
      flow.empty,
    );
  return list(c, itemsOf(first), flow.elementOf(first));
}

/** A builtin or decoder by canonical name; undefined when it is none of these. */
export const pythonBuiltin = (c: PyCall): flow.Value | undefined => handlers[c.name]?.(c);

const builtins = new Set(
  'exec eval compile open __import__ getattr setattr globals locals vars input dict str bytes bytearray chr ord print len list tuple set sorted reversed map filter repr format breakpoint hasattr isinstance iter next int float bool callable id type zip enumerate range min max sum any all abs round super object'.split(
    ' ',
  ),
);

/** A name as a Python expression reads it: the scopes, then the builtins, then what `*` imports gave. */
export function lookup(py: Py, scope: flow.Scope, name: string): flow.Value {
  const value = scope.lookup(name);
  if (value !== undefined) return value;
  if (name === '__builtins__' || name === 'builtins') return flow.ref('builtins');
  if (builtins.has(name)) return flow.ref(`builtins.${name}`);
  // A name nobody assigned may come from any module imported with `*`.
  return flow.joinAll(py.star.map((module) => libraryAttribute(module, name)));
}
