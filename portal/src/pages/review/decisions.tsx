// The decisions on a held (or revoked) snapshot: approve (asked twice: it publishes), approve over a BLOCKED
// vetting outcome with a reason (admin only: POST approve?overrideReason=), and reject with an optional
// reason (POST reject?reason=). Only what the session's roles allow is shown; the server still enforces
// each. A refusal shows its problem document, with the policy denials (denials[]) or the uncovered
// findings it carries.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api, ApiError, data } from '../../api/client';
import { useSession } from '../../api/session';
import { ProblemNotice, Sha, shortSha } from '../../components/ui';
import { ConfirmButton } from '../../components/confirm-button';
import { marketplacesKey, vettingQuery, type Located } from './queries';

type Extra = Readonly<{
  denials?: ReadonlyArray<Readonly<{ rule?: string; outcome?: string }>>;
  uncovered?: ReadonlyArray<Readonly<{ connector?: string; ruleId?: string; location?: string }>>;
}>;

/** The problem document, and what a refused approval adds to it (policy denials, uncovered findings). */
function Refusal({ error }: { error: unknown }) {
  if (!error) return null;
  const extra: Extra = error instanceof ApiError ? (error.problem as Extra) : {};
  return (
    <>
      <ProblemNotice error={error} />
      {extra.denials?.length ? (
        <div className="notice notice-error">
          <strong>Policy denials</strong>
          <ul>
            {extra.denials.map((d, i) => (
              <li key={i}>
                Rule <code>{d.rule}</code>: {d.outcome}
              </li>
            ))}
          </ul>
        </div>
      ) : null}
      {extra.uncovered?.length ? (
        <div className="notice notice-error">
          <strong>Blocking findings no waiver covers</strong>
          <ul>
            {extra.uncovered.map((u, i) => (
              <li key={i}>
                <code>{u.ruleId}</code> ({u.connector}) at <code>{u.location}</code>
              </li>
            ))}
          </ul>
        </div>
      ) : null}
    </>
  );
}

function useDecision(id: number) {
  const queries = useQueryClient();
  const settle = () =>
    Promise.all([
      queries.invalidateQueries({ queryKey: marketplacesKey }),
      queries.invalidateQueries({ queryKey: ['snapshot', id] }),
    ]);
  const approve = useMutation({
    mutationFn: (overrideReason: string | null) =>
      data(
        api.POST('/api/v1/snapshots/{id}/approve', {
          params: { path: { id }, ...(overrideReason ? { query: { overrideReason } } : {}) },
        }),
      ),
    onSuccess: settle,
  });
  const reject = useMutation({
    mutationFn: (reason: string) =>
      data(
        api.POST('/api/v1/snapshots/{id}/reject', {
          params: { path: { id }, ...(reason ? { query: { reason } } : {}) },
        }),
      ),
    onSuccess: settle,
  });
  return { approve, reject };
}

function Override({ onOverride, pending }: { onOverride: (reason: string) => void; pending: boolean }) {
  const [reason, setReason] = useState('');
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (reason.trim()) onOverride(reason.trim());
  };
  return (
    <details className="override">
      <summary>Override the blocked outcome (admin)</summary>
      <form className="stack" onSubmit={submit}>
        <label htmlFor="override-reason">
          Reason for approving over the blocking findings (recorded on the ledger)
        </label>
        <textarea id="override-reason" required rows={2} value={reason} onChange={(e) => setReason(e.target.value)} />
        <div className="row">
          <button type="submit" className="danger" disabled={pending || !reason.trim()}>
            Approve with override
          </button>
        </div>
      </form>
    </details>
  );
}

/** Reject, asked in place with an optional reason (recorded on the ledger and shown with the snapshot). */
function Reject({ id, pending, onReject }: { id: number; pending: boolean; onReject: (reason: string) => void }) {
  const [asking, setAsking] = useState(false);
  const [reason, setReason] = useState('');
  if (!asking)
    return (
      <button type="button" className="secondary" disabled={pending} onClick={() => setAsking(true)}>
        Reject
      </button>
    );
  return (
    <form
      className="stack reject-form"
      onSubmit={(event) => {
        event.preventDefault();
        onReject(reason.trim());
      }}
    >
      <p>Reject snapshot {id}? It will not be served, and a rejected snapshot is never approved.</p>
      <label htmlFor="reject-reason">Reason (optional, recorded on the ledger)</label>
      <textarea id="reject-reason" rows={2} value={reason} onChange={(e) => setReason(e.target.value)} />
      <div className="row">
        <button type="submit" className="danger" disabled={pending}>
          Yes, reject
        </button>
        <button type="button" className="secondary" onClick={() => setAsking(false)}>
          Keep it held
        </button>
      </div>
    </form>
  );
}

export function Decisions({ located }: { located: Located }) {
  const session = useSession();
  const { marketplace, snapshot } = located;
  const vetting = useQuery(vettingQuery(snapshot.id));
  const { approve, reject } = useDecision(snapshot.id);
  const open = snapshot.state === 'held' || snapshot.state === 'revoked';
  const blocked = vetting.data?.outcome === 'BLOCKED';
  const pending = approve.isPending || reject.isPending;
  if (approve.data)
    return (
      <p className="notice notice-good" role="status">
        Approved: the facade now serves <Sha sha={approve.data.sha} />.
      </p>
    );
  if (reject.data)
    return (
      <p className="notice notice-good" role="status">
        Rejected: snapshot {reject.data.id} will not be served.
      </p>
    );
  if (!open) return null;
  return (
    <section className="decisions" aria-labelledby="decisions-title">
      <h2 id="decisions-title">Decision</h2>
      {blocked ? (
        <p className="notice notice-warn">
          Vetting is blocked: waive each blocking finding (with a justification and an expiry) to approve
          {session.admin ? ', or override with a reason' : ''}.
        </p>
      ) : null}
      <div className="row">
        {blocked ? (
          <button type="button" disabled>
            Approve
          </button>
        ) : (
          <ConfirmButton
            label="Approve"
            danger={false}
            pending={pending}
            onConfirm={() => approve.mutate(null)}
            explanation={`Approve snapshot ${String(snapshot.id)}? The facade then serves commit ${shortSha(snapshot.sha)} to every user of ${marketplace.name}.`}
          />
        )}
        <Reject id={snapshot.id} pending={pending} onReject={(reason) => reject.mutate(reason)} />
      </div>
      {blocked && session.admin ? <Override pending={pending} onOverride={(r) => approve.mutate(r)} /> : null}
      <Refusal error={approve.error ?? reject.error} />
    </section>
  );
}
