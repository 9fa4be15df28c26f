// Personal access tokens (docs/access.md, Tokens): the caller's own, for git and Claude Code through the facade.
// Create with scopes (marketplaces it may fetch; none ticked = every marketplace), push scopes (hosted
// marketplaces) and an expiry; rotate (a new secret, same name, scopes and expiry); revoke. When the managed
// settings register the catalog, the form offers it first and warns about a scope that leaves it out
// (decision 423). `?scope=<name>` opens the form with that name ticked.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useSearch } from 'wouter';
import { api, data } from '../../api/client';
import { Loaded, When } from '../../components/ui';
import { Table, type Column } from '../../components/table';
import { credentialColumns, IssueForm } from './credentials';
import { personalExpiries, stateOf } from './expiry';
import { ShownOnce, type Issued } from './shown-once';
import { marketplacesQuery, tokensQuery, useCatalogName, type Marketplace, type Token } from './queries';
import { NameChecklist } from './checklist';

function CatalogAdvice({ catalog, scopes }: { catalog: string; scopes: readonly string[] }) {
  if (scopes.length > 0 && !scopes.includes(catalog))
    return (
      <p className="notice notice-warn" role="status">
        This token will not fetch the catalog (<code>{catalog}</code>), which the managed settings register: Claude Code
        would get &quot;repository not found&quot; for it. Tick <code>{catalog}</code> as well, or tick nothing (every
        marketplace).
      </p>
    );
  return (
    <p className="muted">
      <code>{catalog}</code> is the catalog the managed settings register: a token limited to some marketplaces needs it
      ticked too.
    </p>
  );
}

function CreateToken({ marketplaces, onIssued }: { marketplaces: Marketplace[]; onIssued: (i: Issued) => void }) {
  const queries = useQueryClient();
  const catalog = useCatalogName();
  const names = [...(catalog ? [catalog] : []), ...marketplaces.map((m) => m.name)];
  const asked = new URLSearchParams(useSearch()).get('scope');
  const [name, setName] = useState('');
  const [scopes, setScopes] = useState<string[]>(asked ? [asked] : []);
  const [pushScopes, setPushScopes] = useState<string[]>([]);
  const hosted = marketplaces.filter((m) => m.url === null).map((m) => m.name);
  const create = useMutation({
    mutationFn: (expiresAt: string | null) =>
      data(api.POST('/api/v1/tokens', { body: { name, scopes, pushScopes, expiresAt } })),
    onSuccess: (token) => {
      onIssued({ name: token.name, token: token.token ?? '', scopes: token.scopes, rotated: false });
      setName('');
      setScopes([]);
      setPushScopes([]);
      void queries.invalidateQueries({ queryKey: tokensQuery.queryKey });
    },
  });
  return (
    <IssueForm id="create-token" title="New token" choices={personalExpiries} issue={create} submit="Create token">
      <label htmlFor="token-name">Name</label>
      <input id="token-name" required value={name} onChange={(e) => setName(e.target.value)} placeholder="laptop" />
      <NameChecklist
        legend="Marketplaces it may fetch (none ticked: every marketplace)"
        idPrefix="token-scope"
        names={names}
        hints={catalog ? { [catalog]: 'the catalog' } : {}}
        chosen={scopes}
        onChange={setScopes}
      />
      {catalog ? <CatalogAdvice catalog={catalog} scopes={scopes} /> : null}
      {hosted.length > 0 ? (
        <NameChecklist
          legend="Hosted marketplaces it may publish to (none ticked: nowhere)"
          idPrefix="token-push"
          names={hosted}
          chosen={pushScopes}
          onChange={setPushScopes}
        />
      ) : null}
    </IssueForm>
  );
}

const tokenPath = (token: Token) => ({ params: { path: { id: token.id } } });

function TokenTable({ tokens, onIssued }: { tokens: Token[]; onIssued: (i: Issued) => void }) {
  const columns: ReadonlyArray<Column<Token>> = [
    {
      head: 'Name',
      names: true,
      cell: (token) => (
        <>
          {token.name}
          {token.sessionDerived ? <span className="muted"> (from a session)</span> : null}
        </>
      ),
    },
    {
      head: 'Fetch',
      cell: (token) =>
        token.scopes.length ? token.scopes.join(', ') : <span className="muted">every marketplace</span>,
    },
    {
      head: 'Publish',
      cell: (token) => (token.pushScopes.length ? token.pushScopes.join(', ') : <span className="muted">none</span>),
    },
    { head: 'Created', cell: (token) => <When at={token.createdAt} /> },
    {
      head: 'Expires',
      cell: (token) => (token.expiresAt ? <When at={token.expiresAt} /> : <span className="muted">never</span>),
    },
    ...credentialColumns({
      list: tokensQuery.queryKey,
      rotate: (token: Token) => data(api.POST('/api/v1/tokens/{id}/rotate', tokenPath(token))),
      revoke: (token: Token) => data(api.DELETE('/api/v1/tokens/{id}', tokenPath(token))),
      onRotated: (t) => onIssued({ name: t.name, token: t.token ?? '', scopes: t.scopes, rotated: true }),
    }),
  ];
  return <Table rows={tokens} columns={columns} rowKey={(token) => token.id} empty="You have no tokens yet." />;
}

export function PersonalTokens() {
  const tokens = useQuery(tokensQuery);
  const marketplaces = useQuery(marketplacesQuery());
  const [issued, setIssued] = useState<Issued | null>(null);
  const catalog = useCatalogName();
  const served = [
    ...(catalog ? [catalog] : []),
    ...(marketplaces.data ?? []).filter((m) => m.servedSha !== null).map((m) => m.name),
  ];
  // Active first, newest first: revoked and expired rows stay listed below (what the gateway answers).
  const ordered = [...(tokens.data ?? [])].sort(
    (a, b) => Number(stateOf(a) !== 'active') - Number(stateOf(b) !== 'active') || b.id - a.id,
  );
  return (
    <section aria-labelledby="tokens-title">
      <h2 id="tokens-title">Personal access tokens</h2>
      <p className="muted">
        For git and Claude Code: the token is the password of HTTP Basic on {location.origin}
        /git/&lt;marketplace&gt;.git.
      </p>
      {issued ? <ShownOnce issued={issued} served={served} onDone={() => setIssued(null)} /> : null}
      <Loaded query={tokens}>{() => <TokenTable tokens={ordered} onIssued={setIssued} />}</Loaded>
      <Loaded query={marketplaces}>{(list) => <CreateToken marketplaces={list} onIssued={setIssued} />}</Loaded>
    </section>
  );
}
