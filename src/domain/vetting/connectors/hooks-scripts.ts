// The scripts of each plugin and who is shown to run them: every hook command line, MCP and LSP server
// command is a start; the files they run, through wrappers, sourced files and interpreters, are reached
// from there (hooks-reach.ts); every other script the plugin ships is listed too, run by no one shown.
// Each script is analysed once. The hooks connector turns this into findings, the capability inventory
// into what each plugin can do.
import type { Hook } from '../../plugin/layout-context.ts';
import type { MarketplaceLayout, PluginLayout } from '../../plugin/layout.ts';
import type { ScanFile, ScanInput } from '../../kernel/findings.ts';
import type { Analysis, ScriptAnalyser } from './hooks-analysis.ts';
import { excerpt } from './hooks-lines.ts';
import { commandWords, isScript, reachOf, type Origin, type Start } from './hooks-reach.ts';
import type { ShellParser } from './hooks-syntax.ts';

export const hookName = (hook: Hook): string =>
  `${hook.event}${hook.matcher ? ` [${excerpt(hook.matcher, 40)}]` : ''} hook (${hook.declaredBy})`;

/** A script of a plugin: who is shown to run it (null: no one) and what it does (null: no text to read). */
export type PluginScript = Readonly<{ path: string; origin: Origin | null; analysis: Analysis | null }>;

export type PluginScripts = Readonly<{
  plugin: PluginLayout;
  /** The plugin's command hooks, in declaration order. */
  commandHooks: readonly Hook[];
  /** Scripts reached from a start first (breadth first), then the others the plugin ships. */
  scripts: readonly PluginScript[];
}>;

/** A command hook's command line as a start of the walk (hooks-reach.ts). */
export const hookStart = (hook: Hook, parse: ShellParser): Start => ({
  label: hookName(hook),
  hook: true,
  words: commandWords(hook.runs, parse(hook.runs)),
  text: hook.runs,
});

/** The command lines a plugin runs without asking: its command hooks, then its MCP and LSP servers. */
function startsOf(plugin: PluginLayout, parse: ShellParser): Start[] {
  const starts: Start[] = [];
  for (const hook of plugin.hooks) if (hook.type === 'command') starts.push(hookStart(hook, parse));
  for (const [kind, servers] of [
    ['MCP', plugin.mcpServers],
    ['LSP', plugin.lspServers],
  ] as const) {
    for (const server of servers) {
      const words = [server.config.command ?? '', ...server.config.args];
      starts.push({
        label: `${kind} server '${excerpt(server.name, 60)}'`,
        hook: false,
        words: [words],
        text: words.join(' '),
      });
    }
  }
  return starts;
}

/**
 * The scripts pluginScripts will read for certain, each with the root of the plugin it is read for: every
 * script (isScript) with a text under each plugin's root. Reading them ahead (in parallel) leaves it only
 * the rare file a hook runs that does not look like a script.
 */
export function scriptsToRead(
  input: ScanInput,
  layout: MarketplaceLayout,
): { file: ScanFile & { text: string }; root: string }[] {
  const jobs: { file: ScanFile & { text: string }; root: string }[] = [];
  for (const { root } of layout.plugins) {
    if (root === null) continue;
    for (const path of layout.under(root)) {
      const file = input.byPath.get(path);
      if (file?.text != null && isScript(file)) jobs.push({ file: { ...file, text: file.text }, root });
    }
  }
  return jobs;
}

/**
 * Every plugin's scripts. A script shared by two plugins' roots (nested roots) is listed under the first
 * plugin only, so it is read and reported once.
 */
export function pluginScripts(
  input: ScanInput,
  layout: MarketplaceLayout,
  analyse: ScriptAnalyser,
  parse: ShellParser,
): PluginScripts[] {
  const exists = (path: string): boolean => input.byPath.has(path);
  const listed = new Set<string>();
  return layout.plugins.map((plugin) => {
    const commandHooks = plugin.hooks.filter((hook) => hook.type === 'command');
    const root = plugin.root;
    if (root === null) return { plugin, commandHooks, scripts: [] };
    const analyses = new Map<string, Analysis | null>();
    const analysisOf = (path: string): Analysis | null => {
      if (!analyses.has(path)) {
        const file = input.byPath.get(path);
        analyses.set(path, file?.text == null ? null : analyse({ ...file, text: file.text }, root, exists));
      }
      return analyses.get(path)!;
    };
    const reached = reachOf(startsOf(plugin, parse), root, input.byPath, (path) => analysisOf(path)?.runs ?? []);
    const paths = [...reached.keys()];
    for (const path of layout.under(root)) {
      const file = input.byPath.get(path);
      if (file && !reached.has(path) && isScript(file)) paths.push(path);
    }
    const scripts: PluginScript[] = [];
    for (const path of paths) {
      if (listed.has(path)) continue;
      listed.add(path);
      scripts.push({ path, origin: reached.get(path) ?? null, analysis: analysisOf(path) });
    }
    return { plugin, commandHooks, scripts };
  });
}
