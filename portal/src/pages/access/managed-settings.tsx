// Claude Code managed settings: the organisation's managed-settings.json, registering the catalog (or the
// marketplaces chosen here) through the gateway and admitting no other marketplace host. It holds no
// secret: every person still signs git in with their own personal token, so the preview says which of the
// reader's tokens can fetch each marketplace it registers, and warns where none can (decision 423).
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'wouter';
import { ColumnHeads, CopyField, Loaded } from '../../components/ui';
import { NameChecklist } from './checklist';
import {
  managedSettingsPath,
  managedSettingsQuery,
  marketplacesQuery,
  tokensQuery,
  useCatalogName,
  type Marketplace,
  type Token,
} from './queries';
import { reachOf, type Reach } from './reach';

const installCommand = 'sudo install -D -m 0644 managed-settings.json /etc/claude-code/managed-settings.json';

/** The token form, with `name` already ticked. */
const newTokenHref = (name: string) => `~/access?${new URLSearchParams({ scope: name }).toString()}`;

function ReachRow({ reach }: { reach: Reach }) {
  const what = reach.catalog ? `the catalog (${reach.name})` : reach.name;
  return (
    <tr>
      <th scope="row">
        <code>{reach.name}</code>
        {reach.catalog ? <span className="muted"> (the catalog)</span> : null}
      </th>
      <td>
        {reach.tokens.length > 0 ? (
          reach.tokens.map((token) => token.name).join(', ')
        ) : (
          <span className="reach-none">
            None of your tokens can fetch {what}: git answers &quot;repository not found&quot;.{' '}
            <Link href={newTokenHref(reach.name)}>Create a token that can</Link>
          </span>
        )}
        {reach.served ? null : (
          <span className="muted"> Nothing is served yet: a fetch answers not found until a snapshot is approved.</span>
        )}
      </td>
    </tr>
  );
}

function TokenReach({
  names,
  tokens,
  marketplaces,
}: {
  names: string[];
  tokens: Token[];
  marketplaces: Marketplace[];
}) {
  const catalogName = useCatalogName();
  const reach = reachOf(names, tokens, marketplaces, catalogName);
  const unreachable = reach.filter((r) => r.tokens.length === 0);
  return (
    <section aria-labelledby="reach-title">
      <h3 id="reach-title">Which of your tokens can fetch what it registers</h3>
      {unreachable.length > 0 ? (
        <p className="notice notice-warn" role="status">
          <strong>None of your tokens can fetch {unreachable.map((r) => r.name).join(', ')}.</strong> A token limited to
          other marketplaces gets &quot;repository not found&quot; for {unreachable.length === 1 ? 'it' : 'them'}: the
          gateway answers an out-of-scope marketplace as if it did not exist. Give a token{' '}
          {unreachable.length === 1 ? 'this name' : 'these names'} in its scope, or tick no marketplace at all (every
          marketplace).
        </p>
      ) : null}
      <table>
        <ColumnHeads columns={['Registered', 'Your tokens that can fetch it']} />
        <tbody>
          {reach.map((r) => (
            <ReachRow key={r.name} reach={r} />
          ))}
        </tbody>
      </table>
      <p className="muted">Every person needs such a token of their own: the file holds no credential.</p>
    </section>
  );
}

export function ManagedSettings() {
  const marketplaces = useQuery(marketplacesQuery());
  const tokens = useQuery(tokensQuery);
  const [chosen, setChosen] = useState<string[]>([]);
  const settings = useQuery(managedSettingsQuery(chosen));
  const href =
    chosen.length === 0
      ? managedSettingsPath
      : `${managedSettingsPath}?${new URLSearchParams({ marketplaces: chosen.join(',') }).toString()}`;
  return (
    <section aria-labelledby="managed-settings-title">
      <h2 id="managed-settings-title">Managed settings for clients</h2>
      <p>
        A <code>managed-settings.json</code> for your fleet: Claude Code registers the gateway&apos;s catalog (or the
        marketplaces chosen below) and refuses every marketplace on another host. It contains no secret; each person
        still signs git in with a personal access token.
      </p>
      <Loaded query={marketplaces}>
        {(list) => (
          <NameChecklist
            legend="Marketplaces (none chosen: the catalog)"
            idPrefix="managed-marketplace"
            names={list.map((m) => m.name)}
            chosen={chosen}
            onChange={setChosen}
          />
        )}
      </Loaded>
      <Loaded query={settings}>
        {(document) => (
          <div className="stack stack-wide">
            <pre className="file managed-preview" tabIndex={0} aria-label="managed-settings.json">
              {JSON.stringify(document, null, 2)}
            </pre>
            <Loaded query={tokens}>
              {(list) => (
                <TokenReach
                  names={Object.keys(document.extraKnownMarketplaces)}
                  tokens={list}
                  marketplaces={marketplaces.data ?? []}
                />
              )}
            </Loaded>
            <p>
              <a href={href} download="managed-settings.json">
                Download managed-settings.json
              </a>
            </p>
            <CopyField label="Install it on a Linux machine" value={installCommand} wrap />
          </div>
        )}
      </Loaded>
    </section>
  );
}
