// Node's library (and the common HTTP and process packages) as the hooks connector models it, by
// canonical name however a script reaches a function (`require('node:child_process')`, `import * as
// cp`, `const { execSync: x } = require(…)`, `globalThis['ev' + 'al']`, `process.mainModule.require`):
// the environment and stdin, files, the network (fetch, http(s).request, axios, got, sockets, UDP, DNS,
// XMLHttpRequest, WebSocket, sendBeacon), programs (child_process, execa, zx), and code run from text
// (eval, Function, vm, a data: URL imported).
import { base64 } from './hooks-decode.ts';
import { execute, readFile, send, usesEnvironment, lookup, type Part } from './hooks-effects.ts';
import {
  assign,
  concat,
  dataOf,
  empty,
  join,
  labelsOf,
  ref,
  text,
  type Flow,
  type Obj,
  type Value,
} from './hooks-flow.ts';
import { canonicalNames } from './hooks-script-common.ts';
import { serialised } from './hooks-sensitive.ts';
import { fetchedFile, runProgram, writeFile, type Nested } from './hooks-programs.ts';
import type { ShellNode } from './hooks-syntax.ts';

export type JsCall = Readonly<{
  flow: Flow;
  node: ShellNode;
  name: string;
  receiver: Value | null;
  args: readonly Value[];
  site: (kind: string) => Obj;
  /** Calls functions of the script given as callbacks, with these arguments; what they return. */
  callback: (callee: Value, args: readonly Value[]) => Value;
  attribute: (base: Value, name: string) => Value;
  /** Code held in a constant string, run as the script's own (`eval`, `new Function`). */
  evaluate: (code: string) => Value;
  nested: Nested;
}>;

const aliases: readonly (readonly [RegExp, string])[] = [
  [/^node:/, ''],
  [/^global\.(?:global|globalThis|window|self)\b/, 'global'],
  [/^global\.(?=\w)/, ''],
  [/^(?:process\.mainModule|module|require\.main)\.require$/, 'require'],
  [/^module\.constructor\._load$/, 'require'],
  [/^(?:Object|Function)\.constructor$/, 'Function'],
  [/^([\w/]+)\.default\b/, '$1'],
  [/^fs\/promises\b/, 'fs'],
  [/^fs\.promises\./, 'fs.'],
  [/^dns(?:\/promises|\.promises)\./, 'dns.'],
  [/^https\./, 'http.'],
  [/^(?:node-fetch|cross-fetch|isomorphic-fetch|undici\.fetch)$/, 'fetch'],
  [/^axios\.create\(\)\./, 'axios.'],
  [/^(?:cross-spawn|cross-spawn\.spawn)$/, 'child_process.spawn'],
  [/^cross-spawn\.sync$/, 'child_process.spawnSync'],
  [/^shelljs\.exec$/, 'child_process.execSync'],
  [/^util\.promisify\(child_process\.(\w+)\)$/, 'child_process.$1'],
  [/^Deno\.env\.get$/, 'process.env.get'],
  [/^tls\.connect$/, 'net.connect'],
  [/^net\.createConnection$/, 'net.connect'],
];

/** The canonical name of a library value however it was reached. */
export const canonical = canonicalNames(aliases);

/** A property of a library value: the environment's variables and stdin are data as well as names. */
export function libraryProperty(
  flow: Flow,
  node: ShellNode,
  base: string,
  name: string,
  read: (name: string | null) => Value,
): Value {
  const full = canonical(`${base}.${name}`);
  if (base === 'process.env') return read(name);
  if (full === 'process.env') return { refs: ['process.env'], taint: ['env:*'] };
  if (full === 'process.stdin') return { refs: ['process.stdin'], taint: ['input:process.stdin'] };
  if (full === 'process.argv') return empty;
  if (full === 'process.execPath' || full === 'process.argv0') return text('node');
  void flow;
  void node;
  return ref(full);
}

const arg = (c: JsCall, i: number): Value => c.args[i] ?? empty;
const field = (value: Value, key: string): Value | undefined => {
  let out: Value | undefined;
  for (const obj of value.objs ?? []) {
    const f = obj.fields.get(key);
    if (f !== undefined) out = out === undefined ? f : join(out, f);
  }
  return out;
};
const fnArgs = (c: JsCall): Value[] => c.args.filter((a) => (a.fns ?? []).length > 0);

/** An object a call makes, with what it was given. */
function made(c: JsCall, kind: string, fields: Readonly<Record<string, Value | undefined>>): Value {
  const obj = c.site(kind);
  for (const [key, value] of Object.entries(fields)) if (value !== undefined) assign(c.flow, obj.fields, key, value);
  return { objs: [obj] };
}

/** The URL of `http.request(url | options, [options])`: `https://host:port/path`. */
function requestUrl(c: JsCall): Value {
  const first = arg(c, 0);
  if (first.str !== undefined || first.template !== undefined || (first.objs ?? []).length === 0) return first;
  const host = field(first, 'hostname') ?? field(first, 'host');
  return host === undefined
    ? dataOf(first)
    : concat([
        text(`${c.name.startsWith('http.') ? 'https' : 'https'}://`),
        host,
        text('/'),
        field(first, 'path') ?? empty,
      ]);
}

function options(c: JsCall, i: number): Value {
  return c.args.slice(i).find((a) => (a.objs ?? []).length > 0) ?? empty;
}

/** `fetch(url, { method, body, headers })`. */
function fetchCall(c: JsCall): Value {
  // `fetch(new Request(url, init))`: the request's URL and init.
  const request = field(arg(c, 0), '@url') === undefined ? null : arg(c, 0);
  const init = request === null ? arg(c, 1) : join(field(request, '@init') ?? empty, arg(c, 1));
  const method = (field(init, 'method')?.str ?? 'GET').toUpperCase();
  const parts: Part[] = [field(init, 'body'), field(init, 'headers')]
    .filter((v): v is Value => v !== undefined)
    .map((value) => ({ value }));
  const target = request === null ? arg(c, 0) : (field(request, '@url') ?? null);
  return send(c.flow, c.node, { via: c.name, target, parts, posts: method !== 'GET' && method !== 'HEAD' });
}

/** `axios.post(url, data, config)`, `axios({ url, method, data })`, `got.post(url, { json })`. */
const client =
  (method: string | null, dataAt: number | null) =>
  (c: JsCall): Value => {
    const config = method === null ? arg(c, (arg(c, 0).objs ?? []).length > 0 ? 0 : 1) : options(c, dataAt ?? 1);
    const target = method === null && (arg(c, 0).objs ?? []).length > 0 ? (field(config, 'url') ?? null) : arg(c, 0);
    const verb = (method ?? field(config, 'method')?.str ?? 'GET').toUpperCase();
    const parts: Part[] = [
      ...(dataAt !== null && c.args[dataAt] !== undefined ? [c.args[dataAt]!] : []),
      ...['data', 'json', 'body', 'form', 'params', 'searchParams', 'headers'].flatMap((k) => field(config, k) ?? []),
    ].map((value) => ({ value }));
    const auth = field(config, 'auth');
    if (auth) parts.push({ value: auth, auth: true });
    return send(c.flow, c.node, { via: c.name, target, parts, posts: verb !== 'GET' && verb !== 'HEAD' });
  };

/** `exec(cmd)`, `execFile(file, args)`, `spawn(cmd, args, { shell })`, `fork(path)`: a program started. */
const program =
  (kind: 'shell' | 'file' | 'fork') =>
  (c: JsCall): Value => {
    const list = (arg(c, 1).objs ?? []).find((o) => o.items !== null || o.rest !== empty);
    const opts = options(c, list ? 2 : 1);
    const shell = kind === 'shell' || (field(opts, 'shell')?.num ?? 0) !== 0 || field(opts, 'shell')?.str !== undefined;
    const argv = [...(kind === 'fork' ? [text('node')] : []), arg(c, 0), ...(list?.items ?? [])];
    const stdin = field(opts, 'input');
    const run = shell
      ? {
          via: c.name,
          command: list?.items ? concat(argv.flatMap((a, i) => (i === 0 ? [a] : [text(' '), a]))) : arg(c, 0),
          ...(stdin ? { stdin } : {}),
        }
      : { via: c.name, argv, ...(list && list.items === null ? { rest: list.rest } : {}), ...(stdin ? { stdin } : {}) };
    const output = runProgram(c.flow, c.node, run, c.nested);
    for (const cb of fnArgs(c)) c.callback(cb, [empty, output, output]);
    if (/Sync$|^child_process\.exec$/.test(c.name)) return output;
    const stdinObj = c.site('process-stdin');
    assign(c.flow, stdinObj.fields, '@argv', { objs: [listOf(c, argv)] });
    return {
      ...made(c, 'process', { stdin: { objs: [stdinObj] }, stdout: output, stderr: output }),
      ...(output.taint ? { taint: output.taint } : {}),
    };
  };

function listOf(c: JsCall, items: readonly Value[]): Obj {
  const obj = c.site('argv');
  obj.items = [...items];
  return obj;
}

/** `eval(code)`, `new Function(a, code)`, `vm.runInThisContext(code)`: code run from text. */
const evaluates =
  (position: 'first' | 'last') =>
  (c: JsCall): Value => {
    const code = position === 'first' ? arg(c, 0) : (c.args.at(-1) ?? empty);
    execute(c.flow, c.node, code, c.name.replace(/^global\./, ''));
    if (code.str === undefined) return dataOf(code);
    // `new Function(body)` is a function whose body is the text: calling it runs it.
    return c.evaluate(position === 'last' ? `(function () {\n${code.str}\n})` : code.str);
  };

/** `require(x)` and `import(x)` of a file the script fetched, or of a `data:` URL: code it runs. */
function load(c: JsCall): Value {
  const spec = arg(c, 0);
  const data = /^data:[^,]*?(;base64)?,(.*)$/s.exec(spec.str ?? '');
  if (data) {
    const code = data[1] ? base64(data[2]!) : decodeURIComponent(data[2]!);
    execute(c.flow, c.node, { taint: ['decoded:a data: URL'] }, c.name);
    if (code !== undefined) c.evaluate(code);
    return empty;
  }
  if (spec.str !== undefined && fetchedFile(c.flow, spec.str))
    execute(c.flow, c.node, { taint: c.flow.files.get(spec.str) ?? [] }, c.name);
  else if (/^https?:/.test(spec.str ?? ''))
    execute(c.flow, c.node, { taint: [`fetched:${spec.str!.replace(/^https?:\/\/([^/]*).*$/, '$1')}`] }, c.name);
  else if (labelsOf(spec).some((l) => l.startsWith('fetched:'))) execute(c.flow, c.node, spec, c.name);
  return spec.str !== undefined && !/^[./]/.test(spec.str) ? ref(canonical(spec.str)) : empty;
}

/** `fs.readFile(path, cb)`, `fs.readFileSync(path)`, `fs.promises.readFile(path)`: the content. */
function fileRead(c: JsCall): Value {
  const content = readFile(c.flow, c.node, arg(c, 0), c.name);
  for (const cb of fnArgs(c)) c.callback(cb, [empty, content]);
  return c.name === 'fs.createReadStream'
    ? { ...made(c, 'read-stream', {}), ...(content.taint ? { taint: content.taint } : {}) }
    : content;
}

type Handler = (c: JsCall) => Value;
const each = (names: string, handler: Handler): [string, Handler][] => names.split(' ').map((n) => [n, handler]);

const handlers = new Map<string, Handler>([
  ...each('process.env.get', (c) => libraryProperty(c.flow, c.node, 'process.env', arg(c, 0).str ?? '', () => empty)),
  ...each('os.homedir', () => text('~')),
  ...each('os.tmpdir', () => text('/tmp')),
  ...each('process.cwd', () => text('.')),
  ...each(
    'fs.readFileSync fs.readFile fs.createReadStream fs.readdirSync fs.readdir fs.opendir fs.opendirSync',
    fileRead,
  ),
  ...each('fs.writeFileSync fs.writeFile fs.appendFileSync fs.appendFile', (c) => {
    writeFile(c.flow, c.node, arg(c, 0), arg(c, 1));
    return empty;
  }),
  ...each('fs.createWriteStream', (c) => made(c, 'write-stream', { '@path': arg(c, 0) })),
  ...each('fs.copyFileSync fs.copyFile fs.cpSync fs.cp fs.renameSync fs.rename', (c) => {
    writeFile(c.flow, c.node, arg(c, 1), readFile(c.flow, c.node, arg(c, 0), c.name));
    return empty;
  }),
  ...each('fetch', fetchCall),
  ...each('axios.get axios.delete axios.head got.get got', client('GET', null)),
  ...each('axios.post got.post', client('POST', 1)),
  ...each('axios.put got.put', client('PUT', 1)),
  ...each('axios.patch got.patch', client('PATCH', 1)),
  ...each('axios axios.request', client(null, null)),
  ...each('axios.create', () => ref('axios')),
  ...each('http.request http.get', (c) => {
    const opts = (arg(c, 0).objs ?? []).length > 0 ? arg(c, 0) : options(c, 1);
    const method = (field(opts, 'method')?.str ?? 'GET').toUpperCase();
    const url = requestUrl(c);
    const response = send(c.flow, c.node, {
      via: c.name,
      target: url,
      parts: [field(opts, 'headers')].filter((v): v is Value => v !== undefined).map((value) => ({ value })),
      posts: false,
    });
    for (const cb of fnArgs(c)) c.callback(cb, [response]);
    return made(c, 'http-request', { '@url': url, '@method': text(method), '@response': response });
  }),
  ...each('net.connect', (c) => {
    const first = arg(c, 0);
    const host =
      (first.objs ?? []).length > 0
        ? (field(first, 'host') ?? text('localhost'))
        : (c.args.find((a, i) => i > 0 && a.str !== undefined) ?? text('localhost'));
    return made(c, 'socket', { '@host': host });
  }),
  ...each('net.Socket dgram.createSocket', (c) => made(c, c.name === 'net.Socket' ? 'socket' : 'udp', {})),
  ...each('dns.lookup dns.resolve dns.resolve4 dns.resolve6 dns.resolveTxt dns.resolveAny dns.resolveCname', (c) => {
    lookup(c.flow, c.node, arg(c, 0), c.name);
    return empty;
  }),
  ...each('XMLHttpRequest', (c) => made(c, 'xhr', {})),
  ...each('Request', (c) => made(c, 'fetch-request', { '@url': arg(c, 0), '@init': arg(c, 1) })),
  ...each('WebSocket', (c) => made(c, 'websocket', { '@url': arg(c, 0) })),
  ...each('navigator.sendBeacon', (c) =>
    send(c.flow, c.node, { via: c.name, target: arg(c, 0), parts: [{ value: arg(c, 1) }], posts: true }),
  ),
  ...each(
    'child_process.exec child_process.execSync execa.execaCommand execa.execaCommandSync execa.command',
    program('shell'),
  ),
  ...each(
    'child_process.execFile child_process.execFileSync child_process.spawn child_process.spawnSync execa execa.execa execa.execaSync execa.sync',
    program('file'),
  ),
  ...each('child_process.fork', program('fork')),
  ...each(
    'eval vm.runInThisContext vm.runInNewContext vm.runInContext vm.Script module._compile setTimeout setInterval',
    evaluates('first'),
  ),
  ...each('Function vm.compileFunction', evaluates('last')),
  ...each('require import', load),
  ...each('JSON.stringify String', (c) => {
    const value = arg(c, 0);
    usesEnvironment(c.flow, c.node, value);
    return serialised(value);
  }),
  ...each('console.log console.error console.info console.warn process.stdout.write', (c) => {
    for (const value of c.args) usesEnvironment(c.flow, c.node, value);
    return empty;
  }),
]);

/** A library function by canonical name; undefined when the model does not know it. */
export const libraryCall = (c: JsCall): Value | undefined => {
  // A timer given a function calls it; given text it evaluates it.
  if ((c.name === 'setTimeout' || c.name === 'setInterval') && (arg(c, 0).fns ?? []).length > 0) return undefined;
  return handlers.get(c.name)?.(c);
};

const sends = (c: JsCall, via: string, target: Value | null, value: Value): Value =>
  send(c.flow, c.node, { via, target, parts: [{ value }], posts: true });

/** Methods of the objects library calls return: a request, a socket, a stream, a child process's stdin. */
export function objectMethod(c: JsCall, obj: Obj, method: string): Value | undefined {
  const f = (key: string) => obj.fields.get(key);
  const via = `${obj.kind}.${method}`;
  switch (`${obj.kind}.${method}`) {
    case 'http-request.write':
    case 'http-request.end':
      if (c.args[0] === undefined || (c.args[0].fns ?? []).length > 0) return empty;
      return sends(
        c,
        `${c.flow.names.env === 'process.env' ? 'http.request' : 'request'} ${method}`,
        f('@url') ?? null,
        arg(c, 0),
      );
    case 'xhr.open':
      assign(c.flow, obj.fields, '@url', arg(c, 1));
      return empty;
    case 'xhr.send':
      return sends(c, 'XMLHttpRequest.send', f('@url') ?? null, arg(c, 0));
    case 'socket.connect':
      assign(
        c.flow,
        obj.fields,
        '@host',
        c.args.find((a) => a.str !== undefined) ?? field(arg(c, 0), 'host') ?? text('localhost'),
      );
      return empty;
    case 'socket.write':
    case 'socket.end':
      return c.args[0] === undefined ? empty : sends(c, `net.Socket.${method}`, f('@host') ?? null, arg(c, 0));
    case 'udp.send':
      return sends(c, 'dgram.send', c.args.slice(1).find((a) => a.str !== undefined) ?? null, arg(c, 0));
    case 'websocket.send':
      return sends(c, 'WebSocket.send', f('@url') ?? null, arg(c, 0));
    case 'write-stream.write':
    case 'write-stream.end':
      writeFile(c.flow, c.node, f('@path') ?? empty, arg(c, 0));
      return empty;
    case 'process-stdin.write':
    case 'process-stdin.end': {
      const argv = (f('@argv')?.objs ?? [])[0]?.items ?? [];
      if (c.args[0] !== undefined)
        runProgram(c.flow, c.node, { via: `${via} of a child process`, argv, stdin: arg(c, 0) }, c.nested);
      return empty;
    }
    default:
      return undefined;
  }
}

/** `readable.pipe(destination)`: what a stream carries goes where the destination writes or sends. */
export function pipe(c: JsCall, source: Value, destination: Value): void {
  for (const obj of destination.objs ?? []) {
    if (obj.kind === 'write-stream') writeFile(c.flow, c.node, obj.fields.get('@path') ?? empty, source);
    if (obj.kind === 'http-request') sends(c, 'a request a stream is piped to', obj.fields.get('@url') ?? null, source);
    if (obj.kind === 'socket') sends(c, 'a socket a stream is piped to', obj.fields.get('@host') ?? null, source);
    if (obj.kind === 'process-stdin') {
      const argv = (obj.fields.get('@argv')?.objs ?? [])[0]?.items ?? [];
      runProgram(c.flow, c.node, { via: 'a child process a stream is piped to', argv, stdin: source }, c.nested);
    }
  }
}
