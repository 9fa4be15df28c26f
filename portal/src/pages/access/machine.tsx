// Machine credentials (docs/access.md; admin only): an access token with API scopes from the closed
// allowlist, a principal the ledger attributes its actions to, and a mandatory expiry. Every one is
// listed, whoever provisioned it; the secret is shown once, at provisioning and at rotation.
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { api, data } from '../../api/client';
import { useListChange } from '../../components/change-form';
import { CopyField, Loaded, When } from '../../components/ui';
import { Table, type Column } from '../../components/table';
import { NameChecklist } from './checklist';
import { credentialColumns, IssueForm } from './credentials';
import { machineExpiries } from './expiry';
import { SecretPanel } from './shown-once';
import { apiScopeNames, machineQuery, type Token } from './queries';

type Secret = Readonly<{ name: string; principal: string; token: string }>;

function MachineSecret({ secret, onDone }: { secret: Secret; onDone: () => void }) {
  const origin = location.origin;
  return (
    <SecretPanel
      id="machine-secret-title"
      title={`Machine credential ${secret.name} for ${secret.principal}`}
      secret={secret}
      onDone={onDone}
    >
      <p>
        <strong>Copy the secret now: it is not shown again.</strong>
      </p>
      <CopyField label="Machine credential" value={secret.token} wrap />
      <CopyField
        label="Example request"
        value={`curl -H "Authorization: Bearer ${secret.token}" ${origin}/api/v1/marketplaces`}
        wrap
      />
      <p className="muted">
        A bearer credential takes the machine path: no cookie, no CSRF token, only the endpoints its scopes name and its
        principal&apos;s roles allow.
      </p>
    </SecretPanel>
  );
}

function ProvisionMachine({ onIssued }: { onIssued: (s: Secret) => void }) {
  const [principal, setPrincipal] = useState('');
  const [name, setName] = useState('');
  const [apiScopes, setApiScopes] = useState<string[]>([]);
  const provision = useListChange(
    machineQuery.queryKey,
    (expiresAt: string | null) =>
      data(api.POST('/api/v1/tokens/machine', { body: { principal, name, apiScopes, expiresAt: expiresAt ?? '' } })),
    (token) => {
      onIssued({ name: token.name, principal: token.principal ?? principal, token: token.token ?? '' });
      setPrincipal('');
      setName('');
      setApiScopes([]);
    },
  );
  return (
    <IssueForm
      id="provision"
      title="New machine credential"
      choices={machineExpiries}
      issue={provision}
      submit="Provision credential"
    >
      <label htmlFor="machine-principal">Principal</label>
      <input
        id="machine-principal"
        required
        value={principal}
        onChange={(e) => setPrincipal(e.target.value)}
        placeholder="ci-pipeline"
      />
      <label htmlFor="machine-name">Name</label>
      <input id="machine-name" required value={name} onChange={(e) => setName(e.target.value)} />
      <NameChecklist
        legend="API scopes (at least one)"
        idPrefix="api-scope"
        names={apiScopeNames}
        chosen={apiScopes}
        onChange={setApiScopes}
      />
    </IssueForm>
  );
}

const machinePath = (token: Token) => ({ params: { path: { id: token.id } } });

/** Every machine credential, newest first, whoever provisioned it. */
function MachineTable({ tokens, onIssued }: { tokens: readonly Token[]; onIssued: (s: Secret) => void }) {
  const columns: ReadonlyArray<Column<Token>> = [
    { head: 'Name', names: true, cell: (token) => token.name },
    { head: 'Principal', cell: (token) => token.principal },
    { head: 'API scopes', cell: (token) => token.apiScopes.join(', ') },
    { head: 'Provisioned by', cell: (token) => token.machineOwner },
    { head: 'Expires', cell: (token) => <When at={token.expiresAt} /> },
    ...credentialColumns({
      list: machineQuery.queryKey,
      rotate: (token: Token) => data(api.POST('/api/v1/tokens/machine/{id}/rotate', machinePath(token))),
      revoke: (token: Token) => data(api.DELETE('/api/v1/tokens/machine/{id}', machinePath(token))),
      onRotated: (t) => onIssued({ name: t.name, principal: t.principal ?? '', token: t.token ?? '' }),
    }),
  ];
  return (
    <Table
      rows={[...tokens].sort((a, b) => b.id - a.id)}
      columns={columns}
      rowKey={(token) => token.id}
      empty="No machine credential has been provisioned."
    />
  );
}

export function MachineCredentials() {
  const machines = useQuery(machineQuery);
  const [secret, setSecret] = useState<Secret | null>(null);
  return (
    <section aria-labelledby="machine-title">
      <h2 id="machine-title">Machine credentials</h2>
      {secret ? <MachineSecret secret={secret} onDone={() => setSecret(null)} /> : null}
      <Loaded query={machines}>{(list) => <MachineTable tokens={list} onIssued={setSecret} />}</Loaded>
      <ProvisionMachine onIssued={setSecret} />
    </section>
  );
}
