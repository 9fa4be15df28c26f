// Waivers (docs/vetting.md, Waivers): create one for a blocking finding (POST /api/v1/snapshots/{id}/waivers
// with ruleId, scope SNAPSHOT or PATH, path for PATH, justification, expiresAt in the future), list the
// marketplace's waivers (GET /api/v1/marketplaces/{name}/waivers, active and lapsed) and revoke one
// (DELETE /api/v1/waivers/{id}: the row stays, active false). The outcome is recomputed on every read, so
// the snapshot's reads are simply read again.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api, data, type Body } from '../../api/client';
import { humanize } from '../../components/labels';
import { Loaded, ProblemNotice, StateBadge, When } from '../../components/ui';
import { Table, type Column } from '../../components/table';
import { splitLocation } from './queries';

export type Waivable = Readonly<{ ruleId: string; location: string; connector: string }>;

const waiversKey = (marketplace: string) => ['waivers', marketplace] as const;

/** A datetime-local value (local time, minutes) this many days ahead. */
function daysAhead(days: number): string {
  const at = new Date(Date.now() + days * 86_400_000);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${String(at.getFullYear())}-${pad(at.getMonth() + 1)}-${pad(at.getDate())}T${pad(at.getHours())}:${pad(at.getMinutes())}`;
}

function useSettle(id: number) {
  const queries = useQueryClient();
  return () =>
    Promise.all([
      queries.invalidateQueries({ queryKey: ['snapshot', id] }),
      queries.invalidateQueries({ queryKey: ['waivers'] }),
    ]);
}

export function WaiverForm({ id, finding, onDone }: { id: number; finding: Waivable; onDone: () => void }) {
  const [scope, setScope] = useState<'SNAPSHOT' | 'PATH'>('SNAPSHOT');
  const [path, setPath] = useState(splitLocation(finding.location).path);
  const [justification, setJustification] = useState('');
  const [expires, setExpires] = useState(daysAhead(30));
  const settle = useSettle(id);
  const create = useMutation({
    mutationFn: () =>
      data(
        api.POST('/api/v1/snapshots/{id}/waivers', {
          params: { path: { id } },
          body: {
            ruleId: finding.ruleId,
            scope,
            ...(scope === 'PATH' ? { path } : {}),
            justification,
            expiresAt: expires ? new Date(expires).toISOString() : null,
          },
        }),
      ),
    onSuccess: async () => {
      await settle();
      onDone();
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate();
  };
  return (
    <form className="stack waiver-form" onSubmit={submit} aria-labelledby="waiver-title">
      <h3 id="waiver-title">
        Waive <code>{finding.ruleId}</code> at <code>{finding.location}</code>
      </h3>
      <fieldset>
        <legend>Scope</legend>
        <label className="choice">
          <input type="radio" name="scope" checked={scope === 'SNAPSHOT'} onChange={() => setScope('SNAPSHOT')} /> This
          commit only
        </label>
        <label className="choice">
          <input type="radio" name="scope" checked={scope === 'PATH'} onChange={() => setScope('PATH')} /> Every
          snapshot of the marketplace, under a path
        </label>
      </fieldset>
      {scope === 'PATH' ? (
        <>
          <label htmlFor="waiver-path">Path (repository-relative)</label>
          <input id="waiver-path" required value={path} onChange={(e) => setPath(e.target.value)} />
        </>
      ) : null}
      <label htmlFor="waiver-justification">Justification</label>
      <textarea
        id="waiver-justification"
        required
        rows={3}
        value={justification}
        onChange={(e) => setJustification(e.target.value)}
      />
      <label htmlFor="waiver-expires">Expires at</label>
      <input
        id="waiver-expires"
        type="datetime-local"
        required
        value={expires}
        onChange={(e) => setExpires(e.target.value)}
      />
      <div className="row">
        <button type="submit" disabled={create.isPending}>
          Create waiver
        </button>
        <button type="button" className="secondary" onClick={onDone}>
          Cancel
        </button>
      </div>
      <ProblemNotice error={create.error} />
    </form>
  );
}

function WaiverState({ state }: { state: 'active' | 'revoked' | 'lapsed' }) {
  return <StateBadge state={state} label={humanize(state)} />;
}

type Listed = Body<'/api/v1/marketplaces/{name}/waivers', 'get'>[number];

const waiverColumns: ReadonlyArray<Column<Listed>> = [
  { head: 'Rule', cell: (w) => <code>{w.ruleId}</code> },
  {
    head: 'Scope',
    cell: (w) => (
      <>
        {w.scope === 'SNAPSHOT' ? 'This commit' : 'Under a path'}{' '}
        <code className="sha">{w.scope === 'SNAPSHOT' ? w.scopeValue.slice(0, 12) : w.scopeValue}</code>
      </>
    ),
  },
  { head: 'Justification', cell: (w) => w.justification },
  { head: 'By', cell: (w) => w.approvedBy },
  { head: 'Expires', cell: (w) => <When at={w.expiresAt} /> },
  { head: 'State', cell: (w) => <WaiverState state={w.active ? 'active' : w.revokedAt ? 'revoked' : 'lapsed'} /> },
];

export function Waivers({ marketplace, id, canRevoke }: { marketplace: string; id: number; canRevoke: boolean }) {
  const list = useQuery({
    queryKey: waiversKey(marketplace),
    // Marketplace-wide: a waiver made for another snapshot (or through the API) shows on the next visit.
    refetchOnMount: 'always',
    queryFn: () => data(api.GET('/api/v1/marketplaces/{name}/waivers', { params: { path: { name: marketplace } } })),
  });
  const settle = useSettle(id);
  const revoke = useMutation({
    mutationFn: (waiver: number) => data(api.DELETE('/api/v1/waivers/{id}', { params: { path: { id: waiver } } })),
    onSuccess: settle,
  });
  return (
    <>
      <h2>Waivers of {marketplace}</h2>
      <Loaded query={list}>
        {(waivers) => (
          <Table
            rows={waivers}
            columns={[
              ...waiverColumns,
              {
                head: canRevoke && 'Revoke',
                cell: (w) =>
                  w.active ? (
                    <button
                      type="button"
                      className="secondary"
                      disabled={revoke.isPending}
                      onClick={() => revoke.mutate(w.id)}
                    >
                      Revoke waiver {w.id}
                    </button>
                  ) : null,
              },
            ]}
            rowKey={(w) => w.id}
            empty="No waivers for this marketplace."
          />
        )}
      </Loaded>
      <ProblemNotice error={revoke.error} />
    </>
  );
}
