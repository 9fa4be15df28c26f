// What personal access tokens and machine credentials share: the form that issues one (a heading, the
// fields of its kind, its lifetime, what refused it), and the last columns of its row: when it was last used,
// its state, rotate and revoke while it is active (revoke asked twice in place: components/confirm-button.tsx).
import { useMutation, useQueryClient, type QueryKey } from '@tanstack/react-query';
import { useState, type ReactNode } from 'react';
import { ConfirmButton } from '../../components/confirm-button';
import { humanize } from '../../components/labels';
import { ChangeForm } from '../../components/change-form';
import { Options, ProblemNotice, StateBadge, When } from '../../components/ui';
import type { Column } from '../../components/table';
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
  return (
    <ChangeForm
      id={id}
      title={title}
      submit={submit}
      change={{ ...issue, mutate: () => issue.mutate(expiresAtOf(choices, expiry)) }}
    >
      {children}
      <label htmlFor={`${id}-expiry`}>Expires after</label>
      <select id={`${id}-expiry`} value={expiry} onChange={(e) => setExpiry(e.target.value)}>
        <Options
          values={choices.map((choice) => choice.value)}
          label={(value) => choices.find((choice) => choice.value === value)?.label}
        />
      </select>
    </ChangeForm>
  );
}

type Credential = Readonly<{
  name: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
  expiresAt: string | null;
}>;

/** How a credential of one kind is rotated and revoked, and which list either reads again. */
type Handling<C, Rotated> = Readonly<{
  list: QueryKey;
  rotate: (credential: C) => Promise<Rotated>;
  revoke: (credential: C) => Promise<unknown>;
  /** Where a rotation's new secret goes. */
  onRotated: (rotated: Rotated) => void;
}>;

/** Rotate and revoke while the credential is active, with what either refused. */
function CredentialActions<C extends Credential, Rotated>({
  credential,
  handling,
}: {
  credential: C;
  handling: Handling<C, Rotated>;
}) {
  const queries = useQueryClient();
  const refresh = () => void queries.invalidateQueries({ queryKey: handling.list });
  const rotate = useMutation({
    mutationFn: () => handling.rotate(credential),
    onSuccess: (rotated) => {
      handling.onRotated(rotated);
      refresh();
    },
  });
  const revoke = useMutation({ mutationFn: () => handling.revoke(credential), onSuccess: refresh });
  const { name } = credential;
  return (
    <>
      {stateOf(credential) === 'active' ? (
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
    </>
  );
}

/** The last columns of a credential's row: when it was last used, its state, and its actions. */
export function credentialColumns<C extends Credential, Rotated>(
  handling: Handling<C, Rotated>,
): ReadonlyArray<Column<C>> {
  return [
    {
      head: 'Last used',
      cell: (c) => (c.lastUsedAt ? <When at={c.lastUsedAt} /> : <span className="muted">never</span>),
    },
    { head: 'State', cell: (c) => <StateBadge state={stateOf(c)} label={humanize(stateOf(c))} /> },
    { head: 'Actions', cell: (c) => <CredentialActions credential={c} handling={handling} /> },
  ];
}
