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
  // One pass (it runs for every pair of every request): the first approved live capture, else the latest revocation.
  let revokedAt: string | null = null;
  for (const c of captures) {
    if (c.state === 'approved' && c.live)
      return { state: 'approved', revokedAt: null, approvedOverReversedRevocation: c.wasRevoked };
    if (c.state === 'revoked' && c.revokedAt !== null && (revokedAt === null || c.revokedAt > revokedAt))
      revokedAt = c.revokedAt;
  }
  if (revokedAt !== null) return { state: 'revoked', revokedAt, approvedOverReversedRevocation: false };
  return unknown;
}
