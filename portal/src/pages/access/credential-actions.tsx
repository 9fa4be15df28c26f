// The last cell of a credential's row (personal and machine tokens): rotate and revoke while it is active,
// revoke asked twice in place (components/confirm-button.tsx).
import { ConfirmButton } from '../../components/confirm-button';
import { ProblemNotice } from '../../components/ui';

type Action = Readonly<{ isPending: boolean; error: unknown; mutate: () => void }>;

/** Rotate and revoke while the credential is active, and what either refused. */
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
          <ConfirmButton label="Revoke" name={`Revoke ${name}`} onConfirm={() => revoke.mutate()} />
        </div>
      ) : null}
      <ProblemNotice error={rotate.error ?? revoke.error} />
    </td>
  );
}
