// What personal access tokens and machine credentials share: the form that issues one (a heading, the
// fields of its kind, its lifetime, what refused it), and the last cells of its row: when it was last used,
// its state, rotate and revoke while it is active (revoke asked twice in place: components/confirm-button.tsx).
import { useMutation, useQueryClient, type QueryKey } from '@tanstack/react-query';
import { useState, type FormEvent, type ReactNode } from 'react';
import { ConfirmButton } from '../../components/confirm-button';
import { humanize } from '../../components/labels';
import { ProblemNotice, StateBadge, When } from '../../components/ui';
import { expiresAtOf, stateOf, type ExpiryChoice } from './expiry';

export function IssueForm({
  id,
  title,
  choices,
  issue,
  submit,
  children,
}: {
  /** What the form's ids start with: its heading's `<id>-title`, its lifetime's `<id>-expiry`. */
  id: string;
  title: string;
  choices: readonly ExpiryChoice[];
  /** Issues the credential expiring at expiresAt (null: never), as useMutation answers. */
  issue: Readonly<{ mutate: (expiresAt: string | null) => void; error: unknown; isPending: boolean }>;
  /** What the submit button says. */
  submit: string;
  /** The fields of its kind, between the heading and the lifetime. */
  children: ReactNode;
}) {
  const [expiry, setExpiry] = useState('90');
  const send = (event: FormEvent) => {
    event.preventDefault();
    issue.mutate(expiresAtOf(choices, expiry));
  };
  return (
    <form className="stack" onSubmit={send} aria-labelledby={`${id}-title`}>
      <h3 id={`${id}-title`}>{title}</h3>
      {children}
      <label htmlFor={`${id}-expiry`}>Expires after</label>
      <select id={`${id}-expiry`} value={expiry} onChange={(e) => setExpiry(e.target.value)}>
        {choices.map((choice) => (
          <option key={choice.value} value={choice.value}>
            {choice.label}
          </option>
        ))}
      </select>
      <ProblemNotice error={issue.error} />
      <div>
        <button type="submit" disabled={issue.isPending}>
          {submit}
        </button>
      </div>
    </form>
  );
}

type Credential = Readonly<{
  name: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
  expiresAt: string | null;
}>;

/**
 * Last used, state, and rotate and revoke while the credential is active with what either refused; either
 * reads the list of its kind again, and a rotation's new secret goes to onRotated.
 */
export function CredentialCells<Rotated>({
  credential,
  list,
  rotate: rotation,
  revoke: revocation,
  onRotated,
}: {
  credential: Credential;
  list: QueryKey;
  rotate: () => Promise<Rotated>;
  revoke: () => Promise<unknown>;
  onRotated: (rotated: Rotated) => void;
}) {
  const queries = useQueryClient();
  const refresh = () => void queries.invalidateQueries({ queryKey: list });
  const rotate = useMutation({
    mutationFn: rotation,
    onSuccess: (rotated) => {
      onRotated(rotated);
      refresh();
    },
  });
  const revoke = useMutation({ mutationFn: revocation, onSuccess: refresh });
  const { name } = credential;
  const state = stateOf(credential);
  return (
    <>
      <td>{credential.lastUsedAt ? <When at={credential.lastUsedAt} /> : <span className="muted">never</span>}</td>
      <td>
        <StateBadge state={state} label={humanize(state)} />
      </td>
      <td>
        {state === 'active' ? (
          <div className="row">
            <button
              type="button"
              className="secondary"
              aria-label={`Rotate ${name}`}
              disabled={rotate.isPending}
              onClick={() => rotate.mutate()}
            >
              Rotate
            </button>
            <ConfirmButton label="Revoke" name={`Revoke ${name}`} onConfirm={() => revoke.mutate()} />
          </div>
        ) : null}
        <ProblemNotice error={rotate.error ?? revoke.error} />
      </td>
    </>
  );
}
