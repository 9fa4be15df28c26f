// A destructive or weighty action in two steps: the first press asks, the second does it.
import { useState, type ReactNode } from 'react';

export function ConfirmButton({
  label,
  confirm,
  onConfirm,
  pending,
  danger = true,
}: {
  label: string;
  confirm: ReactNode;
  onConfirm: () => void;
  pending: boolean;
  danger?: boolean;
}) {
  const [asking, setAsking] = useState(false);
  if (!asking)
    return (
      <button type="button" className={danger ? 'danger' : 'secondary'} onClick={() => setAsking(true)}>
        {label}
      </button>
    );
  return (
    <span className="row" role="group" aria-label={label}>
      <span>{confirm}</span>
      <button
        type="button"
        className={danger ? 'danger' : undefined}
        disabled={pending}
        onClick={() => {
          onConfirm();
          setAsking(false);
        }}
      >
        Yes, {label.toLowerCase()}
      </button>
      <button type="button" className="secondary" onClick={() => setAsking(false)}>
        Cancel
      </button>
    </span>
  );
}
