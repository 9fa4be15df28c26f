// Every refusal a decider or a route can give. Each code doubles as the problem slug
// (`<base-url>/problems/<code>`), and src/http/problems.ts must carry a line for each.
export const rejectionCodes = [
  'invalid-request',
  'malformed-body',
  'unsupported-media-type',
  'payload-too-large',
  'not-found',
  'method-not-allowed',
  'unauthenticated',
  'forbidden',
  'conflict',
  'projection-lag',
  'internal-error',
  'invalid-name',
  'marketplace-name-taken',
  'marketplace-not-found',
  'trust-boundary',
  'token-not-found',
  'token-not-active',
  'unknown-scope',
  'lifetime-beyond-cap',
  'invalid-expiry',
  'missing-expiry',
  'grant-not-found',
  'grant-exists',
  'invalid-grant',
] as const;
export type RejectionCode = (typeof rejectionCodes)[number];
