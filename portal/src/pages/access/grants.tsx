// Role grants (docs/access.md, Roles; admin only): admin and auditor are global, approver names a marketplace.
// Configuration admins and claim-mapped roles are not grants and do not appear here.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api, data } from '../../api/client';
import { ColumnHeads, Empty, Loaded, ProblemNotice, When } from '../../components/ui';
import { humanize } from '../../components/labels';
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
  const submit = (event: FormEvent) => {
    event.preventDefault();
    grant.mutate();
  };
  return (
    <form className="stack" onSubmit={submit} aria-labelledby="grant-title">
      <h3 id="grant-title">Grant a role</h3>
      <label htmlFor="grant-principal">Principal</label>
      <input id="grant-principal" required value={principal} onChange={(e) => setPrincipal(e.target.value)} />
      <label htmlFor="grant-role">Role</label>
      <select id="grant-role" value={role} onChange={(e) => setRole(e.target.value as Role)}>
        {roles.map((r) => (
          <option key={r} value={r}>
            {humanize(r)}
          </option>
        ))}
      </select>
      {role === 'approver' ? (
        <>
          <label htmlFor="grant-marketplace">Marketplace (an approver approves one)</label>
          <select id="grant-marketplace" required value={marketplace} onChange={(e) => setMarketplace(e.target.value)}>
            <option value="">Choose a marketplace</option>
            {marketplaces.map((name) => (
              <option key={name} value={name}>
                {name}
              </option>
            ))}
          </select>
        </>
      ) : null}
      <ProblemNotice error={grant.error} />
      <div>
        <button type="submit" disabled={grant.isPending}>
          Grant role
        </button>
      </div>
    </form>
  );
}

function GrantRow({ grant }: { grant: Grant }) {
  const queries = useQueryClient();
  const remove = useMutation({
    mutationFn: () => data(api.DELETE('/api/v1/roles/{id}', { params: { path: { id: grant.id } } })),
    onSuccess: () => void queries.invalidateQueries({ queryKey: grantsQuery.queryKey }),
  });
  const what = `${grant.role}${grant.marketplace ? ` of ${grant.marketplace}` : ''}`;
  return (
    <tr>
      <th scope="row">{grant.principal}</th>
      <td>{humanize(grant.role)}</td>
      <td>{grant.marketplace ?? <span className="muted">all</span>}</td>
      <td>{grant.grantedBy}</td>
      <td>
        <When at={grant.grantedAt} />
      </td>
      <td>
        <ConfirmButton
          label="Remove"
          name={`Remove ${grant.principal} as ${what}`}
          onConfirm={() => remove.mutate()}
          pending={remove.isPending}
        />
        <ProblemNotice error={remove.error} />
      </td>
    </tr>
  );
}

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
        {(list) =>
          list.length === 0 ? (
            <Empty>No role has been granted.</Empty>
          ) : (
            <table>
              <ColumnHeads columns={['Principal', 'Role', 'Marketplace', 'Granted by', 'Granted', 'Actions']} />
              <tbody>
                {list.map((grant) => (
                  <GrantRow key={grant.id} grant={grant} />
                ))}
              </tbody>
            </table>
          )
        }
      </Loaded>
      <GrantRole marketplaces={(marketplaces.data ?? []).map((m) => m.name)} />
    </section>
  );
}
