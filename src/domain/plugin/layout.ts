// The plugin layout of a marketplace tree (plugin-format.md sections 1 and 2), read tolerantly: what each
// plugin entry installs, where every piece is declared, and the problems met on the way. It never throws:
// a declaration that cannot be read is left out and recorded, so one bad file hides nothing else.
//
// Pure: it reads the in-memory tree only. JSON and YAML frontmatter are parsed here (not with a package,
// since src/domain imports src/domain only) by readers that remember the line of every key, which is what
// findings and inventory locations need.
import { locationOf, type ScanFile, type ScanInput } from '../vetting/findings.ts';
import { manifestPath, relativeSourceProblem } from '../snapshot/manifest-policy.ts';

export type ProblemArea = 'marketplace' | 'plugin' | 'skills' | 'commands' | 'agents' | 'hooks' | 'mcpServers' | 'lspServers';
/** syntax: the file is not valid JSON; escapes: a path leaves the plugin (or repository); missing: a declared path has no file. */
export type ProblemKind = 'syntax' | 'invalid' | 'escapes' | 'missing' | 'unsupported';
export type LayoutProblem = Readonly<{ location: string; message: string; area: ProblemArea; kind: ProblemKind }>;
/** A file the layout needed but could not read because it is over the scanning size limit. */
export type Unread = Readonly<{ file: ScanFile; area: ProblemArea }>;

/** A parsed JSON or YAML document that remembers the line of every object, array item and key. */
export type Doc = Readonly<{ value: unknown; lineOf: (node: unknown, key?: string | number) => number }>;

export type JsonRead =
  | Readonly<{ status: 'missing'; path: string }>
  | Readonly<{ status: 'oversized'; path: string; file: ScanFile }>
  | Readonly<{ status: 'invalid'; path: string; line: number; message: string }>
  | Readonly<{ status: 'ok'; path: string; doc: Doc }>;

export type Skill = Readonly<{ name: string; path: string; dir: string }>;
export type MarkdownComponent = Readonly<{ name: string; path: string }>;
export type Hook = Readonly<{
  event: string;
  matcher: string | null;
  /** command, prompt, http, mcp_tool, agent… as declared. */
  type: string;
  /** The command line, prompt text, URL or tool the handler runs. */
  runs: string;
  location: string;
  /** `plugin`, `skill <name>` or `agent <name>`. */
  declaredBy: string;
}>;
export type ServerConfig = Readonly<{
  command: string | null;
  args: readonly string[];
  url: string | null;
  type: string | null;
  env: Readonly<Record<string, string>>;
}>;
export type Server = Readonly<{ name: string; path: string; location: string; config: ServerConfig }>;

export type PluginLayout = Readonly<{
  name: string;
  description: string | null;
  /** As written; object sources in short form (`github:owner/repo`). */
  source: string;
  /** The plugin directory inside the repository ('' for the root); null when the content is not in the tree. */
  root: string | null;
  /** Some file exists under root. */
  found: boolean;
  strict: boolean;
  /** The entry in marketplace.json and its line. */
  entry: Readonly<Record<string, unknown>>;
  entryLine: number;
  /** `<root>/.claude-plugin/plugin.json`; null when root is null. */
  pluginJson: JsonRead | null;
  skills: readonly Skill[];
  commands: readonly MarkdownComponent[];
  agents: readonly MarkdownComponent[];
  hooks: readonly Hook[];
  mcpServers: readonly Server[];
  lspServers: readonly Server[];
}>;

export type MarketplaceLayout = Readonly<{
  manifest: JsonRead;
  plugins: readonly PluginLayout[];
  problems: readonly LayoutProblem[];
  unread: readonly Unread[];
  /** Every file path under a directory ('' for all), sorted; a range lookup, not a scan. */
  under: (dir: string) => readonly string[];
}>;

export const pluginManifestPath = '.claude-plugin/plugin.json';
/** Component fields a plugin.json or an entry may declare. */
export const componentFields = ['skills', 'commands', 'agents', 'hooks', 'mcpServers', 'lspServers'] as const;

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const join = (...parts: string[]): string => parts.filter((part) => part !== '').join('/');
const basename = (path: string): string => path.slice(path.lastIndexOf('/') + 1);
const dirname = (path: string): string => (path.includes('/') ? path.slice(0, path.lastIndexOf('/')) : '');

/** Offset → line (from 1), by binary search over the line starts. */
export function lineIndex(text: string): (offset: number) => number {
  const starts = [0];
  for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) starts.push(at + 1);
  return (offset) => {
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo + 1;
  };
}

type Marks = WeakMap<object, { line: number; keys: Map<string | number, number> }>;

const docOf = (value: unknown, marks: Marks): Doc => ({
  value,
  lineOf: (node, key) => {
    const mark = typeof node === 'object' && node !== null ? marks.get(node) : undefined;
    return (key === undefined ? mark?.line : (mark?.keys.get(key) ?? mark?.line)) ?? 1;
  },
});

// `__proto__` as a JSON key is an own property for JSON.parse; plain assignment would set the prototype.
const setKey = (object: Json, key: string, value: unknown): void => {
  Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true });
};

class JsonError extends Error {
  constructor(readonly offset: number) { super('invalid JSON'); }
}

/**
 * JSON with lines; an invalid text gives the line of the error and a message that does not echo it. A strict
 * RFC 8259 reader of its own, because JSON.parse gives no position for many errors on Node 20.
 */
export function parseJson(text: string): Doc | Readonly<{ line: number; message: string }> {
  const line = lineIndex(text);
  const marks: Marks = new WeakMap();
  let i = 0;
  const fail = (): never => { throw new JsonError(i); };
  const skip = () => { while (i < text.length && ' \t\n\r'.includes(text[i]!)) i++; };
  const expect = (char: string) => { if (text[i] !== char) fail(); i++; };
  const stringToken = /"(?:[^"\\\u0000-\u001f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"/y;
  const literal = /true|false|null|-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
  const token = (pattern: RegExp): string => {
    pattern.lastIndex = i;
    const match = pattern.exec(text) ?? fail();
    i += match[0].length;
    return match[0];
  };
  const string = (): string => JSON.parse(token(stringToken)) as string;
  const value = (): unknown => {
    skip();
    const keys = new Map<string | number, number>();
    const mark = { line: line(i), keys };
    if (text[i] === '{') {
      const object: Json = {};
      marks.set(object, mark);
      i++;
      skip();
      if (text[i] === '}') { i++; return object; }
      for (;;) {
        skip();
        const keyLine = line(i);
        const key = string();
        skip();
        expect(':');
        setKey(object, key, value());
        keys.set(key, keyLine);
        skip();
        if (text[i] === '}') { i++; return object; }
        expect(',');
      }
    }
    if (text[i] === '[') {
      const list: unknown[] = [];
      marks.set(list, mark);
      i++;
      skip();
      if (text[i] === ']') { i++; return list; }
      for (;;) {
        skip();
        keys.set(list.length, line(i));
        list.push(value());
        skip();
        if (text[i] === ']') { i++; return list; }
        expect(',');
      }
    }
    if (text[i] === '"') return string();
    return JSON.parse(token(literal));
  };
  try {
    const root = value();
    skip();
    if (i < text.length) fail();
    return docOf(root, marks);
  } catch (error) {
    if (!(error instanceof JsonError)) return { line: 1, message: 'is too deeply nested to read' };
    const at = line(Math.min(error.offset, text.length));
    return { line: at, message: `is not valid JSON (line ${at})` };
  }
}

/** A needed JSON file of the tree, read. */
export function readJson(path: string, file: ScanFile | undefined): JsonRead {
  if (file === undefined) return { status: 'missing', path };
  if (file.oversized) return { status: 'oversized', path, file };
  if (file.text === null) return { status: 'invalid', path, line: 1, message: 'is a binary file, not JSON' };
  const parsed = parseJson(file.text);
  return 'value' in parsed ? { status: 'ok', path, doc: parsed } : { status: 'invalid', path, ...parsed };
}

// --- YAML frontmatter -------------------------------------------------------------------------------
// A subset reader: block mappings and sequences, plain, quoted and block scalars, one-line (or bracket-
// balanced) flow collections, comments. Anchors, aliases and tags are refused rather than guessed at.

class YamlError extends Error {
  constructor(readonly line: number, message: string) { super(message); }
}

const keyPattern = /^(?:"((?:[^"\\]|\\.)*)"|'((?:[^']|'')*)'|([^\s'"#[\]{},&*!|>%@`][^#]*?))[ \t]*:(?:[ \t]+(.*)|$)/;
const isItem = (text: string): boolean => text === '-' || text.startsWith('- ');

const doubleEscapes: Readonly<Record<string, string>> = {
  n: '\n', t: '\t', r: '\r', '0': '\0', e: '\x1b', a: '\x07', b: '\b', f: '\f', v: '\v', N: '\u0085', _: '\u00a0', L: '\u2028', P: '\u2029',
};
const unescapeDouble = (body: string): string =>
  body.replace(/\\(x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|[\s\S])/g, (_, escape: string) =>
    escape.length > 1 ? String.fromCodePoint(parseInt(escape.slice(1), 16)) : (doubleEscapes[escape] ?? escape));

const plainScalar = (text: string): unknown => {
  if (/^(?:null|Null|NULL|~|)$/.test(text)) return null;
  if (/^(?:true|True|TRUE)$/.test(text)) return true;
  if (/^(?:false|False|FALSE)$/.test(text)) return false;
  if (/^[-+]?(?:\d+|\d*\.\d+)(?:[eE][-+]?\d+)?$/.test(text)) return Number(text);
  return text;
};

/** Where a quoted scalar or a flow collection starting at 0 ends (exclusive), or -1 if the text is cut. */
function flowEnd(text: string): number {
  let depth = 0;
  for (let k = 0; k < text.length; k++) {
    const c = text[k]!;
    if (c === '"') { for (k++; k < text.length && text[k] !== '"'; k++) if (text[k] === '\\') k++; if (k >= text.length) return -1; }
    else if (c === "'") { for (k++; k < text.length && !(text[k] === "'" && text[k + 1] !== "'"); k++) if (text[k] === "'") k++; if (k >= text.length) return -1; }
    else if (c === '[' || c === '{') depth++;
    else if (c === ']' || c === '}') depth--;
    if (depth <= 0) return k + 1;
  }
  return -1;
}

function parseYaml(source: readonly string[], firstLine: number): Doc {
  const marks: Marks = new WeakMap();
  let i = 0;
  // A sequence item's inline content (`- key: value`), read as if it were a line of its own.
  let pending: { indent: number; text: string } | null = null;
  const lineNo = () => firstLine + i;
  const fail = (message: string): never => { throw new YamlError(lineNo(), message); };
  const current = (): { indent: number; text: string } | null => {
    if (pending) return pending;
    for (; i < source.length; i++) {
      const raw = source[i]!;
      const text = raw.trim();
      if (text === '' || text.startsWith('#')) continue;
      const indent = raw.length - raw.trimStart().length;
      if (raw.slice(0, indent).includes('\t')) fail('tabs in indentation');
      return { indent, text };
    }
    return null;
  };
  const advance = () => { if (pending) pending = null; i++; };

  const flow = (text: string, line: number): unknown => {
    let k = 0;
    const ws = () => { while (k < text.length && /\s/.test(text[k]!)) k++; };
    const quoted = (): string => {
      const end = flowEnd(text.slice(k)) + k;
      const body = text.slice(k + 1, end - 1);
      const out = text[k] === '"' ? unescapeDouble(body) : body.replace(/''/g, "'");
      k = end;
      return out;
    };
    const item = (inside: boolean): unknown => {
      ws();
      const c = text[k];
      if (c === '[' || c === '{') {
        const close = c === '[' ? ']' : '}';
        const keys = new Map<string | number, number>();
        const collection: unknown[] | Json = c === '[' ? [] : {};
        marks.set(collection, { line, keys });
        k++;
        ws();
        while (text[k] !== close) {
          if (k >= text.length) fail('unterminated flow collection');
          const first = item(true);
          ws();
          if (Array.isArray(collection)) { keys.set(collection.length, line); collection.push(first); }
          else {
            let second: unknown = null;
            if (text[k] === ':') { k++; second = item(true); ws(); }
            setKey(collection, String(first), second);
            keys.set(String(first), line);
          }
          if (text[k] === ',') { k++; ws(); } else if (text[k] !== close) fail('expected , in flow collection');
        }
        k++;
        return collection;
      }
      if (c === '"' || c === "'") return quoted();
      if (c !== undefined && /[&*!]/.test(c)) fail('anchors, aliases and tags are not supported');
      const rest = text.slice(k);
      const stop = inside ? /[,[\]{}]|:(?=\s|$|[,[\]{}])|\s#/.exec(rest) : /\s#/.exec(rest);
      const raw = stop ? rest.slice(0, stop.index) : rest;
      k += raw.length;
      return plainScalar(raw.trim());
    };
    const out = item(false);
    ws();
    if (k < text.length && text[k] !== '#') fail('unexpected text after a value');
    return out;
  };

  const block = (header: string, indent: number): string => {
    const lines: string[] = [];
    for (; i < source.length; i++) {
      const raw = source[i]!;
      if (raw.trim() !== '' && raw.length - raw.trimStart().length <= indent) break;
      lines.push(raw);
    }
    const inset = Math.min(...lines.filter((l) => l.trim() !== '').map((l) => l.length - l.trimStart().length));
    const body = lines.map((l) => l.slice(Number.isFinite(inset) ? inset : 0));
    while (body.length > 0 && body[body.length - 1]!.trim() === '') body.pop();
    const text = header.startsWith('>')
      ? body.reduce((acc, l) => (l === '' ? `${acc}\n` : acc === '' || acc.endsWith('\n') ? acc + l : `${acc} ${l}`), '')
      : body.join('\n');
    return header.includes('-') ? text : `${text}\n`;
  };

  // The value after `key:` or `- `; `indent` is the key's (or dash's) column. Only a key's value may be a
  // sequence at the key's own column (`key:\n- a`).
  const value = (rest: string, indent: number, line: number, afterKey: boolean): unknown => {
    const text = rest.trim();
    if (text === '' || text.startsWith('#')) {
      const next = current();
      if (afterKey && next && next.indent === indent && isItem(next.text)) return sequence(indent);
      return node(indent);
    }
    if (/^[|>]/.test(text)) return block(text, indent);
    if (/^[&*!]/.test(text)) throw new YamlError(line, 'anchors, aliases and tags are not supported');
    if (/^["'[{]/.test(text)) {
      let full = text;
      while (flowEnd(full) === -1) {
        if (i >= source.length) throw new YamlError(line, 'unterminated value');
        full += ` ${source[i]!.trim()}`;
        i++;
      }
      return flow(full, line);
    }
    let full = text.replace(/\s+#.*$/, '');
    for (let next = current(); next && next.indent > indent && !pending; next = current()) {
      full += ` ${next.text.replace(/\s+#.*$/, '')}`;
      advance();
    }
    return plainScalar(full);
  };

  const mapping = (indent: number): Json => {
    const object: Json = {};
    const keys = new Map<string | number, number>();
    marks.set(object, { line: lineNo(), keys });
    for (let cur = current(); cur && cur.indent >= indent; cur = current()) {
      if (cur.indent > indent || isItem(cur.text)) fail('bad indentation');
      const match = keyPattern.exec(cur.text) ?? fail('expected a key');
      const key = match[1] !== undefined ? unescapeDouble(match[1]) : match[2] !== undefined ? match[2].replace(/''/g, "'") : match[3]!;
      const line = lineNo();
      advance();
      keys.set(key, line);
      setKey(object, key, value(match[4] ?? '', indent, line, true));
    }
    return object;
  };

  const sequence = (indent: number): unknown[] => {
    const list: unknown[] = [];
    const keys = new Map<string | number, number>();
    marks.set(list, { line: lineNo(), keys });
    for (let cur = current(); cur && cur.indent === indent && isItem(cur.text); cur = current()) {
      const rest = cur.text.slice(1);
      const inner = rest.trimStart();
      const line = lineNo();
      keys.set(list.length, line);
      if (isItem(inner) || keyPattern.test(inner)) {
        pending = { indent: indent + 1 + rest.length - inner.length, text: inner };
        list.push(isItem(inner) ? sequence(pending.indent) : mapping(pending.indent));
      } else {
        advance();
        list.push(value(inner, indent, line, false));
      }
    }
    return list;
  };

  const node = (parent: number): unknown => {
    const cur = current();
    if (!cur || cur.indent <= parent) return null;
    if (isItem(cur.text)) return sequence(cur.indent);
    if (keyPattern.test(cur.text)) return mapping(cur.indent);
    const line = lineNo();
    advance();
    return value(cur.text, cur.indent, line, false);
  };

  const root = node(-1);
  if (current() !== null) fail('unexpected content');
  return docOf(root, marks);
}

export type Frontmatter =
  | Readonly<{ ok: true; doc: Doc }>
  | Readonly<{ ok: false; line: number; message: string; mentionsHooks: boolean }>;

/** The YAML frontmatter of a Markdown text (between `---` lines, opening on line 1), or null when it has none. */
export function frontmatterOf(text: string): Frontmatter | null {
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  if (lines[0]?.trimEnd() !== '---') return null;
  const end = lines.findIndex((line, k) => k > 0 && /^(?:---|\.\.\.)\s*$/.test(line));
  if (end === -1) return null;
  const body = lines.slice(1, end);
  try {
    return { ok: true, doc: parseYaml(body, 2) };
  } catch (error) {
    const line = error instanceof YamlError ? error.line : 1;
    return { ok: false, line, message: `frontmatter is not readable YAML (${error instanceof Error ? error.message : 'error'})`, mentionsHooks: body.some((l) => /^hooks\s*:/.test(l)) };
  }
}

// --- Paths -------------------------------------------------------------------------------------------

/** `path` inside `base`, normalised; null when it is absolute, not a plain path, or climbs out of `base`. */
export function inside(base: string, path: string): string | null {
  const relative = path.replace(/^\$\{CLAUDE_PLUGIN_ROOT\}|^\$CLAUDE_PLUGIN_ROOT(?![A-Za-z0-9_])/, '.');
  if (/^(?:\/|~|[A-Za-z]:)/.test(relative) || relative.includes('\\') || relative.includes('\0')) return null;
  const segments: string[] = [];
  for (const segment of relative.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment !== '..') segments.push(segment);
    else if (segments.pop() === undefined) return null;
  }
  return join(base, ...segments);
}

function pathIndex(files: ReadonlyMap<string, ScanFile>): (dir: string) => readonly string[] {
  const sorted = [...files.keys()].sort();
  return (dir) => {
    if (dir === '') return sorted;
    const prefix = `${dir}/`;
    let lo = 0;
    let hi = sorted.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (sorted[mid]! < prefix) lo = mid + 1;
      else hi = mid;
    }
    let end = lo;
    while (end < sorted.length && sorted[end]!.startsWith(prefix)) end++;
    return sorted.slice(lo, end);
  };
}

// --- Layout ------------------------------------------------------------------------------------------

type Context = Readonly<{
  files: ReadonlyMap<string, ScanFile>;
  under: (dir: string) => readonly string[];
  problems: LayoutProblem[];
  unread: Unread[];
}>;

/** A component field as declared in plugin.json or the marketplace entry, with where to point at it. */
type Declaration = Readonly<{ value: unknown; doc: Doc; path: string; holder: Json; field: string }>;

const problem = (ctx: Context, area: ProblemArea, kind: ProblemKind, path: string, line: number, message: string): void => {
  ctx.problems.push({ location: locationOf(path, line), message, area, kind });
};

/** The short form of a source for display: the string as written, `github:owner/repo` for objects. */
export function sourceText(source: unknown): string {
  if (typeof source === 'string') return source;
  if (!isObject(source)) return '';
  const kind = typeof source.source === 'string' ? source.source : 'unknown';
  const where = [source.repo, source.url, source.package, source.command].find((v): v is string => typeof v === 'string');
  const path = typeof source.path === 'string' && source.path !== '' ? `//${source.path}` : '';
  return where === undefined ? kind : `${kind}:${where}${path}`;
}

/** Sources the gateway resolves into the tree before vetting (manifest-policy.ts); not content here. */
const externalKinds = new Set(['github', 'url', 'git-subdir']);

export type SourceResolution = Readonly<{
  /** The plugin directory in the tree; null when the content is elsewhere or the source is refused. */
  root: string | null;
  problem: Readonly<{ kind: 'escapes' | 'unsupported' | 'invalid'; message: string }> | null;
}>;

/** Where an entry's source puts the plugin; `pluginRoot` is metadata.pluginRoot (undefined: not set; null: escaping). */
export function resolveSource(source: unknown, pluginRoot: string | null | undefined): SourceResolution {
  const refuse = (kind: 'escapes' | 'unsupported' | 'invalid', message: string): SourceResolution => ({ root: null, problem: { kind, message } });
  if (typeof source === 'string') {
    if (source.startsWith('./')) {
      const reason = relativeSourceProblem(source);
      if (reason !== null) return refuse(source.split('/').includes('..') ? 'escapes' : 'unsupported', reason);
      return { root: inside('', source), problem: null };
    }
    if (/^[A-Za-z0-9._-]+$/.test(source) && source !== '.' && source !== '..') {
      if (pluginRoot === undefined) return refuse('unsupported', `bare source '${source}' needs metadata.pluginRoot`);
      return { root: pluginRoot === null ? null : join(pluginRoot, source), problem: null };
    }
    return refuse('unsupported', `source '${source.slice(0, 80)}' is neither a './' path nor a source object`);
  }
  if (!isObject(source)) return refuse('invalid', 'has no source');
  const kind = typeof source.source === 'string' ? source.source : '';
  if (!externalKinds.has(kind)) return refuse('unsupported', `source type '${kind.slice(0, 40)}' is not supported (relative paths, github, url and git-subdir are)`);
  return { root: null, problem: null };
}

/** The paths (and, where allowed, inline objects) one declaration names; escaping or mistyped items are problems. */
function declared(ctx: Context, decl: Declaration, root: string, area: ProblemArea, inline: boolean): Array<{ path: string } | { object: Json }> {
  const out: Array<{ path: string } | { object: Json }> = [];
  const items: Array<[unknown, number]> = Array.isArray(decl.value)
    ? decl.value.map((item, k) => [item, decl.doc.lineOf(decl.value, k)])
    : [[decl.value, decl.doc.lineOf(decl.holder, decl.field)]];
  for (const [item, line] of items) {
    if (typeof item === 'string') {
      const path = inside(root, item);
      if (path === null) problem(ctx, area, 'escapes', decl.path, line, `${decl.field} path '${item.slice(0, 120)}' escapes the plugin`);
      else out.push({ path });
    } else if (inline && isObject(item)) out.push({ object: item });
    else problem(ctx, area, 'invalid', decl.path, line, `${decl.field} must be ${inline ? 'a path, a list of paths or an object' : 'a path or a list of paths'}`);
  }
  return out;
}

function markdownUnder(ctx: Context, path: string): string[] {
  const file = ctx.files.get(path);
  if (file !== undefined) return path.endsWith('.md') ? [path] : [];
  return ctx.under(path).filter((p) => p.endsWith('.md'));
}

const areaOf = { skill: 'skills', command: 'commands', agent: 'agents' } as const;

/**
 * Read a Markdown component's frontmatter: its name (commands take the file's) and the hooks it registers.
 * A command is the legacy flat-file form of a skill with the same frontmatter, so its hooks are a skill's.
 */
function readMarkdown(ctx: Context, path: string, kind: 'skill' | 'command' | 'agent', fallbackName: string, hooks: Hook[]): string {
  const area = areaOf[kind];
  const file = ctx.files.get(path);
  if (file?.oversized) ctx.unread.push({ file, area });
  const front = file?.text ? frontmatterOf(file.text) : null;
  if (front === null) return fallbackName;
  if (!front.ok) {
    problem(ctx, area, 'invalid', path, front.line, front.message);
    if (front.mentionsHooks) problem(ctx, 'hooks', 'invalid', path, front.line, `hooks in the frontmatter cannot be read: ${front.message}`);
    return fallbackName;
  }
  const fields = isObject(front.doc.value) ? front.doc.value : {};
  const name = kind !== 'command' && typeof fields.name === 'string' && fields.name.trim() !== '' ? fields.name.trim() : fallbackName;
  if (fields.hooks != null) collectHooks(ctx, fields.hooks, front.doc, path, `${kind === 'agent' ? 'agent' : 'skill'} ${name}`, hooks);
  return name;
}

const runFields = ['command', 'prompt', 'url', 'tool'] as const;

function collectHooks(ctx: Context, config: unknown, doc: Doc, path: string, declaredBy: string, out: Hook[]): void {
  // hooks.json wraps the events in `hooks`; inline and frontmatter configs are the events map itself.
  const events = isObject(config) && isObject(config.hooks) ? config.hooks : config;
  const bad = (node: unknown, key: string | number | undefined, message: string) => problem(ctx, 'hooks', 'invalid', path, doc.lineOf(node, key), message);
  if (!isObject(events)) return bad(config, undefined, 'hooks must be an object of events');
  for (const [event, groups] of Object.entries(events)) {
    if (!Array.isArray(groups)) { bad(events, event, `hooks for '${event}' must be a list`); continue; }
    for (const [g, group] of groups.entries()) {
      if (!isObject(group) || !Array.isArray(group.hooks) || (group.matcher != null && typeof group.matcher !== 'string')) {
        bad(groups, g, `a '${event}' hook group needs a hooks list and a string matcher`);
        continue;
      }
      const matcher = typeof group.matcher === 'string' ? group.matcher : null;
      for (const [h, handler] of group.hooks.entries()) {
        const field = isObject(handler) ? runFields.find((f) => typeof handler[f] === 'string') : undefined;
        if (!isObject(handler) || field === undefined || (handler.type !== undefined && typeof handler.type !== 'string')) {
          bad(group.hooks, h, `a '${event}' hook handler has no type and nothing to run`);
          continue;
        }
        const args = Array.isArray(handler.args) ? handler.args.filter((a): a is string => typeof a === 'string') : [];
        const server = field === 'tool' && typeof handler.server === 'string' ? [handler.server] : [];
        out.push({
          event, matcher,
          type: typeof handler.type === 'string' ? handler.type : 'command',
          runs: [...server, handler[field] as string, ...args].join(' '),
          location: locationOf(path, doc.lineOf(handler, field)),
          declaredBy,
        });
      }
    }
  }
}

function serverConfigOf(config: unknown): ServerConfig | string {
  if (!isObject(config)) return 'is not an object';
  const { command, args, url, type, env } = config;
  if (command != null && typeof command !== 'string') return 'command is not a string';
  if (args != null && !(Array.isArray(args) && args.every((a) => typeof a === 'string'))) return 'args is not a list of strings';
  if (url != null && typeof url !== 'string') return 'url is not a string';
  if (type != null && typeof type !== 'string') return 'type is not a string';
  if (env != null && !(isObject(env) && Object.values(env).every((v) => typeof v === 'string'))) return 'env is not a map of strings';
  return {
    command: command ?? null, args: (args as string[] | null | undefined) ?? [], url: url ?? null, type: type ?? null,
    env: (env as Record<string, string> | null | undefined) ?? {},
  };
}

function collectServers(ctx: Context, area: 'mcpServers' | 'lspServers', config: unknown, doc: Doc, path: string, out: Server[]): void {
  // Both `{"mcpServers": {...}}` and the flat map are in use (plugin-format.md 2.7).
  const servers = isObject(config) && isObject(config[area]) ? config[area] : config;
  if (!isObject(servers)) return problem(ctx, area, 'invalid', path, doc.lineOf(config), `${area} must be an object of servers`);
  for (const [name, value] of Object.entries(servers)) {
    const line = doc.lineOf(servers, name);
    const parsed = serverConfigOf(value);
    if (typeof parsed === 'string') problem(ctx, area, 'invalid', path, line, `server '${name}' ${parsed}`);
    else out.push({ name, path, location: locationOf(path, line), config: parsed });
  }
}

/** A JSON component file (hooks, .mcp.json, .lsp.json) read into `collect`; unreadable ones become problems. */
function readComponentFile(ctx: Context, area: ProblemArea, path: string, from: Readonly<{ path: string; line: number }> | null, collect: (doc: Doc) => void): void {
  const read = readJson(path, ctx.files.get(path));
  if (read.status === 'ok') collect(read.doc);
  else if (read.status === 'oversized') ctx.unread.push({ file: read.file, area });
  else if (read.status === 'invalid') problem(ctx, area, 'syntax', path, read.line, `${path} ${read.message}`);
  else if (from !== null) problem(ctx, area, 'missing', from.path, from.line, `${path} does not exist`);
}

function readPlugin(ctx: Context, manifest: Doc, entry: Json, name: string, pluginRoot: string | null | undefined): PluginLayout {
  const entryLine = manifest.lineOf(entry);
  const { root, problem: refused } = resolveSource(entry.source, pluginRoot);
  if (refused !== null) problem(ctx, 'marketplace', refused.kind, manifestPath, entryLine, `plugin '${name}': ${refused.message}`);
  const base = {
    name, source: sourceText(entry.source), root, strict: entry.strict !== false, entry, entryLine,
    description: typeof entry.description === 'string' ? entry.description : null,
  };
  if (root === null) {
    return { ...base, found: false, pluginJson: null, skills: [], commands: [], agents: [], hooks: [], mcpServers: [], lspServers: [] };
  }
  const pluginJson = readJson(join(root, pluginManifestPath), ctx.files.get(join(root, pluginManifestPath)));
  if (pluginJson.status === 'oversized') ctx.unread.push({ file: pluginJson.file, area: 'plugin' });
  if (pluginJson.status === 'invalid') problem(ctx, 'plugin', 'syntax', pluginJson.path, pluginJson.line, `${pluginJson.path} ${pluginJson.message}`);
  const manifestValue = pluginJson.status === 'ok' && isObject(pluginJson.doc.value) ? pluginJson.doc.value : null;
  if (pluginJson.status === 'ok' && manifestValue === null) problem(ctx, 'plugin', 'invalid', pluginJson.path, 1, `${pluginJson.path} is not a JSON object`);

  // plugin.json and the entry both declare: with strict (default) they merge; with strict false the entry
  // alone is meant to, and a plugin.json declaring components too makes Claude Code refuse the plugin.
  // The layout keeps both either way, so that what a conflicting plugin would carry is still vetted.
  const declarations = (field: string): Declaration[] => [
    ...(manifestValue !== null && pluginJson.status === 'ok' && manifestValue[field] !== undefined
      ? [{ value: manifestValue[field], doc: pluginJson.doc, path: pluginJson.path, holder: manifestValue, field }] : []),
    ...(entry[field] !== undefined ? [{ value: entry[field], doc: manifest, path: manifestPath, holder: entry, field }] : []),
  ];
  const hooks: Hook[] = [];

  // Skills: declared dirs add to the default skills/ scan, except for a marketplace-root plugin, where
  // they replace it; a dir is a skill itself (holds SKILL.md) or holds skill dirs.
  const skillDirs = new Set<string>();
  const skillDirsUnder = (dir: string): string[] =>
    ctx.under(dir).filter((p) => p.endsWith('/SKILL.md') && p.split('/').length === (dir === '' ? 2 : dir.split('/').length + 2)).map(dirname);
  const skillDeclarations = declarations('skills');
  if (!(root === '' && skillDeclarations.length > 0)) skillDirsUnder(join(root, 'skills')).forEach((d) => skillDirs.add(d));
  for (const decl of skillDeclarations) {
    for (const item of declared(ctx, decl, root, 'skills', false)) {
      if (!('path' in item)) continue;
      const dir = item.path.endsWith('/SKILL.md') || item.path === 'SKILL.md' ? dirname(item.path) : item.path;
      const found = ctx.files.has(join(dir, 'SKILL.md')) ? [dir] : skillDirsUnder(dir);
      if (found.length === 0) problem(ctx, 'skills', 'missing', decl.path, decl.doc.lineOf(decl.holder, 'skills'), `skills path '${item.path}' holds no SKILL.md`);
      found.forEach((d) => skillDirs.add(d));
    }
  }
  if (skillDirs.size === 0 && skillDeclarations.length === 0 && ctx.files.has(join(root, 'SKILL.md'))) skillDirs.add(root);
  const skills = [...skillDirs].map((dir): Skill => {
    const path = join(dir, 'SKILL.md');
    return { name: readMarkdown(ctx, path, 'skill', dir === root ? name : basename(dir), hooks), path, dir };
  });

  // Commands and agents: declared paths (files or dirs) replace the default directory.
  const markdown = (field: 'commands' | 'agents', kind: 'command' | 'agent'): MarkdownComponent[] => {
    const decls = declarations(field);
    const paths = new Set<string>(decls.length === 0 ? markdownUnder(ctx, join(root, field)) : []);
    for (const decl of decls) {
      for (const item of declared(ctx, decl, root, field, false)) {
        if (!('path' in item)) continue;
        const found = markdownUnder(ctx, item.path);
        if (found.length === 0) problem(ctx, field, 'missing', decl.path, decl.doc.lineOf(decl.holder, field), `${field} path '${item.path}' holds no .md file`);
        found.forEach((p) => paths.add(p));
      }
    }
    return [...paths].map((path) => ({ name: readMarkdown(ctx, path, kind, basename(path).replace(/\.md$/, ''), hooks), path }));
  };
  const commands = markdown('commands', 'command');
  const agents = markdown('agents', 'agent');

  // Hooks, MCP and LSP servers: the default file is always read, declared files and inline objects add to it.
  const pluginHooks: Hook[] = [];
  const mcpServers: Server[] = [];
  const lspServers: Server[] = [];
  const jsonComponents = (field: 'hooks' | 'mcpServers' | 'lspServers', defaultPath: string, collect: (config: unknown, doc: Doc, path: string) => void) => {
    const seen = new Set<string>();
    const readFile = (path: string, from: Readonly<{ path: string; line: number }> | null) => {
      if (seen.has(path)) return;
      seen.add(path);
      readComponentFile(ctx, field, path, from, (doc) => collect(doc.value, doc, path));
    };
    readFile(join(root, defaultPath), null);
    for (const decl of declarations(field)) {
      for (const item of declared(ctx, decl, root, field, true)) {
        if ('path' in item) readFile(item.path, { path: decl.path, line: decl.doc.lineOf(decl.holder, field) });
        else collect(item.object, decl.doc, decl.path);
      }
    }
  };
  jsonComponents('hooks', 'hooks/hooks.json', (config, doc, path) => collectHooks(ctx, config, doc, path, 'plugin', pluginHooks));
  jsonComponents('mcpServers', '.mcp.json', (config, doc, path) => collectServers(ctx, 'mcpServers', config, doc, path, mcpServers));
  jsonComponents('lspServers', '.lsp.json', (config, doc, path) => collectServers(ctx, 'lspServers', config, doc, path, lspServers));

  const description = base.description ?? (typeof manifestValue?.description === 'string' ? manifestValue.description : null);
  return {
    ...base, description, found: ctx.under(root).length > 0, pluginJson,
    skills, commands, agents, hooks: [...pluginHooks, ...hooks], mcpServers, lspServers,
  };
}

/** The layout of the marketplace in `files` (the pinned tree by path). */
export function readLayout(files: ReadonlyMap<string, ScanFile>): MarketplaceLayout {
  const ctx: Context = { files, under: pathIndex(files), problems: [], unread: [] };
  const manifest = readJson(manifestPath, files.get(manifestPath));
  const done = (plugins: PluginLayout[]): MarketplaceLayout => ({ manifest, plugins, problems: ctx.problems, unread: ctx.unread, under: ctx.under });
  if (manifest.status === 'oversized') ctx.unread.push({ file: manifest.file, area: 'marketplace' });
  if (manifest.status === 'invalid') problem(ctx, 'marketplace', 'syntax', manifestPath, manifest.line, `${manifestPath} ${manifest.message}`);
  if (manifest.status !== 'ok') return done([]);
  const { doc } = manifest;
  if (!isObject(doc.value) || !Array.isArray(doc.value.plugins)) {
    problem(ctx, 'marketplace', 'invalid', manifestPath, 1, `${manifestPath} has no plugins list`);
    return done([]);
  }
  let pluginRoot: string | null | undefined;
  const metadata = doc.value.metadata;
  if (isObject(metadata) && typeof metadata.pluginRoot === 'string') {
    pluginRoot = inside('', metadata.pluginRoot);
    if (pluginRoot === null) problem(ctx, 'marketplace', 'escapes', manifestPath, doc.lineOf(metadata, 'pluginRoot'), `metadata.pluginRoot '${metadata.pluginRoot.slice(0, 120)}' escapes the repository`);
  }
  const plugins: PluginLayout[] = [];
  for (const [index, entry] of doc.value.plugins.entries()) {
    const line = doc.lineOf(doc.value.plugins, index);
    if (!isObject(entry)) { problem(ctx, 'marketplace', 'invalid', manifestPath, line, `plugins[${index}] is not an object`); continue; }
    if (typeof entry.name !== 'string' || entry.name.trim() === '') { problem(ctx, 'marketplace', 'invalid', manifestPath, line, `plugins[${index}] has no name`); continue; }
    plugins.push(readPlugin(ctx, doc, entry, entry.name, pluginRoot));
  }
  return done(plugins);
}

// Every built-in connector reads the same layout; one read per scan input is enough.
const layouts = new WeakMap<ScanInput, MarketplaceLayout>();

/** readLayout over a scan input, read once per input however many connectors ask. */
export function layoutOf(input: ScanInput): MarketplaceLayout {
  let layout = layouts.get(input);
  if (layout === undefined) {
    layout = readLayout(input.byPath);
    layouts.set(input, layout);
  }
  return layout;
}
