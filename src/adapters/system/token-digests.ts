import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** A token secret: `gw_` followed by 32 random bytes, Base64url without padding (docs/access.md). */
export const newTokenSecret = (): string => `gw_${randomBytes(32).toString('base64url')}`;
export const tokenSecretPattern = /^gw_[A-Za-z0-9_-]{43}$/;

/** The only form in which a secret is stored: its SHA-256, hex. */
export const digestOf = (secret: string): string => createHash('sha256').update(secret, 'utf8').digest('hex');

/** An opaque random handle (session ids, CSRF tokens, OAuth state). */
export const randomHandle = (bytes = 32): string => randomBytes(bytes).toString('base64url');

export function constantTimeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, 'utf8');
  const right = Buffer.from(b, 'utf8');
  return left.length === right.length && timingSafeEqual(left, right);
}
