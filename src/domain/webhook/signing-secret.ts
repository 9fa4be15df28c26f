// Standard Webhooks' secret form: `whsec_` and the base64 of the key bytes. The gateway issues 24 random
// bytes; a secret declared in the estate file must be of the same form and at least as long.

const form = /^whsec_([A-Za-z0-9+/]+={0,2})$/;

/** The fewest key bytes a signing secret may carry: 24 random bytes, as the gateway issues. */
export const signingKeyMinBytes = 24;

/** Whether `secret` is `whsec_` and the base64 of at least 24 bytes (pure: no value is logged or returned). */
export function isSigningSecret(secret: string): boolean {
  const match = form.exec(secret);
  if (!match) return false;
  const base64 = match[1]!;
  if (base64.length % 4 !== 0) return false;
  const padding = base64.endsWith('==') ? 2 : base64.endsWith('=') ? 1 : 0;
  return (base64.length / 4) * 3 - padding >= signingKeyMinBytes;
}
