// A destructive or weighty action asked twice, in place: the first press turns the button into a group with
// the second press and "Cancel", so nothing is revoked, removed or published by a stray click (no
// window.confirm: it is modal, unstyled and invisible to the page's own focus order). Shown with an
// explanation (what the action does), the second press answers it: "Yes, approve"; alone it says "Confirm
// revoke".
import { useState, type ReactNode } from 'react';

export function ConfirmButton({
  label,
  name = label,
  explanation,
  onConfirm,
  pending = false,
  danger = true,
}: {
  /** The action as the button shows it, for instance "Revoke" or "Run a compaction pass". */
  label: string;
  /** The accessible name, where the label alone does not name the object: "Revoke laptop". */
  name?: string;
  /** What the action does, shown beside the second press. */
  explanation?: ReactNode;
  onConfirm: () => void;
  /** While the action runs: the second press waits. */
  pending?: boolean;
  /** Red (the default) for what destroys; a plain button for what only weighs. */
  danger?: boolean;
}) {
  const [asking, setAsking] = useState(false);
  if (!asking)
    return (
      <button
        type="button"
        className={danger ? 'danger' : 'secondary'}
        aria-label={name === label ? undefined : name}
        onClick={() => setAsking(true)}
      >
        {label}
      </button>
    );
  const action = label.toLowerCase();
  return (
    <span className="row" role="group" aria-label={`Confirm: ${name}`}>
      {explanation ? <span>{explanation}</span> : null}
      <button
        type="button"
        className={danger ? 'danger' : undefined}
        disabled={pending}
        onClick={() => {
          setAsking(false);
          onConfirm();
        }}
      >
        {explanation ? `Yes, ${action}` : `Confirm ${action}`}
      </button>
      <button type="button" className="secondary" onClick={() => setAsking(false)}>
        Cancel
      </button>
    </span>
  );
}
