// A destructive action asked twice, in place: the first press turns the button into "Confirm …" and
// "Cancel", so nothing is revoked or removed by a stray click (no window.confirm: it is modal, unstyled
// and invisible to the page's own focus order).
import { useState } from 'react';

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
