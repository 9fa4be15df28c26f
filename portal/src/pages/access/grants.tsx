// Role grants (docs/access.md, Roles; admin only): admin and auditor are global, approver names a marketplace.
// Configuration admins and claim-mapped roles are not grants and do not appear here.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api, data } from '../../api/client';
import { Loaded, Options, ProblemNotice, When } from '../../components/ui';
import { Table, type Column } from '../../components/table';
import { humanize } from '../../components/labels';
import { ChangeForm } from '../../components/change-form';
import { ConfirmButton } from '../../components/confirm-button';
import { grantsQuery, marketplacesQuery, type Grant } from './queries';

type Role = Grant['role'];
const roles: readonly Role[] = ['approver', 'auditor', 'admin'];

function GrantRole({ marketplaces }: { marketplaces: readonly string[] }) {
  const queries = useQueryClient();
  const [principal, setPrincipal] = useState('');
  const [role, setRole] = useState<Role>('approver');
  const [marketplace, setMarketplace] = useState('');
  const grant = useMutation({
    mutationFn: () =>
      data(
        api.POST('/api/v1/roles', {
          body: role === 'approver' ? { principal, role, marketplace } : { principal, role },
        }),
      ),
    onSuccess: () => {
      setPrincipal('');
      void queries.invalidateQueries({ queryKey: grantsQuery.queryKey });
    },
  });
  return (
    <ChangeForm id="grant" title="Grant a role" submit="Grant role" change={grant}>
      <label htmlFor="grant-principal">Principal</label>
      <input id="grant-principal" required value={principal} onChange={(e) => setPrincipal(e.target.value)} />
      <label htmlFor="grant-role">Role</label>
      <select id="grant-role" value={role} onChange={(e) => setRole(e.target.value as Role)}>
        <Options values={roles} label={humanize} />
      </select>
      {role === 'approver' ? (
        <>
          <label htmlFor="grant-marketplace">Marketplace (an approver approves one)</label>
          <select id="grant-marketplace" required value={marketplace} onChange={(e) => setMarketplace(e.target.value)}>
            <option value="">Choose a marketplace</option>
            <Options values={marketplaces} />
          </select>
        </>
      ) : null}
    </ChangeForm>
  );
}

function RemoveGrant({ grant }: { grant: Grant }) {
  const queries = useQueryClient();
  const remove = useMutation({
    mutationFn: () => data(api.DELETE('/api/v1/roles/{id}', { params: { path: { id: grant.id } } })),
    onSuccess: () => void queries.invalidateQueries({ queryKey: grantsQuery.queryKey }),
  });
  const what = `${grant.role}${grant.marketplace ? ` of ${grant.marketplace}` : ''}`;
  return (
    <>
      <ConfirmButton
        label="Remove"
        name={`Remove ${grant.principal} as ${what}`}
        onConfirm={() => remove.mutate()}
        pending={remove.isPending}
      />
      <ProblemNotice error={remove.error} />
    </>
  );
}

const columns: ReadonlyArray<Column<Grant>> = [
  { head: 'Principal', names: true, cell: (g) => g.principal },
  { head: 'Role', cell: (g) => humanize(g.role) },
  { head: 'Marketplace', cell: (g) => g.marketplace ?? <span className="muted">all</span> },
  { head: 'Granted by', cell: (g) => g.grantedBy },
  { head: 'Granted', cell: (g) => <When at={g.grantedAt} /> },
  { head: 'Actions', cell: (g) => <RemoveGrant grant={g} /> },
];

export function RoleGrants() {
  const grants = useQuery(grantsQuery);
  const marketplaces = useQuery(marketplacesQuery());
  return (
    <section aria-labelledby="grants-title">
      <h2 id="grants-title">Role grants</h2>
      <p className="muted">
        Administrators named in the configuration and roles mapped from identity-provider claims are not grants and are
        not listed.
      </p>
      <Loaded query={grants}>
        {(list) => <Table rows={list} columns={columns} rowKey={(g) => g.id} empty="No role has been granted." />}
      </Loaded>
      <GrantRole marketplaces={(marketplaces.data ?? []).map((m) => m.name)} />
    </section>
  );
}
