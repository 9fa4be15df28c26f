// Lifetimes offered when a credential is created. The gateway may cap them (gateway.tokens.max-ttl):
// a request beyond the cap is refused with 422 and shown as such, never shortened here.
export type ExpiryChoice = Readonly<{ value: string; label: string; days: number | null }>;

export const personalExpiries: readonly ExpiryChoice[] = [
  { value: '7', label: '7 days', days: 7 },
  { value: '30', label: '30 days', days: 30 },
  { value: '90', label: '90 days', days: 90 },
  { value: '365', label: '1 year', days: 365 },
  { value: 'never', label: 'No expiry', days: null },
];

/** Machine credentials must expire, at most 90 days ahead unless max-ttl says otherwise (docs/access.md). */
export const machineExpiries: readonly ExpiryChoice[] = personalExpiries.filter((e) => e.days !== null && e.days <= 90);

export function expiresAtOf(choices: readonly ExpiryChoice[], value: string, now: number = Date.now()): string | null {
  const days = choices.find((c) => c.value === value)?.days ?? null;
  return days === null ? null : new Date(now + days * 86_400_000).toISOString();
}

export type CredentialState = 'active' | 'revoked' | 'expired';

export function stateOf(
  token: Readonly<{ revokedAt: string | null; expiresAt: string | null }>,
  now: number = Date.now(),
): CredentialState {
  if (token.revokedAt) return 'revoked';
  if (token.expiresAt && Date.parse(token.expiresAt) <= now) return 'expired';
  return 'active';
}
