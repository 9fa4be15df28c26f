// The capability inventory: what each plugin can do once installed, so a reviewer consents to
// behaviour and not only to declarations. Its facts come from every script the plugin ships (read once,
// as the hooks connector reads them: hooks-scripts.ts), from the command lines of its hooks, and from
// its MCP servers. A capability is one (kind, value) of a plugin, with the hook events shown to run it
// (a script run by a SessionStart hook, directly or through wrappers, is on SessionStart; one no hook is
// shown to run is on none) and every place that shows it (decision 366).
import type { Server } from '../plugin/layout-context.ts';
import { layoutOf, type PluginLayout } from '../plugin/layout.ts';
import type { ScanInput } from '../kernel/findings.ts';
import {
  capabilityKinds,
  type CapabilityKind,
  type ScriptFact,
  type ScriptReading,
} from './connectors/hooks-analysis.ts';
import { shellFacts } from './connectors/hooks-facts.ts';
import { urlHost } from './connectors/hooks-facts-hosts.ts';
import { ignoredVariable } from './connectors/hooks-facts-ignored.ts';
import { excerpt } from './connectors/hooks-lines.ts';
import { reachOf, type Invocation } from './connectors/hooks-reach.ts';
import { hookStart, pluginScripts } from './connectors/hooks-scripts.ts';
import { launchedPackages, wordsOf } from './connectors/mcp.connector.ts';

export { capabilityKinds, type CapabilityKind } from './connectors/hooks-analysis.ts';

/** A file and line (from 1) that shows a capability. */
export type CapabilitySource = Readonly<{ path: string; line: number }>;
export type Capability = Readonly<{
  kind: CapabilityKind;
  /** A host, a variable, a credential path, a program, a path written, or what an MCP server launches. */
  value: string;
  /** Hook events whose command line runs it, sorted; empty when no hook is shown to run it. */
  events: readonly string[];
  sources: readonly CapabilitySource[];
}>;
export type PluginCapabilities = Readonly<{ name: string; capabilities: readonly Capability[] }>;

/** One observation before aggregation: a fact, the events that reach it, where it was seen. */
type Seen = Readonly<{ kind: CapabilityKind; value: string; events: readonly string[]; source: CapabilitySource }>;

/** `path:line` as layouts record a declaration's location. */
const sourceOf = (location: string): CapabilitySource => {
  const match = /^(.*):(\d+)$/.exec(location);
  return match ? { path: match[1]!, line: Number(match[2]) } : { path: location, line: 1 };
};

const containerRun = /^(?:docker|podman|nerdctl)$/;
const containerValueOptions = new Set(
  '-e --env --env-file -v --volume --mount -p --publish --name -w --workdir -u --user --network --net --entrypoint -l --label --platform --pull -m --memory --cpus --add-host --hostname -h --device --cap-add --cap-drop --security-opt --tmpfs --ulimit --log-driver --restart --runtime --gpus'.split(
    ' ',
  ),
);

/** The image a `docker run` (or podman, nerdctl) launch line starts, or null. */
function containerImage(words: readonly string[]): string | null {
  const at = words.findIndex((w, i) => containerRun.test(w.replace(/^.*[\\/]/, '')) && words[i + 1] === 'run');
  if (at === -1) return null;
  for (let i = at + 2; i < words.length; i++) {
    const word = words[i]!;
    if (containerValueOptions.has(word)) i++;
    else if (!word.startsWith('-')) return word;
  }
  return null;
}

/**
 * What an MCP server launches: the package and version a runner fetches (`@scope/pkg@1.2.3` through npx,
 * bunx or pnpm dlx, `pkg==1.0` through uvx or pipx), the image `docker run` starts, the endpoint of a
 * remote server (without credentials, query or fragment), else its command line (decision 368).
 */
export function mcpLaunch(server: Server): string {
  const { url, command, args } = server.config;
  if (url !== null) return url.replace(/\/\/[^/@]*@/, '//').replace(/[?#].*$/, '');
  const words = wordsOf(server);
  const launched = launchedPackages(words).find((p) => !p.extra && p.spec !== '');
  if (launched) return launched.spec;
  return containerImage(words) ?? excerpt([command ?? '', ...args].join(' ').trim(), 200);
}

/** Variables an MCP declaration takes from the user's environment (`${VAR}`, `${VAR:-default}`). */
const declaredVariables = (server: Server): string[] => {
  const { command, args, url, env } = server.config;
  const text = [command ?? '', ...args, url ?? '', ...Object.values(env)].join('\n');
  return [...text.matchAll(/\$\{([A-Za-z_]\w*)(?::-[^}]*)?\}/g)].map((m) => m[1]!).filter((v) => !ignoredVariable(v));
};

function serverCapabilities(server: Server): Seen[] {
  const source = sourceOf(server.location);
  const seen: Seen[] = [{ kind: 'starts-mcp-server', value: mcpLaunch(server), events: [], source }];
  const host = server.config.url === null ? null : urlHost(server.config.url);
  if (host !== null) seen.push({ kind: 'contacts-host', value: host, events: [], source });
  for (const variable of declaredVariables(server))
    seen.push({ kind: 'reads-env', value: variable, events: [], source });
  return seen;
}

/** The capabilities of one plugin, from its scripts (with the events reaching each), hooks and servers. */
function pluginCapabilities(
  plugin: PluginLayout,
  scripts: ReturnType<typeof pluginScripts>[number]['scripts'],
  input: ScanInput,
  reading: ScriptReading,
): Seen[] {
  const seen: Seen[] = [];
  const runs = new Map<string, readonly Invocation[]>(scripts.map((s) => [s.path, s.analysis?.runs ?? []]));
  const events = new Map<string, Set<string>>();
  for (const hook of plugin.hooks) {
    const source = sourceOf(hook.location);
    const on = [hook.event];
    if (hook.type === 'http') {
      const host = urlHost(hook.runs);
      if (host !== null) seen.push({ kind: 'contacts-host', value: host, events: on, source });
      continue;
    }
    if (hook.type !== 'command') continue;
    // The command line itself, at the hook's declaration.
    const facts: readonly ScriptFact[] = shellFacts(hook.runs, reading.parse(hook.runs), reading.parse);
    for (const fact of facts) seen.push({ kind: fact.kind, value: fact.value, events: on, source });
    if (plugin.root === null) continue;
    // Every script this hook is shown to run, directly or through wrappers, sourced files and interpreters.
    for (const path of reachOf(
      [hookStart(hook, reading.parse)],
      plugin.root,
      input.byPath,
      (p) => runs.get(p) ?? [],
    ).keys()) {
      const set = events.get(path) ?? new Set<string>();
      set.add(hook.event);
      events.set(path, set);
    }
  }
  for (const { path, analysis } of scripts) {
    const on = [...(events.get(path) ?? [])];
    for (const fact of analysis?.facts ?? [])
      seen.push({ kind: fact.kind, value: fact.value, events: on, source: { path, line: fact.line } });
  }
  for (const server of plugin.mcpServers) seen.push(...serverCapabilities(server));
  return seen;
}

const kindOrder = (kind: CapabilityKind): number => capabilityKinds.indexOf(kind);

/** Observations aggregated by (kind, value): events and sources joined, each sorted. */
export function aggregate(seen: readonly Seen[]): Capability[] {
  const byKey = new Map<
    string,
    { kind: CapabilityKind; value: string; events: Set<string>; sources: Map<string, CapabilitySource> }
  >();
  for (const { kind, value, events, source } of seen) {
    const key = `${kind}\u0000${value}`;
    let entry = byKey.get(key);
    if (entry === undefined) {
      entry = { kind, value, events: new Set(), sources: new Map() };
      byKey.set(key, entry);
    }
    for (const event of events) entry.events.add(event);
    entry.sources.set(`${source.path}\u0000${source.line}`, source);
  }
  return [...byKey.values()]
    .map(({ kind, value, events, sources }) => ({
      kind,
      value,
      events: [...events].sort(),
      sources: [...sources.values()].sort((a, b) => a.path.localeCompare(b.path) || a.line - b.line),
    }))
    .sort((a, b) => kindOrder(a.kind) - kindOrder(b.kind) || a.value.localeCompare(b.value));
}

/** What every plugin of a tree can do once installed, plugin by plugin in layout order. */
export function capabilityInventory(input: ScanInput, reading: ScriptReading): PluginCapabilities[] {
  const layout = layoutOf(input);
  return pluginScripts(input, layout, reading.analyse, reading.parse).map(({ plugin, scripts }) => ({
    name: plugin.name,
    capabilities: aggregate(pluginCapabilities(plugin, scripts, input, reading)),
  }));
}
