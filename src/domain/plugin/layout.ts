// The plugin layout of a marketplace tree (docs/plugin-format.md), read tolerantly: what each
// plugin entry installs, where every piece is declared, and the problems met on the way. It never throws:
// a declaration that cannot be read is left out and recorded, so one bad file hides nothing else.
//
// Pure: it reads the in-memory tree only. Manifests are read by json-document.ts and Markdown frontmatter
// by frontmatter.ts, both of which remember the line of every key, which is what findings and inventory
// locations need.
import { manifestPath } from './manifest-policy.ts';
import type { ScanFile, ScanInput } from '../kernel/findings.ts';
import { collectHooks } from './hooks.ts';
import { readJson, type Doc, type JsonRead } from './json-document.ts';
import { readJsonComponents } from './json-components.ts';
import {
  isObject,
  problem,
  type Context,
  type Declaration,
  type Hook,
  type Json,
  type LayoutProblem,
  type MarkdownComponent,
  type Scope,
  type Server,
  type Skill,
  type Unread,
} from './layout-context.ts';
import { readMarkdownComponents, readSkills } from './markdown-components.ts';
import { inside, join, pathIndex, resolveSource, sourceText } from './paths.ts';
import { collectServers } from './servers.ts';

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

type Components = Pick<PluginLayout, 'skills' | 'commands' | 'agents' | 'hooks' | 'mcpServers' | 'lspServers'>;

const noComponents = (): Components => ({
  skills: [],
  commands: [],
  agents: [],
  hooks: [],
  mcpServers: [],
  lspServers: [],
});

/** `<root>/.claude-plugin/plugin.json` as read, and its object when it is one. */
function readPluginJson(ctx: Context, root: string): Readonly<{ pluginJson: JsonRead; manifestValue: Json | null }> {
  const pluginJson = readJson(join(root, pluginManifestPath), ctx.files.get(join(root, pluginManifestPath)));
  if (pluginJson.status === 'oversized') ctx.unread.push({ file: pluginJson.file, area: 'plugin' });
  if (pluginJson.status === 'invalid')
    problem(ctx, 'plugin', 'syntax', pluginJson.path, pluginJson.line, `${pluginJson.path} ${pluginJson.message}`);
  const manifestValue = pluginJson.status === 'ok' && isObject(pluginJson.doc.value) ? pluginJson.doc.value : null;
  if (pluginJson.status === 'ok' && manifestValue === null)
    problem(ctx, 'plugin', 'invalid', pluginJson.path, 1, `${pluginJson.path} is not a JSON object`);
  return { pluginJson, manifestValue };
}

// plugin.json and the entry both declare: with strict (default) they merge; with strict false the entry
// alone is meant to, and a plugin.json declaring components too makes Claude Code refuse the plugin.
// The layout keeps both either way, so that what a conflicting plugin would carry is still vetted.
const declarationsOf =
  (pluginJson: JsonRead, manifestValue: Json | null, manifest: Doc, entry: Json) =>
  (field: string): Declaration[] => [
    ...(manifestValue !== null && pluginJson.status === 'ok' && manifestValue[field] !== undefined
      ? [{ value: manifestValue[field], doc: pluginJson.doc, path: pluginJson.path, holder: manifestValue, field }]
      : []),
    ...(entry[field] !== undefined
      ? [{ value: entry[field], doc: manifest, path: manifestPath, holder: entry, field }]
      : []),
  ];

function readComponents(scope: Scope): Components {
  const { ctx } = scope;
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
  return { skills, commands, agents, hooks: [...pluginHooks, ...scope.hooks], mcpServers, lspServers };
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
  if (root === null) return { ...base, found: false, pluginJson: null, ...noComponents() };
  const { pluginJson, manifestValue } = readPluginJson(ctx, root);
  const declarations = declarationsOf(pluginJson, manifestValue, manifest, entry);
  const components = readComponents({ ctx, root, name, declarations, hooks: [] });
  const description =
    base.description ?? (typeof manifestValue?.description === 'string' ? manifestValue.description : null);
  return { ...base, description, found: ctx.under(root).length > 0, pluginJson, ...components };
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
