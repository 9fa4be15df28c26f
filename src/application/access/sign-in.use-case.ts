// What the sign-in surfaces use of the identity adapters: the built-in issuer's mount path and password
// check, and why an identity provider refused a sign-in (for the log).
import { IdentityError } from '../../adapters/identity/oidc.ts';
import { localIdpPath, type LocalIdp } from '../../adapters/identity/local-idp/local-idp.ts';

export type { LocalIdp } from '../../adapters/identity/local-idp/local-idp.ts';

/** Where the built-in issuer is mounted on the gateway's own server. */
export const localIssuerPath: string = localIdpPath;

/** Whether the built-in issuer's one account has this user name and password. */
export const checkLocalPassword = (idp: LocalIdp, username: string, password: string): Promise<boolean> =>
  idp.checkPassword(username, password);

/** What to log of a refused sign-in: the provider's own error when the identity adapter wrapped it. */
export const signInRefusalCause = (error: unknown): unknown => (error instanceof IdentityError ? error.cause : error);
