// Which of a person's tokens can fetch a marketplace through the git facade, read from the token list the
// gateway answers (decision 423). It follows the facade's own rule (docs/access.md, tokens and scopes): an
// active token without API scopes, whose scopes are empty (every marketplace) or name it. The facade itself
// keeps answering an out-of-scope marketplace as a nonexistent one, so this is where a person learns why git
// says "repository not found".
// With its extension, and no import of the API client: the unit tests import this module under Node's own
// module resolution.
import { stateOf } from './expiry.ts';

/** What of a token (GET /api/v1/tokens) decides what it can fetch. */
export type FetchingToken = Readonly<{
  name: string;
  revokedAt: string | null;
  expiresAt: string | null;
  scopes: readonly string[];
  apiScopes: readonly string[];
}>;

/** What of a marketplace (GET /api/v1/marketplaces) tells whether it serves anything. */
export type ServingMarketplace = Readonly<{ name: string; servedSha: string | null }>;

export const mayFetch = (token: FetchingToken, name: string, now: number = Date.now()): boolean =>
  stateOf(token, now) === 'active' &&
  token.apiScopes.length === 0 &&
  (token.scopes.length === 0 || token.scopes.includes(name));

export type Reach<T extends FetchingToken = FetchingToken> = Readonly<{
  name: string;
  /** The virtual catalog rather than a marketplace. */
  catalog: boolean;
  /** False for a marketplace that serves nothing yet (nothing approved): every fetch answers not found. */
  served: boolean;
  /** The person's tokens that can fetch it, by name. */
  tokens: readonly T[];
}>;

/** For each name the managed settings register, in their order: what the person's tokens reach. */
export function reachOf<T extends FetchingToken>(
  names: readonly string[],
  tokens: readonly T[],
  marketplaces: readonly ServingMarketplace[],
  catalogName: string | null,
  now: number = Date.now(),
): Reach<T>[] {
  return names.map((name) => {
    const marketplace = marketplaces.find((m) => m.name === name);
    return {
      name,
      catalog: name === catalogName,
      served: name === catalogName || (marketplace?.servedSha ?? null) !== null,
      tokens: tokens.filter((token) => mayFetch(token, name, now)),
    };
  });
}

/**
 * The catalog's name, when the managed settings register it by default: the gateway registers the catalog
 * when it is enabled and every live marketplace otherwise, so a default entry that is no live marketplace is
 * the catalog. Null when the catalog is disabled.
 */
export function catalogNameOf(
  defaultNames: readonly string[],
  marketplaces: readonly ServingMarketplace[],
): string | null {
  const live = new Set(marketplaces.map((m) => m.name));
  return defaultNames.find((name) => !live.has(name)) ?? null;
}
