// The plugin layout of a marketplace tree (plugin-format.md sections 1 and 2), read tolerantly: what each
// plugin entry installs, where every piece is declared, and the problems met on the way. It never throws:
// a declaration that cannot be read is left out and recorded, so one bad file hides nothing else.
//
// Pure: it reads the in-memory tree only. Manifests are read by json-document.ts and Markdown frontmatter
// by frontmatter.ts, both of which remember the line of every key, which is what findings and inventory
// locations need.
import { locationOf, type ScanFile, type ScanInput } from '../vetting/findings.ts';
import { manifestPath } from '../snapshot/manifest-policy.ts';
import { frontmatterOf } from './frontmatter.ts';
import { readJson, type Doc, type JsonRead } from './json-document.ts';
import { basename, dirname, inside, join, pathIndex, resolveSource, sourceText } from './paths.ts';

export type ProblemArea =
  'marketplace' | 'plugin' | 'skills' | 'commands' | 'agents' | 'hooks' | 'mcpServers' | 'lspServers';
/** syntax: the file is not valid JSON; escapes: a path leaves the plugin (or repository); missing: a declared path has no file. */
export type ProblemKind = 'syntax' | 'invalid' | 'escapes' | 'missing' | 'unsupported';
export type LayoutProblem = Readonly<{ location: string; message: string; area: ProblemArea; kind: ProblemKind }>;
/** A file the layout needed but could not read because it is over the scanning size limit. */
export type Unread = Readonly<{ file: ScanFile; area: ProblemArea }>;

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
const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

type Context = Readonly<{
  files: ReadonlyMap<string, ScanFile>;
  under: (dir: string) => readonly string[];
  problems: LayoutProblem[];
  unread: Unread[];
}>;

/** A component field as declared in plugin.json or the marketplace entry, with where to point at it. */
type Declaration = Readonly<{ value: unknown; doc: Doc; path: string; holder: Json; field: string }>;

const problem = (
  ctx: Context,
  area: ProblemArea,
  kind: ProblemKind,
  path: string,
  line: number,
  message: string,
): void => {
  ctx.problems.push({ location: locationOf(path, line), message, area, kind });
};

/** The paths (and, where allowed, inline objects) one declaration names; escaping or mistyped items are problems. */
function declared(
  ctx: Context,
  decl: Declaration,
  root: string,
  area: ProblemArea,
  inline: boolean,
): Array<{ path: string } | { object: Json }> {
  const out: Array<{ path: string } | { object: Json }> = [];
  const items: Array<[unknown, number]> = Array.isArray(decl.value)
    ? decl.value.map((item, k) => [item, decl.doc.lineOf(decl.value, k)])
    : [[decl.value, decl.doc.lineOf(decl.holder, decl.field)]];
  for (const [item, line] of items) {
    if (typeof item === 'string') {
      const path = inside(root, item);
      if (path === null)
        problem(ctx, area, 'escapes', decl.path, line, `${decl.field} path '${item.slice(0, 120)}' escapes the plugin`);
      else out.push({ path });
    } else if (inline && isObject(item)) out.push({ object: item });
    else
      problem(
        ctx,
        area,
        'invalid',
        decl.path,
        line,
        `${decl.field} must be ${inline ? 'a path, a list of paths or an object' : 'a path or a list of paths'}`,
      );
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
 * Where another parser or version could read the frontmatter otherwise, the hooks of that reading are
 * collected as well and the difference is recorded.
 */
function readMarkdown(
  ctx: Context,
  path: string,
  kind: 'skill' | 'command' | 'agent',
  fallbackName: string,
  hooks: Hook[],
): string {
  const area = areaOf[kind];
  const file = ctx.files.get(path);
  if (file?.oversized) ctx.unread.push({ file, area });
  const front = file?.text ? frontmatterOf(file.text) : null;
  if (front === null) return fallbackName;
  const fields = front.ok && isObject(front.doc.value) ? front.doc.value : {};
  const name =
    kind !== 'command' && typeof fields.name === 'string' && fields.name.trim() !== ''
      ? fields.name.trim()
      : fallbackName;
  if (!front.ok) {
    problem(ctx, area, 'invalid', path, front.line, front.message);
    if (front.mentionsHooks && front.others.length === 0)
      problem(ctx, 'hooks', 'invalid', path, front.line, `hooks in the frontmatter cannot be read: ${front.message}`);
  }
  for (const other of front.others)
    problem(ctx, area, 'invalid', path, other.line, `frontmatter ${other.why}; the hooks of both readings are vetted`);
  const readings = front.ok
    ? [front.doc, ...front.others.map((other) => other.doc)]
    : front.others.map((other) => other.doc);
  // Each reading reports what it finds; what two readings share is kept once.
  const found: Hook[] = [];
  const problems: LayoutProblem[] = [];
  for (const doc of readings) {
    const hooksField = isObject(doc.value) ? doc.value.hooks : undefined;
    if (hooksField != null)
      collectHooks(
        { ...ctx, problems },
        hooksField,
        doc,
        path,
        `${kind === 'agent' ? 'agent' : 'skill'} ${name}`,
        found,
      );
  }
  const once = <T>(items: readonly T[]): T[] => [
    ...new Map(items.map((item) => [JSON.stringify(item), item])).values(),
  ];
  hooks.push(...once(found));
  ctx.problems.push(...once(problems));
  return name;
}

const runFields = ['command', 'prompt', 'url', 'tool'] as const;

function collectHooks(ctx: Context, config: unknown, doc: Doc, path: string, declaredBy: string, out: Hook[]): void {
  // hooks.json wraps the events in `hooks`; inline and frontmatter configs are the events map itself.
  const events = isObject(config) && isObject(config.hooks) ? config.hooks : config;
  const bad = (node: unknown, key: string | number | undefined, message: string) =>
    problem(ctx, 'hooks', 'invalid', path, doc.lineOf(node, key), message);
  if (!isObject(events)) return bad(config, undefined, 'hooks must be an object of events');
  for (const [event, groups] of Object.entries(events)) {
    if (!Array.isArray(groups)) {
      bad(events, event, `hooks for '${event}' must be a list`);
      continue;
    }
    for (const [g, group] of groups.entries()) {
      if (
        !isObject(group) ||
        !Array.isArray(group.hooks) ||
        (group.matcher != null && typeof group.matcher !== 'string')
      ) {
        bad(groups, g, `a '${event}' hook group needs a hooks list and a string matcher`);
        continue;
      }
      const matcher = typeof group.matcher === 'string' ? group.matcher : null;
      for (const [h, handler] of group.hooks.entries()) {
        const field = isObject(handler) ? runFields.find((f) => typeof handler[f] === 'string') : undefined;
        if (
          !isObject(handler) ||
          field === undefined ||
          (handler.type !== undefined && typeof handler.type !== 'string')
        ) {
          bad(group.hooks, h, `a '${event}' hook handler has no type and nothing to run`);
          continue;
        }
        const args = Array.isArray(handler.args) ? handler.args.filter((a): a is string => typeof a === 'string') : [];
        const server = field === 'tool' && typeof handler.server === 'string' ? [handler.server] : [];
        out.push({
          event,
          matcher,
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
  if (args != null && !(Array.isArray(args) && args.every((a) => typeof a === 'string')))
    return 'args is not a list of strings';
  if (url != null && typeof url !== 'string') return 'url is not a string';
  if (type != null && typeof type !== 'string') return 'type is not a string';
  if (env != null && !(isObject(env) && Object.values(env).every((v) => typeof v === 'string')))
    return 'env is not a map of strings';
  return {
    command: command ?? null,
    args: (args as string[] | null | undefined) ?? [],
    url: url ?? null,
    type: type ?? null,
    env: (env as Record<string, string> | null | undefined) ?? {},
  };
}

function collectServers(
  ctx: Context,
  area: 'mcpServers' | 'lspServers',
  config: unknown,
  doc: Doc,
  path: string,
  out: Server[],
): void {
  // Both `{"mcpServers": {...}}` and the flat map are in use (plugin-format.md 2.7).
  const servers = isObject(config) && isObject(config[area]) ? config[area] : config;
  if (!isObject(servers))
    return problem(ctx, area, 'invalid', path, doc.lineOf(config), `${area} must be an object of servers`);
  for (const [name, value] of Object.entries(servers)) {
    const line = doc.lineOf(servers, name);
    const parsed = serverConfigOf(value);
    if (typeof parsed === 'string') problem(ctx, area, 'invalid', path, line, `server '${name}' ${parsed}`);
    else out.push({ name, path, location: locationOf(path, line), config: parsed });
  }
}

/** A JSON component file (hooks, .mcp.json, .lsp.json) read into `collect`; unreadable ones become problems. */
function readComponentFile(
  ctx: Context,
  area: ProblemArea,
  path: string,
  from: Readonly<{ path: string; line: number }> | null,
  collect: (doc: Doc) => void,
): void {
  const read = readJson(path, ctx.files.get(path));
  if (read.status === 'ok') collect(read.doc);
  else if (read.status === 'oversized') ctx.unread.push({ file: read.file, area });
  else if (read.status === 'invalid') problem(ctx, area, 'syntax', path, read.line, `${path} ${read.message}`);
  else if (from !== null) problem(ctx, area, 'missing', from.path, from.line, `${path} does not exist`);
}

/** One plugin being read: where it is, what plugin.json and the entry declare, and the hooks its Markdown registers. */
type Scope = Readonly<{
  ctx: Context;
  root: string;
  name: string;
  declarations: (field: string) => Declaration[];
  hooks: Hook[];
}>;

/**
 * Skills: declared dirs add to the default skills/ scan, except for a marketplace-root plugin, where they
 * replace it; a dir is a skill itself (holds SKILL.md) or holds skill dirs.
 */
function readSkills({ ctx, root, name, declarations, hooks }: Scope): Skill[] {
  const skillDirs = new Set<string>();
  const skillDirsUnder = (dir: string): string[] =>
    ctx
      .under(dir)
      .filter((p) => p.endsWith('/SKILL.md') && p.split('/').length === (dir === '' ? 2 : dir.split('/').length + 2))
      .map(dirname);
  const skillDeclarations = declarations('skills');
  if (!(root === '' && skillDeclarations.length > 0))
    skillDirsUnder(join(root, 'skills')).forEach((d) => skillDirs.add(d));
  for (const decl of skillDeclarations) {
    for (const item of declared(ctx, decl, root, 'skills', false)) {
      if (!('path' in item)) continue;
      const dir = item.path.endsWith('/SKILL.md') || item.path === 'SKILL.md' ? dirname(item.path) : item.path;
      const found = ctx.files.has(join(dir, 'SKILL.md')) ? [dir] : skillDirsUnder(dir);
      if (found.length === 0)
        problem(
          ctx,
          'skills',
          'missing',
          decl.path,
          decl.doc.lineOf(decl.holder, 'skills'),
          `skills path '${item.path}' holds no SKILL.md`,
        );
      found.forEach((d) => skillDirs.add(d));
    }
  }
  if (skillDirs.size === 0 && skillDeclarations.length === 0 && ctx.files.has(join(root, 'SKILL.md')))
    skillDirs.add(root);
  return [...skillDirs].map((dir): Skill => {
    const path = join(dir, 'SKILL.md');
    return { name: readMarkdown(ctx, path, 'skill', dir === root ? name : basename(dir), hooks), path, dir };
  });
}

/** Commands and agents: declared paths (files or dirs) replace the default directory. */
function readMarkdownComponents(
  { ctx, root, declarations, hooks }: Scope,
  field: 'commands' | 'agents',
): MarkdownComponent[] {
  const decls = declarations(field);
  const paths = new Set<string>(decls.length === 0 ? markdownUnder(ctx, join(root, field)) : []);
  for (const decl of decls) {
    for (const item of declared(ctx, decl, root, field, false)) {
      if (!('path' in item)) continue;
      const found = markdownUnder(ctx, item.path);
      if (found.length === 0)
        problem(
          ctx,
          field,
          'missing',
          decl.path,
          decl.doc.lineOf(decl.holder, field),
          `${field} path '${item.path}' holds no .md file`,
        );
      found.forEach((p) => paths.add(p));
    }
  }
  const kind = field === 'commands' ? 'command' : 'agent';
  return [...paths].map((path) => ({
    name: readMarkdown(ctx, path, kind, basename(path).replace(/\.md$/, ''), hooks),
    path,
  }));
}

/** Hooks, MCP and LSP servers: the default file is always read, declared files and inline objects add to it. */
function readJsonComponents(
  { ctx, root, declarations }: Scope,
  field: 'hooks' | 'mcpServers' | 'lspServers',
  defaultPath: string,
  collect: (config: unknown, doc: Doc, path: string) => void,
): void {
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
}

function readPlugin(
  ctx: Context,
  manifest: Doc,
  entry: Json,
  name: string,
  pluginRoot: string | null | undefined,
): PluginLayout {
  const entryLine = manifest.lineOf(entry);
  const { root, problem: refused } = resolveSource(entry.source, pluginRoot);
  if (refused !== null)
    problem(ctx, 'marketplace', refused.kind, manifestPath, entryLine, `plugin '${name}': ${refused.message}`);
  const base = {
    name,
    source: sourceText(entry.source),
    root,
    strict: entry.strict !== false,
    entry,
    entryLine,
    description: typeof entry.description === 'string' ? entry.description : null,
  };
  if (root === null) {
    return {
      ...base,
      found: false,
      pluginJson: null,
      skills: [],
      commands: [],
      agents: [],
      hooks: [],
      mcpServers: [],
      lspServers: [],
    };
  }
  const pluginJson = readJson(join(root, pluginManifestPath), ctx.files.get(join(root, pluginManifestPath)));
  if (pluginJson.status === 'oversized') ctx.unread.push({ file: pluginJson.file, area: 'plugin' });
  if (pluginJson.status === 'invalid')
    problem(ctx, 'plugin', 'syntax', pluginJson.path, pluginJson.line, `${pluginJson.path} ${pluginJson.message}`);
  const manifestValue = pluginJson.status === 'ok' && isObject(pluginJson.doc.value) ? pluginJson.doc.value : null;
  if (pluginJson.status === 'ok' && manifestValue === null)
    problem(ctx, 'plugin', 'invalid', pluginJson.path, 1, `${pluginJson.path} is not a JSON object`);

  // plugin.json and the entry both declare: with strict (default) they merge; with strict false the entry
  // alone is meant to, and a plugin.json declaring components too makes Claude Code refuse the plugin.
  // The layout keeps both either way, so that what a conflicting plugin would carry is still vetted.
  const declarations = (field: string): Declaration[] => [
    ...(manifestValue !== null && pluginJson.status === 'ok' && manifestValue[field] !== undefined
      ? [{ value: manifestValue[field], doc: pluginJson.doc, path: pluginJson.path, holder: manifestValue, field }]
      : []),
    ...(entry[field] !== undefined
      ? [{ value: entry[field], doc: manifest, path: manifestPath, holder: entry, field }]
      : []),
  ];
  const scope: Scope = { ctx, root, name, declarations, hooks: [] };
  const skills = readSkills(scope);
  const commands = readMarkdownComponents(scope, 'commands');
  const agents = readMarkdownComponents(scope, 'agents');
  const pluginHooks: Hook[] = [];
  const mcpServers: Server[] = [];
  const lspServers: Server[] = [];
  readJsonComponents(scope, 'hooks', 'hooks/hooks.json', (config, doc, path) =>
    collectHooks(ctx, config, doc, path, 'plugin', pluginHooks),
  );
  readJsonComponents(scope, 'mcpServers', '.mcp.json', (config, doc, path) =>
    collectServers(ctx, 'mcpServers', config, doc, path, mcpServers),
  );
  readJsonComponents(scope, 'lspServers', '.lsp.json', (config, doc, path) =>
    collectServers(ctx, 'lspServers', config, doc, path, lspServers),
  );

  const description =
    base.description ?? (typeof manifestValue?.description === 'string' ? manifestValue.description : null);
  return {
    ...base,
    description,
    found: ctx.under(root).length > 0,
    pluginJson,
    skills,
    commands,
    agents,
    hooks: [...pluginHooks, ...scope.hooks],
    mcpServers,
    lspServers,
  };
}

/** The layout of the marketplace in `files` (the pinned tree by path). */
export function readLayout(files: ReadonlyMap<string, ScanFile>): MarketplaceLayout {
  const ctx: Context = { files, under: pathIndex(files), problems: [], unread: [] };
  const manifest = readJson(manifestPath, files.get(manifestPath));
  const done = (plugins: PluginLayout[]): MarketplaceLayout => ({
    manifest,
    plugins,
    problems: ctx.problems,
    unread: ctx.unread,
    under: ctx.under,
  });
  if (manifest.status === 'oversized') ctx.unread.push({ file: manifest.file, area: 'marketplace' });
  if (manifest.status === 'invalid')
    problem(ctx, 'marketplace', 'syntax', manifestPath, manifest.line, `${manifestPath} ${manifest.message}`);
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
    if (pluginRoot === null)
      problem(
        ctx,
        'marketplace',
        'escapes',
        manifestPath,
        doc.lineOf(metadata, 'pluginRoot'),
        `metadata.pluginRoot '${metadata.pluginRoot.slice(0, 120)}' escapes the repository`,
      );
  }
  const plugins: PluginLayout[] = [];
  for (const [index, entry] of doc.value.plugins.entries()) {
    const line = doc.lineOf(doc.value.plugins, index);
    if (!isObject(entry)) {
      problem(ctx, 'marketplace', 'invalid', manifestPath, line, `plugins[${index}] is not an object`);
      continue;
    }
    if (typeof entry.name !== 'string' || entry.name.trim() === '') {
      problem(ctx, 'marketplace', 'invalid', manifestPath, line, `plugins[${index}] has no name`);
      continue;
    }
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
