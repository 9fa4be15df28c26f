import type { Event, Instant } from '../kernel/decider.ts';

export const tokenKinds = ['personal', 'session', 'machine'] as const;
export type TokenKind = (typeof tokenKinds)[number];

export type TokenFields = Readonly<{
  kind: TokenKind;
  /** Whose token it is: the person for personal and session tokens, the provisioner (machineOwner) for machine ones. */
  owner: string;
  /** What the ledger attributes its use to: the owner, or the machine credential's own principal. */
  principal: string;
  name: string;
  scopes: readonly string[];
  pushScopes: readonly string[];
  apiScopes: readonly string[];
  expiresAt: Instant | null;
}>;

export type TokenIssued = Event<
  'token-issued',
  TokenFields & {
    tokenId: number;
    /** SHA-256 of the secret, hex; the secret itself is never stored. */
    digest: string;
    rotatedFrom: number | null;
    issuedAt: Instant;
    issuedBy: string;
  }
>;

export type TokenRevoked = Event<
  'token-revoked',
  {
    tokenId: number;
    kind: TokenKind;
    owner: string;
    principal: string;
    name: string;
    cause: 'deleted' | 'rotated';
    revokedAt: Instant;
    revokedBy: string;
  }
>;

/** A successful authentication, written at most once a minute per token (docs/access.md: lastUsedAt). */
export type TokenUsed = Event<'token-used', { tokenId: number; usedAt: Instant }>;

export type TokenEvent = TokenIssued | TokenRevoked | TokenUsed;
