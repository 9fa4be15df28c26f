// What approving would newly let each plugin do, from the content diff's capabilitiesAdded and
// capabilitiesRemoved: one sentence per capability, as a reviewer must read it before consenting
// ("hooks/session-start now contacts updates.evil.example on SessionStart"). What runs on a hook event or
// starts an MCP server is highlighted as new hooks are; what a plugin no longer does is muted.
import type { ContentDiff } from './queries';

type PluginDiff = ContentDiff['plugins'][number];
export type Capability = PluginDiff['capabilitiesAdded'][number];

const computed = '(computed)';

/** What the capability does, as the rest of a sentence after "now" or "no longer". */
function does(c: Capability): string {
  switch (c.kind) {
    case 'contacts-host':
      return c.value === computed ? 'contacts a host computed at run time' : `contacts ${c.value}`;
    case 'reads-env':
      return c.value === '*' ? 'reads the whole environment' : `reads environment variable ${c.value}`;
    case 'reads-credentials':
      return `reads credentials at ${c.value}`;
    case 'runs-program':
      return c.value === computed ? 'runs a program computed at run time' : `runs ${c.value}`;
    case 'writes-outside-project':
      return `writes outside the project to ${c.value}`;
    case 'starts-mcp-server':
      return `starts MCP server ${c.value}`;
  }
}

const listed = (items: readonly string[]): string =>
  items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)!}`;

/** Where a capability shows: its first place, relative to the plugin directory when the plugin is in the tree. */
function where(c: Capability, pluginSource: string): string {
  const root = pluginSource.startsWith('./') ? `${pluginSource.slice(2).replace(/\/$/, '')}/` : null;
  const [first] = c.sources;
  if (!first) return 'the plugin';
  const path = root && first.path.startsWith(root) ? first.path.slice(root.length) : first.path;
  const more = c.sources.length - 1;
  return more > 0 ? `${path} (and ${String(more)} more place${more === 1 ? '' : 's'})` : path;
}

/** The sentence a reviewer reads for a capability added (or, `removed`, dropped). */
export function capabilitySentence(c: Capability, pluginSource: string, removed = false): string {
  const on = c.events.length ? ` on ${listed(c.events)}` : '';
  return `${where(c, pluginSource)} ${removed ? 'no longer' : 'now'} ${does(c)}${on}`;
}

/** Runs without asking: on a hook event, or as an MCP server that starts with the session. */
export const runsUnasked = (c: Capability): boolean => c.events.length > 0 || c.kind === 'starts-mcp-server';

export function CapabilityChanges({ plugins }: { plugins: readonly PluginDiff[] }) {
  const changed = plugins.filter((p) => p.capabilitiesAdded.length || p.capabilitiesRemoved.length);
  if (!changed.length) return <p className="muted">No plugin can do anything it could not before.</p>;
  return (
    <>
      {changed.map((p) => (
        <section key={p.name} aria-label={`What ${p.name} can newly do`}>
          <h3>{p.name}</h3>
          <ul className="capabilities">
            {p.capabilitiesAdded.map((c) => (
              <li key={`+${c.kind}|${c.value}`} className={runsUnasked(c) ? 'consent-strong' : undefined}>
                {capabilitySentence(c, p.source)}
              </li>
            ))}
            {p.capabilitiesRemoved.map((c) => (
              <li key={`-${c.kind}|${c.value}`} className="muted">
                {capabilitySentence(c, p.source, true)}
              </li>
            ))}
          </ul>
        </section>
      ))}
    </>
  );
}
