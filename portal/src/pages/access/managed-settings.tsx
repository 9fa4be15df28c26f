// Claude Code managed settings (issue 21 item 4): the organisation's managed-settings.json, registering the
// catalog (or the marketplaces chosen here) through the gateway and admitting no other marketplace host.
// It holds no secret: every person still signs git in with their own personal token.
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { api, data } from '../../api/client';
import { CopyField, Loaded } from '../../components/ui';
import { NameChecklist } from './checklist';
import { marketplacesQuery } from './queries';

const path = '/api/v1/clients/managed-settings';
const installCommand = 'sudo install -D -m 0644 managed-settings.json /etc/claude-code/managed-settings.json';

export function ManagedSettings() {
  const marketplaces = useQuery(marketplacesQuery());
  const [chosen, setChosen] = useState<string[]>([]);
  const query = chosen.length === 0 ? {} : { marketplaces: chosen.join(',') };
  const settings = useQuery({
    queryKey: ['clients', 'managed-settings', chosen],
    queryFn: () => data(api.GET(path, { params: { query } })),
  });
  const href =
    chosen.length === 0 ? path : `${path}?${new URLSearchParams({ marketplaces: chosen.join(',') }).toString()}`;
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
          <div className="stack">
            <pre className="file">{JSON.stringify(document, null, 2)}</pre>
            <p>
              <a href={href} download="managed-settings.json">
                Download managed-settings.json
              </a>
            </p>
            <CopyField label="Install it on a Linux machine" value={installCommand} />
          </div>
        )}
      </Loaded>
    </section>
  );
}
