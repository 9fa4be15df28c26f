import type { OidcProvider } from '../../adapters/identity/oidc.ts';
import type { DatabasePool } from '../../adapters/postgres/pool.ts';
import type { Clock } from '../../adapters/system/clock.ts';
import { tokenSecretPattern } from '../../adapters/system/token-digests.ts';
import type { CredentialKind } from '../../domain/access/access.events.ts';
import { facadeTokenOf } from '../../application/access/token-reads.use-case.ts';
import type { TokenUseRecorder } from '../../application/access/token-use.ts';
import type { FacadeMemory } from '../../application/access/facade-memory.ts';

/** Who fetches through /git/** or asks /status/v1/**, and what they may see. */
export type FacadeCaller = Readonly<{
  principal: string;
  credentialKind: CredentialKind;
  /** The personal access token used; null for an identity-provider bearer token. */
  tokenId: number | null;
  /** Marketplace names the credential may fetch; null means every marketplace served. */
  scopes: readonly string[] | null;
  /** Hosted marketplaces the credential may publish to. */
  pushScopes: readonly string[];
}>;

export type FacadeCredentialDeps = Readonly<{
  pool: DatabasePool;
  clock: Clock;
  tokenUse: TokenUseRecorder;
  /** Set only when gateway.facade.idp-bearer.enabled and an identity provider is configured. */
  idpBearer: OidcProvider | null;
  /** The tokens in use, kept in memory (the revocation check passes it); absent: each use reads the read model. */
  facadeMemory?: FacadeMemory;
}>;

function basicPassword(authorization: string): string | null {
  const encoded = authorization.slice(6).trim();
  const decoded = Buffer.from(encoded, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon < 0 ? null : decoded.slice(colon + 1);
}

/**
 * Facade credentials (docs/facade.md): HTTP Basic, only the password read, a personal access token looked up
 * by digest among active tokens (kept in memory when `facadeMemory` is given); expired, revoked and unknown
 * fail alike (null). Optionally an identity-provider JWT as a bearer token. A session cookie never
 * authenticates here, and a machine credential never reaches the facade.
 */
export async function authenticateFacade(
  deps: FacadeCredentialDeps,
  authorization: string | undefined,
): Promise<FacadeCaller | null> {
  if (!authorization) return null;
  if (/^basic /i.test(authorization)) {
    const secret = basicPassword(authorization);
    if (secret === null || !tokenSecretPattern.test(secret)) return null;
    const token = await facadeTokenOf(deps, secret);
    if (!token || token.apiScopes.length > 0) return null;
    deps.tokenUse.record(token.id, token.principal, 'human');
    return {
      principal: token.principal,
      credentialKind: 'pat',
      tokenId: token.id,
      // Empty scopes grant every marketplace (a personal token has no API scopes).
      scopes: token.scopes.length === 0 ? null : token.scopes,
      pushScopes: token.pushScopes,
    };
  }
  if (/^bearer /i.test(authorization) && deps.idpBearer) {
    const claims = await deps.idpBearer.verifyBearer(authorization.slice(7).trim());
    const principal = claims ? deps.idpBearer.principalOf(claims) : null;
    // An identity-provider bearer permits every marketplace served, and publishes nowhere.
    return principal ? { principal, credentialKind: 'idp', tokenId: null, scopes: null, pushScopes: [] } : null;
  }
  return null;
}

/** An out-of-scope marketplace answers exactly as a nonexistent one (docs/access.md, Tokens). */
export const mayFetch = (caller: FacadeCaller, marketplace: string): boolean =>
  caller.scopes === null || caller.scopes.includes(marketplace);
export const mayPush = (caller: FacadeCaller, marketplace: string): boolean => caller.pushScopes.includes(marketplace);
