// What the snapshot contains (GET .../content) and what approving it would newly ask users to trust:
// the skill changes of GET .../content-diff, and (composed here, as the content diff names skills only)
// the hooks, MCP and LSP servers, commands and agents that the baseline it names does not have: the
// inventory of this snapshot against the inventory of the baseline snapshot. Below them, what each plugin
// can newly do once installed (the content diff's capability changes, capabilities.tsx).
import { useQuery } from '@tanstack/react-query';
import { humanize } from '../../components/labels';
import { ColumnHeads, Empty, Loaded, Sha, StateBadge } from '../../components/ui';
import { CapabilityChanges } from './capabilities';
import { snapshotQuery, type Inventory as InventoryData, type Plugin } from './queries';

type Added = Readonly<{ kind: string; plugin: string; what: string; detail: string }>;

const hookKey = (h: Plugin['hooks'][number]) => `${h.event}|${h.matcher ?? ''}|${h.runs}`;

/** Everything in `now` that `before` lacks, plugin by plugin, as a user would have to consent to it. */
export function newlyTrusted(now: InventoryData, before: InventoryData | null): Added[] {
  const added: Added[] = [];
  for (const plugin of now.plugins) {
    const old = before?.plugins.find((p) => p.name === plugin.name);
    const had = (list: keyof Pick<Plugin, 'mcpServers' | 'lspServers' | 'commands' | 'agents'>, name: string) =>
      old?.[list].some((c) => c.name === name) ?? false;
    for (const hook of plugin.hooks)
      if (!old?.hooks.some((h) => hookKey(h) === hookKey(hook)))
        added.push({
          kind: 'Hook',
          plugin: plugin.name,
          what: `${hook.event}${hook.matcher ? ` [${hook.matcher}]` : ''} (${hook.declaredBy})`,
          detail: hook.runs,
        });
    for (const [list, kind] of [
      ['mcpServers', 'MCP server'],
      ['lspServers', 'LSP server'],
      ['commands', 'Command'],
      ['agents', 'Agent'],
    ] as const)
      for (const c of plugin[list])
        if (!had(list, c.name)) added.push({ kind, plugin: plugin.name, what: c.name, detail: c.path });
  }
  return added;
}

function TrustTable({ added }: { added: readonly Added[] }) {
  if (!added.length) return <Empty>No new hook, server, command or agent.</Empty>;
  return (
    <table className="consent">
      <ColumnHeads columns={['Kind', 'Plugin', 'What', 'Runs or path']} />
      <tbody>
        {added.map((a, i) => (
          <tr key={i} className={a.kind === 'Hook' || a.kind === 'MCP server' ? 'consent-strong' : undefined}>
            <td>
              <strong>{a.kind}</strong>
            </td>
            <td>{a.plugin}</td>
            <td>{a.what}</td>
            <td>
              <code>{a.detail}</code>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function NewlyTrusted({ id, baseline }: { id: number; baseline: number | null }) {
  const now = useQuery(snapshotQuery(id, 'content'));
  const before = useQuery({ ...snapshotQuery(baseline ?? 0, 'content'), enabled: baseline !== null });
  const both = {
    isPending: now.isPending || (baseline !== null && before.isPending),
    error: now.error ?? before.error,
    data: now.data,
  };
  return (
    <Loaded query={both}>
      {(inventory) => {
        const added = newlyTrusted(inventory, baseline === null ? null : (before.data ?? null));
        const hooks = added.filter((a) => a.kind === 'Hook' || a.kind === 'MCP server').length;
        return (
          <>
            {hooks ? (
              <p className="notice notice-warn">
                <strong>
                  {hooks} new hook{hooks === 1 ? '' : 's'} or MCP server{hooks === 1 ? '' : 's'}
                </strong>
                : code that runs on users' machines once they install or update.
              </p>
            ) : null}
            <TrustTable added={added} />
          </>
        );
      }}
    </Loaded>
  );
}

export function Consent({ id }: { id: number }) {
  const diff = useQuery(snapshotQuery(id, 'content-diff'));
  return (
    <Loaded query={diff}>
      {(d) => (
        <>
          <h2>New to consent</h2>
          <p>
            {d.baselineSha ? (
              <>
                Against the snapshot served now ({d.baselineSnapshotId}, <Sha sha={d.baselineSha} />
                ).
              </>
            ) : (
              'Nothing of this marketplace is served yet: everything is new.'
            )}
          </p>
          <NewlyTrusted id={id} baseline={d.baselineSnapshotId} />
          <h2>What plugins can newly do</h2>
          <CapabilityChanges plugins={d.plugins} />
          <h2>Skills</h2>
          <p className="muted">
            {Object.entries(d.summary)
              .map(([status, n]) => `${String(n)} ${status}`)
              .join(', ')}
          </p>
          <table>
            <ColumnHeads columns={['Plugin', 'Skill', 'Status']} />
            <tbody>
              {d.plugins.flatMap((p) =>
                p.skills.length
                  ? p.skills.map((s) => (
                      <tr key={`${p.name}/${s.path}`}>
                        <td>
                          {p.name} <StateBadge state={p.status} label={humanize(p.status)} />
                        </td>
                        <td>
                          {s.name} <code>{s.path}</code>
                        </td>
                        <td>
                          <StateBadge state={s.status} label={humanize(s.status)} />
                          {s.movedFromPlugin ? ` from ${s.movedFromPlugin}` : ''}
                        </td>
                      </tr>
                    ))
                  : [
                      <tr key={p.name}>
                        <td>
                          {p.name} <StateBadge state={p.status} label={humanize(p.status)} />
                        </td>
                        <td className="muted">no skills</td>
                        <td />
                      </tr>,
                    ],
              )}
            </tbody>
          </table>
        </>
      )}
    </Loaded>
  );
}

function Components({ title, items }: { title: string; items: readonly { name: string; path: string }[] }) {
  if (!items.length) return null;
  return (
    <>
      <h4>{title}</h4>
      <ul>
        {items.map((c) => (
          <li key={`${c.name}-${c.path}`}>
            {c.name} <code>{c.path}</code>
          </li>
        ))}
      </ul>
    </>
  );
}

export function Inventory({ id }: { id: number }) {
  const content = useQuery(snapshotQuery(id, 'content'));
  return (
    <Loaded query={content}>
      {(inventory) => (
        <>
          <h2>Content</h2>
          {inventory.plugins.length ? null : <Empty>No plugins.</Empty>}
          {inventory.plugins.map((p) => (
            <div key={p.name} className="card plugin">
              <h3>{p.name}</h3>
              {p.description ? <p>{p.description}</p> : null}
              <p className="muted">
                Source <code>{p.source}</code>
              </p>
              <Components title="Skills" items={p.skills} />
              <Components title="Commands" items={p.commands} />
              <Components title="Agents" items={p.agents} />
              <Components title="MCP servers" items={p.mcpServers} />
              <Components title="LSP servers" items={p.lspServers} />
              {p.hooks.length ? (
                <>
                  <h4>Hooks</h4>
                  <ul>
                    {p.hooks.map((h, i) => (
                      <li key={i}>
                        {h.event}
                        {h.matcher ? ` [${h.matcher}]` : ''} ({h.declaredBy}): <code>{h.runs}</code>{' '}
                        <span className="muted">at {h.location}</span>
                      </li>
                    ))}
                  </ul>
                </>
              ) : null}
            </div>
          ))}
        </>
      )}
    </Loaded>
  );
}
