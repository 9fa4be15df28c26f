/** The revocation check (docs/facade.md): approved, revoked or unknown, with no way to tell unknown cases apart. */
export type HoldingState = 'approved' | 'revoked' | 'unknown';

export type Capture = Readonly<{
  state: 'held' | 'approved' | 'rejected' | 'revoked';
  revokedAt: string | null;
  wasRevoked: boolean;
  live: boolean;
}>;

export type HoldingAnswer = Readonly<{
  state: HoldingState;
  revokedAt: string | null;
  approvedOverReversedRevocation: boolean;
}>;

const unknown: HoldingAnswer = { state: 'unknown', revokedAt: null, approvedOverReversedRevocation: false };

/**
 * `approved` ignores supersession; `revoked` carries when (never why); every other case (never held,
 * aged out, never approved, out of scope, nonexistent) is `unknown`.
 */
export function answerHolding(captures: readonly Capture[], inScope: boolean): HoldingAnswer {
  if (!inScope) return unknown;
  const approved = captures.find((c) => c.state === 'approved' && c.live);
  if (approved) return { state: 'approved', revokedAt: null, approvedOverReversedRevocation: approved.wasRevoked };
  const revoked = captures
    .filter((c) => c.state === 'revoked' && c.revokedAt !== null)
    .sort((a, b) => (a.revokedAt! < b.revokedAt! ? 1 : -1))[0];
  if (revoked) return { state: 'revoked', revokedAt: revoked.revokedAt, approvedOverReversedRevocation: false };
  return unknown;
}
