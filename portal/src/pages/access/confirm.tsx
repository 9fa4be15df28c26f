// A destructive action asked twice, in place: the first press turns the button into "Confirm …" and
// "Cancel", so nothing is revoked or removed by a stray click (no window.confirm: it is modal, unstyled
// and invisible to the page's own focus order).
import { useState } from 'react';
import { ProblemNotice } from '../../components/ui';

export function ConfirmButton({
  label,
  confirmLabel,
  onConfirm,
  busy = false,
}: {
  /** The action, for instance "Revoke". */
  label: string;
  /** What the second press does, naming the object: "Revoke laptop". */
  confirmLabel: string;
  onConfirm: () => void;
  busy?: boolean;
}) {
  const [asking, setAsking] = useState(false);
  if (!asking) {
    return (
      <button type="button" className="danger" aria-label={confirmLabel} onClick={() => setAsking(true)}>
        {label}
      </button>
    );
  }
  return (
    <span className="row confirm" role="group" aria-label={`Confirm: ${confirmLabel}`}>
      <button
        type="button"
        className="danger"
        disabled={busy}
        onClick={() => {
          setAsking(false);
          onConfirm();
        }}
      >
        Confirm {label.toLowerCase()}
      </button>
      <button type="button" className="secondary" onClick={() => setAsking(false)}>
        Cancel
      </button>
    </span>
  );
}

type Action = Readonly<{ isPending: boolean; error: unknown; mutate: () => void }>;

/** The last cell of a credential's row: rotate and revoke while it is active, and what either refused. */
export function CredentialActions({
  name,
  active,
  rotate,
  revoke,
}: {
  name: string;
  active: boolean;
  rotate: Action;
  revoke: Action;
}) {
  return (
    <td>
      {active ? (
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
          <ConfirmButton label="Revoke" confirmLabel={`Revoke ${name}`} onConfirm={() => revoke.mutate()} />
        </div>
      ) : null}
      <ProblemNotice error={rotate.error ?? revoke.error} />
    </td>
  );
}
