// The Python library as the hooks connector models it, by canonical name however a script reaches a
// function (`import urllib.request as u`, `from os import environ as E`, `__import__('os')`,
// `getattr(os, 'environ')`, `sys.modules['os']`): where data comes from (the environment, stdin, files,
// the network), where it goes (HTTP clients, sockets, DNS, mail), what runs code or programs, and the
// objects those calls return (a request, a socket, a connection, an open file, an archive, a process).
import {
  credentialPath,
  execute,
  lookup,
  readEnv,
  readFile,
  readKeychain,
  send,
  usesEnvironment,
  type Part,
} from './hooks-effects.ts';
import {
  addRest,
  assign,
  concat,
  dataOf,
  elementOf,
  empty,
  join,
  ref,
  text,
  textOf,
  type Value,
} from './hooks-flow.ts';
import { canonicalNames } from './hooks-script-common.ts';
import { serialised } from './hooks-sensitive.ts';
import { fetchedFile, runProgram, writeFile } from './hooks-programs.ts';
import { arg, hostOfAddress, type PyCall } from './hooks-python-context.ts';

export type { PyCall } from './hooks-python-context.ts';

const aliases: readonly (readonly [RegExp, string])[] = [
  [/^urllib2\./, 'urllib.request.'],
  [/^urllib\.(urlopen|urlretrieve|Request)$/, 'urllib.request.$1'],
  [/^six\.moves\.urllib\./, 'urllib.'],
  [/^(?:posix|nt)\./, 'os.'],
  [/^(?:posixpath|ntpath)\./, 'os.path.'],
  [/^__builtin__\./, 'builtins.'],
  [/^(?:io|codecs)\.open$/, 'builtins.open'],
  [/^importlib\.__import__$/, 'builtins.__import__'],
  [/^(?:requests\.(?:sessions\.)?[Ss]ession|httpx\.(?:Async)?Client|aiohttp\.ClientSession)\(\)\./, '$MODULE.'],
  [/^urllib\.request\.(?:build_opener|OpenerDirector)\(\)\.open$/, 'urllib.request.urlopen'],
  [/^pathlib\.(?:Posix|Windows|Pure|PurePosix|PureWindows)Path\b/, 'pathlib.Path'],
  [/^http\.client\.HTTPS?Connection\b/, 'http.client.HTTPConnection'],
  [/^smtplib\.SMTP(?:_SSL)?\b/, 'smtplib.SMTP'],
  [/^commands\./, 'subprocess.'],
];

/** The canonical name of a library function however it was reached. */
export const canonical = canonicalNames(aliases);

/** An attribute of a library name: the environment and stdin are data sources as well as objects. */
export function libraryAttribute(base: string, name: string): Value {
  const full = canonical(`${base}.${name}`);
  if (full === 'os.environ' || full === 'os.environb') return { refs: ['os.environ'], taint: ['env:*'] };
  if (full === 'sys.stdin' || full === 'sys.__stdin__') return { refs: ['sys.stdin'], taint: ['input:sys.stdin'] };
  if (full === 'sys.executable') return text('python3');
  return ref(full);
}

/** `os.environ['X']`, `sys.modules['os']`, `vars(os)['system']`, `globals()['x']`; undefined when not a library subscript. */
export function librarySubscript(c: PyCall, base: string, key: Value): Value | undefined {
  if (base === 'os.environ') return readEnv(c.flow, c.node, key.str ?? null);
  if (base === 'sys.modules') return key.str === undefined ? empty : ref(canonical(key.str));
  if (base.endsWith('.__dict__') && key.str !== undefined) return c.attribute(ref(base.slice(0, -9)), key.str);
  if (base === 'globals()' && key.str !== undefined) return c.lookup(key.str);
  return undefined;
}

const truthy = (value: Value | undefined): boolean => value !== undefined && (value.num ?? 0) !== 0;

const envRead = (c: PyCall): Value => {
  const name = arg(c, 0, 'key');
  const fallback = arg(c, 1, 'default');
  const value = readEnv(c.flow, c.node, name?.str ?? null);
  return fallback === undefined ? value : join(value, fallback);
};

/** A path the script builds with `os.path.join` or pathlib: a later absolute part starts again. */
export function joinPaths(parts: readonly Value[]): Value {
  let out: Value[] = [];
  for (const part of parts) {
    if (part.str !== undefined && /^(?:\/|~)/.test(part.str)) out = [part];
    else out.push(...(out.length > 0 ? [text('/'), part] : [part]));
  }
  return concat(out);
}

export const dirnameOf = (path: Value): Value => {
  const known = path.str;
  // The script's own directory, and those above it, as hooks-reach.ts resolves them.
  if (known !== undefined && /^\$__dir__(?:\/\.\.)*$/.test(known)) return text(`${known}/..`, path.taint);
  if (known === undefined)
    return path.template === undefined
      ? dataOf(path)
      : { ...dataOf(path), template: `${path.template.replace(/\/[^/]*$/, '')}` };
  return text(known.includes('/') ? known.replace(/\/[^/]*$/, '') || '/' : '.', path.taint);
};

/** What a request carries besides its URL: the data, the headers (by key), `auth=`, the query. */
function requestParts(c: PyCall, skip: number): Part[] {
  const parts: Part[] = [];
  for (const key of ['data', 'json', 'files', 'params', 'body', 'content']) {
    const value = c.kwargs.get(key);
    if (value !== undefined) parts.push({ value });
  }
  for (const value of c.args.slice(skip + 1)) parts.push({ value });
  const headers = c.kwargs.get('headers');
  if (headers !== undefined) parts.push({ value: headers });
  for (const key of ['auth', 'cookies']) {
    const value = c.kwargs.get(key);
    if (value !== undefined) parts.push({ value, auth: true });
  }
  return parts;
}

/** `requests.post(url, json=…)`, `httpx.request('POST', url, …)`: a send, and the response as fetched data. */
const httpClient =
  (method: string | null) =>
  (c: PyCall): Value => {
    const verb = (method ?? c.args[0]?.str ?? c.kwargs.get('method')?.str ?? 'GET').toUpperCase();
    const skip = method === null ? 1 : 0;
    const parts = requestParts(c, skip);
    const target = arg(c, skip, 'url') ?? null;
    return send(c.flow, c.node, { via: c.name, target, parts, posts: verb !== 'GET' && verb !== 'HEAD' });
  };

/** `urlopen(url_or_request, data)`: the request's URL, data and headers. */
function urlopen(c: PyCall): Value {
  const first = arg(c, 0, 'url') ?? empty;
  const request = (first.objs ?? []).find((o) => o.kind === 'request');
  const field = (key: string) => request?.fields.get(key);
  const target = request ? (field('@url') ?? null) : first;
  const data = arg(c, 1, 'data') ?? field('@data');
  const parts: Part[] = [data, field('@headers')]
    .filter((v): v is Value => v !== undefined)
    .map((value) => ({ value }));
  const posts = data !== undefined || /^(?:POST|PUT|PATCH)$/i.test(field('@method')?.str ?? '');
  return send(c.flow, c.node, { via: 'urllib.request.urlopen', target, parts, posts });
}

/** An object a constructor makes, with what it was given. */
function made(
  c: PyCall,
  kind: string,
  fields: Readonly<Record<string, Value | undefined>>,
  refs: readonly string[] = [],
): Value {
  const obj = c.site(kind);
  for (const [key, value] of Object.entries(fields)) if (value !== undefined) assign(c.flow, obj.fields, key, value);
  return { objs: [obj], ...(refs.length > 0 ? { refs } : {}) };
}

/** `subprocess.run([...], shell=, input=)`, `os.system(cmd)`: a program started. */
const program =
  (shell: boolean | 'kwarg', argIndex = 0) =>
  (c: PyCall): Value => {
    const first = arg(c, argIndex, 'args') ?? empty;
    const viaShell = shell === true || (shell === 'kwarg' && truthy(c.kwargs.get('shell')));
    const list = (first.objs ?? []).find((o) => o.items !== null || o.rest !== empty);
    const stdin = c.kwargs.get('input');
    const run = viaShell
      ? { via: c.name, command: list?.items?.[0] ?? first, ...(stdin ? { stdin } : {}) }
      : {
          via: c.name,
          argv: list?.items ?? (first.str !== undefined ? [first] : c.args.slice(argIndex)),
          ...(list && list.items === null ? { rest: list.rest } : {}),
          ...(stdin ? { stdin } : {}),
        };
    const output = runProgram(c.flow, c.node, run, c.nested);
    return c.name === 'subprocess.Popen' ? made(c, 'process', { '@argv': first, '@output': output }) : output;
  };

const exec =
  (expression: boolean) =>
  (c: PyCall): Value => {
    const code = arg(c, 0, 'source') ?? empty;
    execute(c.flow, c.node, code, c.name.replace(/^builtins\./, ''));
    if (code.str !== undefined) return c.evaluate(code.str, expression);
    return expression ? dataOf(code) : empty;
  };

type Handler = (c: PyCall) => Value;
const each = (names: string, handler: Handler): [string, Handler][] => names.split(' ').map((n) => [n, handler]);

const handlers = new Map<string, Handler>([
  ...each('os.getenv os.getenvb os.environ.get os.environ.pop os.environ.setdefault', envRead),
  ...each('os.environ.copy', () => ({ refs: ['os.environ'], taint: ['env:*'] })),
  ...each('os.environ.items os.environ.values os.environ.keys', (c) => {
    usesEnvironment(c.flow, c.node, { taint: ['env:*'] });
    return { taint: ['env:*'] };
  }),
  ...each('builtins.input fileinput.input', () => ({ taint: ['input:stdin'] })),
  ...each('os.read', (c) => (arg(c, 0)?.num === 0 ? { taint: ['input:stdin'] } : empty)),
  ...each('builtins.open', (c) => {
    const path = arg(c, 0, 'file') ?? empty;
    const mode = arg(c, 1, 'mode')?.str ?? 'r';
    const writes = /[wax+]/.test(mode);
    const content = writes ? empty : readFile(c.flow, c.node, path, 'open');
    return { ...made(c, 'file', { '@path': path }), ...(content.taint ? { taint: content.taint } : {}) };
  }),
  ...each('pathlib.Path', (c) => ({ ...joinPaths(c.args), refs: ['pathlib.Path()'] })),
  ...each('pathlib.Path.home os.path.expanduser', (c) => ({ ...(arg(c, 0) ?? text('~')), refs: ['pathlib.Path()'] })),
  ...each('pathlib.Path.cwd os.getcwd', () => ({ str: '.', refs: ['pathlib.Path()'] })),
  ...each('pathlib.Path().read_text pathlib.Path().read_bytes', (c) =>
    readFile(c.flow, c.node, c.receiver ?? empty, 'pathlib'),
  ),
  ...each('pathlib.Path().write_text pathlib.Path().write_bytes', (c) => {
    writeFile(c.flow, c.node, c.receiver ?? empty, arg(c, 0, 'data') ?? empty);
    return empty;
  }),
  ...each('pathlib.Path().open', (c) => {
    const mode = arg(c, 0, 'mode')?.str ?? 'r';
    const content = /[wax+]/.test(mode) ? empty : readFile(c.flow, c.node, c.receiver ?? empty, 'pathlib');
    return { ...made(c, 'file', { '@path': c.receiver ?? empty }), ...(content.taint ? { taint: content.taint } : {}) };
  }),
  ...each('pathlib.Path().joinpath', (c) => ({
    ...joinPaths([c.receiver ?? empty, ...c.args]),
    refs: ['pathlib.Path()'],
  })),
  ...each('pathlib.Path().expanduser pathlib.Path().resolve pathlib.Path().absolute', (c) => c.receiver ?? empty),
  ...each('pathlib.Path().iterdir pathlib.Path().glob pathlib.Path().rglob', (c) => {
    const dir = c.receiver ?? empty;
    return credentialPath(dir) !== null ? readFile(c.flow, c.node, dir, c.name) : dataOf(dir);
  }),
  ...each('os.path.join', (c) => joinPaths(c.args)),
  ...each('os.path.dirname', (c) => dirnameOf(arg(c, 0) ?? empty)),
  ...each('os.path.abspath os.path.realpath os.path.normpath os.path.expandvars', (c) => arg(c, 0) ?? empty),
  ...each('os.listdir os.scandir os.walk glob.glob glob.iglob', (c) => {
    const dir = arg(c, 0) ?? text('.');
    const read = credentialPath(dir) !== null ? readFile(c.flow, c.node, dir, c.name) : dataOf(dir);
    // What `glob` gives are paths under the pattern (`~/.claude/projects/\u0001`), each read later.
    const start = textOf(dir);
    if (!c.name.startsWith('glob.') || start === undefined) return read;
    const list = c.site('list');
    addRest(c.flow, list, { ...read, template: start.replace(/\*+/g, '\u0001') });
    return { objs: [list] };
  }),
  ...each('shutil.copy shutil.copy2 shutil.copyfile shutil.copytree shutil.move', (c) => {
    const content = readFile(c.flow, c.node, arg(c, 0, 'src') ?? empty, c.name);
    writeFile(c.flow, c.node, arg(c, 1, 'dst') ?? empty, content);
    return arg(c, 1, 'dst') ?? empty;
  }),
  ...each('shutil.make_archive', (c) => {
    const root = arg(c, 2, 'root_dir') ?? text('.');
    const format = arg(c, 1, 'format')?.str ?? 'zip';
    const archive = concat([
      arg(c, 0, 'base_name') ?? empty,
      text(format === 'zip' ? '.zip' : `.${format.replace('gztar', 'tar.gz')}`),
    ]);
    writeFile(c.flow, c.node, archive, readFile(c.flow, c.node, root, c.name));
    return archive;
  }),
  ...each('tarfile.open zipfile.ZipFile', (c) =>
    made(c, 'archive', { '@path': arg(c, 0, 'name') ?? arg(c, 0, 'file') }),
  ),
  ...each('keyring.get_password keyring.get_credential', (c) => readKeychain(c.flow, c.node, c.name)),
  ...each('urllib.request.urlopen', urlopen),
  ...each('urllib.request.Request', (c) =>
    made(c, 'request', {
      '@url': arg(c, 0, 'url'),
      '@data': arg(c, 1, 'data'),
      '@headers': arg(c, 2, 'headers'),
      '@method': c.kwargs.get('method'),
    }),
  ),
  ...each('urllib.request.urlretrieve', (c) => {
    const fetched = send(c.flow, c.node, { via: c.name, target: arg(c, 0, 'url') ?? null, parts: [], posts: false });
    const path = arg(c, 1, 'filename');
    if (path) writeFile(c.flow, c.node, path, fetched);
    return path ?? empty;
  }),
  ...each('urllib.request.build_opener', () => ref('urllib.request.build_opener()')),
  ...each('requests.get httpx.get aiohttp.get requests.head httpx.head', httpClient('GET')),
  ...each('requests.post httpx.post aiohttp.post', httpClient('POST')),
  ...each('requests.put httpx.put aiohttp.put', httpClient('PUT')),
  ...each('requests.patch httpx.patch aiohttp.patch', httpClient('PATCH')),
  ...each('requests.delete httpx.delete aiohttp.delete', httpClient('DELETE')),
  ...each('requests.request httpx.request aiohttp.request httpx.stream', httpClient(null)),
  ...each('requests.Session requests.session httpx.Client httpx.AsyncClient aiohttp.ClientSession', (c) =>
    ref(`${c.name}()`),
  ),
  ...each('webbrowser.open webbrowser.open_new webbrowser.open_new_tab', (c) =>
    send(c.flow, c.node, { via: c.name, target: arg(c, 0, 'url') ?? null, parts: [], posts: false }),
  ),
  ...each('http.client.HTTPConnection', (c) => made(c, 'http-connection', { '@host': arg(c, 0, 'host') })),
  ...each('smtplib.SMTP', (c) => made(c, 'smtp', { '@host': arg(c, 0, 'host') })),
  ...each('socket.socket', (c) => made(c, 'socket', {})),
  ...each('socket.create_connection', (c) => made(c, 'socket', { '@host': hostOfAddress(arg(c, 0, 'address')) })),
  ...each(
    'socket.gethostbyname socket.gethostbyname_ex socket.getaddrinfo dns.resolver.resolve dns.resolver.query',
    (c) => {
      lookup(c.flow, c.node, arg(c, 0) ?? empty, c.name);
      return empty;
    },
  ),
  ...each('builtins.exec', exec(false)),
  ...each('builtins.eval', exec(true)),
  ...each('builtins.compile', (c) => dataOf(arg(c, 0, 'source') ?? empty)),
  ...each('pickle.loads pickle.load dill.loads cloudpickle.loads', (c) => {
    execute(c.flow, c.node, arg(c, 0) ?? empty, c.name);
    return empty;
  }),
  ...each('importlib.util.spec_from_file_location importlib.machinery.SourceFileLoader', (c) => {
    const path = arg(c, 1, 'location')?.str ?? arg(c, 1, 'path')?.str;
    if (path !== undefined && fetchedFile(c.flow, path))
      execute(c.flow, c.node, { taint: c.flow.files.get(path) ?? [] }, c.name);
    return empty;
  }),
  ...each('runpy.run_path', (c) => {
    const path = arg(c, 0)?.str;
    if (path !== undefined && fetchedFile(c.flow, path))
      execute(c.flow, c.node, { taint: c.flow.files.get(path) ?? [] }, c.name);
    return empty;
  }),
  ...each(
    'os.system os.popen subprocess.getoutput subprocess.getstatusoutput asyncio.create_subprocess_shell',
    program(true),
  ),
  ...each(
    'subprocess.run subprocess.call subprocess.check_call subprocess.check_output subprocess.Popen',
    program('kwarg'),
  ),
  ...each('pty.spawn', program(false)),
  ...each('os.execv os.execvp os.execve os.execvpe', program(false, 1)),
  ...each('os.spawnv os.spawnvp os.spawnve os.spawnvpe os.posix_spawn os.posix_spawnp', program(false, 2)),
  ...each('os.execl os.execlp os.execle os.execlpe asyncio.create_subprocess_exec', (c) =>
    runProgram(c.flow, c.node, { via: c.name, argv: c.name.startsWith('os.') ? c.args.slice(1) : c.args }, c.nested),
  ),
  ...each('json.dumps builtins.str builtins.repr builtins.format', (c) => {
    const value = arg(c, 0) ?? empty;
    usesEnvironment(c.flow, c.node, value);
    return serialised(value);
  }),
  ...each('builtins.print', (c) => {
    for (const value of c.args) usesEnvironment(c.flow, c.node, value);
    return empty;
  }),
  ...each(
    'builtins.len builtins.isinstance builtins.hasattr builtins.bool builtins.callable builtins.id builtins.type',
    () => empty,
  ),
  ...each('builtins.next builtins.iter builtins.filter', (c) => elementOf(arg(c, 0) ?? empty)),
  ...each('threading.Thread multiprocessing.Process', (c) => {
    const target = c.kwargs.get('target');
    const args = (c.kwargs.get('args')?.objs ?? [])[0]?.items ?? [];
    if (target) c.invoke(target, args);
    return empty;
  }),
  ...each('builtins.map', (c) => c.invoke(arg(c, 0) ?? empty, [elementOf(arg(c, 1) ?? empty)])),
]);

/** A library function, by canonical name; undefined when the model does not know it. */
export const libraryCall = (c: PyCall): Value | undefined => handlers.get(c.name)?.(c);
