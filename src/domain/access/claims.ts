// Claims kept with a session are bounded: an identity provider may send thousands of groups.
export const maxClaimListLength = 256;
export const maxClaimStringLength = 1024;

/** The claims as kept, and whether anything was cut (GET /me reports it as claimsTruncated). */
export function boundClaims(claims: Readonly<Record<string, unknown>>): {
  claims: Record<string, unknown>;
  truncated: boolean;
} {
  let truncated = false;
  const bound = (value: unknown): unknown => {
    if (typeof value === 'string' && value.length > maxClaimStringLength) {
      truncated = true;
      return value.slice(0, maxClaimStringLength);
    }
    if (Array.isArray(value)) {
      if (value.length > maxClaimListLength) truncated = true;
      return value.slice(0, maxClaimListLength).map(bound);
    }
    return value;
  };
  const kept: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(claims)) kept[name] = bound(value);
  return { claims: kept, truncated };
}
