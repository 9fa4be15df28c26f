import { Type } from 'typebox';
import type { OidcProvider } from '../../adapters/identity/oidc.ts';
import { signInRefusalCause } from '../../application/access/sign-in.use-case.ts';
import { randomHandle } from '../../adapters/system/token-digests.ts';
import { boundClaims } from '../../domain/access/claims.ts';
import type { HttpApp, HttpDeps } from '../http-deps.ts';
import { reject } from '../../application/kernel/rejected.ts';
import { cookieOptions, signInCookie, sessionCookie } from './cookies.ts';

const loginRequestTtlMs = 10 * 60_000;
const callbackPath = '/login/oauth2/code/idp';
/** Sign-ins begun and not yet finished, across replicas, when gateway.rate-limit is not configured. */
const defaultMaxPending = 10_000;

// decision 351: the sign-in cookie is read only by the callback, lives as long as the login request, and
// goes over a top-level navigation back from the identity provider (SameSite=Lax).
const signInCookieOptions = (secure: boolean) => ({
  ...cookieOptions(secure, true),
  path: callbackPath,
  maxAge: loginRequestTtlMs / 1000,
});

/**
 * The key a login request is stored under: its OIDC state together with the nonce of the browser that
 * began it (decision 351), so a callback URL replayed in another browser finds nothing.
 */
const requestKey = (state: string, binding: string) => `${state}.${binding}`;

/** What a Location may carry: an absolute path on this origin, never `//` (another host), a backslash or a control character. */
const isLocalPath = (path: string): boolean =>
  path.startsWith('/') && !path.startsWith('//') && !/[\u0000-\u001f\u007f\\]/.test(path);

/**
 * Only a place on this gateway: the value is first resolved against the base URL the way a browser would
 * (dot segments, `%2e`), and what comes out is checked as well as what went in: `/.//host`, `/a/..//host` or `/%2e%2e//host` normalise to `//host`, which a browser would take
 * to another origin. Anything that leaves the origin or is not a plain local path falls back to `/` (no
 * open redirect; decision 350).
 */
export function safeReturn(value: unknown, baseUrl: string): string {
  if (typeof value !== 'string' || value.length > 2000 || !isLocalPath(value)) return '/';
  try {
    const base = new URL(baseUrl);
    const target = new URL(value, base);
    const path = `${target.pathname}${target.search}${target.hash}`;
    return target.origin === base.origin && isLocalPath(path) ? path : '/';
  } catch {
    return '/';
  }
}

/** The login paths (docs/access.md, Sessions): /oauth2/authorization/idp and /login/oauth2/code/idp (authorization code with PKCE). */
export function loginRoutes(app: HttpApp, deps: HttpDeps): void {
  authorizationRoute(app, deps);
  callbackRoute(app, deps);
  logoutRoute(app, deps);
}

// Looked up per request: without an issuer the login paths answer 404 rather than being absent.
function identityOf(deps: HttpDeps): OidcProvider {
  if (!deps.identity) throw reject('not-found', 'no identity provider is configured (gateway.oidc.issuer)');
  return deps.identity;
}

const secureCookies = (deps: HttpDeps): boolean => deps.baseUrl.startsWith('https:');

function authorizationRoute(app: HttpApp, deps: HttpDeps): void {
  app.get(
    '/oauth2/authorization/idp',
    {
      schema: {
        tags: ['session'],
        summary: 'Start a browser sign-in at the identity provider',
        querystring: Type.Object({ returnTo: Type.Optional(Type.String()) }),
      },
    },
    async (request, reply) => {
      const provider = identityOf(deps);
      const checks = { state: randomHandle(), nonce: randomHandle(), codeVerifier: randomHandle(48) };
      const binding = randomHandle();
      const at = deps.clock.now().getTime();
      await deps.sessions.putLoginRequest(
        requestKey(checks.state, binding),
        {
          codeVerifier: checks.codeVerifier,
          nonce: checks.nonce,
          returnTo: safeReturn(request.query.returnTo, deps.baseUrl),
        },
        new Date(at + loginRequestTtlMs).toISOString(),
        { at: new Date(at).toISOString(), maxPending: deps.rateLimit?.signIn.maxPending ?? defaultMaxPending },
      );
      const url = await provider.authorizationUrl(`${deps.baseUrl}${callbackPath}`, checks).catch((error: unknown) => {
        request.log.error({ err: error }, 'identity provider unavailable');
        throw reject('internal-error', 'the identity provider is unavailable; try again shortly');
      });
      void reply.setCookie(signInCookie, binding, signInCookieOptions(secureCookies(deps)));
      return reply.redirect(url.toString(), 302);
    },
  );
}

function callbackRoute(app: HttpApp, deps: HttpDeps): void {
  const secure = secureCookies(deps);
  app.get(
    callbackPath,
    {
      schema: {
        tags: ['session'],
        summary: 'Where the identity provider returns the browser',
        querystring: Type.Object({ state: Type.Optional(Type.String()) }, { additionalProperties: true }),
      },
    },
    async (request, reply) => {
      const provider = identityOf(deps);
      const state = request.query.state;
      const binding = request.cookies[signInCookie];
      const now = deps.clock.now();
      // Spent whatever happens next: the browser's nonce serves one callback.
      void reply.clearCookie(signInCookie, signInCookieOptions(secure));
      const pending =
        state && binding ? await deps.sessions.takeLoginRequest(requestKey(state, binding), now.toISOString()) : null;
      if (!state || !pending)
        throw reject(
          'forbidden',
          'this sign-in is unknown, expired, already used, or was begun in another browser; start again at ' +
            '/oauth2/authorization/idp',
        );
      const callbackUrl = new URL(`${deps.baseUrl}${request.url}`);
      let claims: Record<string, unknown>;
      try {
        claims = await provider.completeLogin(callbackUrl, {
          state,
          nonce: pending.nonce,
          codeVerifier: pending.codeVerifier,
        });
      } catch (error) {
        request.log.warn({ err: signInRefusalCause(error) }, 'sign-in refused');
        throw reject(
          'unauthenticated',
          'the identity provider did not confirm the sign-in; start again at /oauth2/authorization/idp',
        );
      }
      const principal = provider.principalOf(claims);
      if (!principal)
        throw reject(
          'unauthenticated',
          `the identity provider sent no '${provider.settings.userNameAttribute}' claim to name you by`,
        );
      const bounded = boundClaims(claims);
      const expiresAt = new Date(now.getTime() + deps.access.sessionTtlMs);
      const id = await deps.sessions.create(
        { principal, claims: bounded.claims, claimsTruncated: bounded.truncated, expiresAt: expiresAt.toISOString() },
        now.toISOString(),
      );
      void reply.setCookie(sessionCookie, id, { ...cookieOptions(secure, true), expires: expiresAt });
      request.log.info({ principal }, 'signed in');
      return reply.redirect(pending.returnTo, 302);
    },
  );
}

// A state-changing request on the session path: CSRF applies (authenticate.ts).
function logoutRoute(app: HttpApp, deps: HttpDeps): void {
  const secure = secureCookies(deps);
  app.post(
    '/api/v1/logout',
    {
      schema: { tags: ['session'], summary: 'End the browser session', response: { 204: Type.Null() } },
    },
    async (request, reply) => {
      const id = request.caller?.sessionId;
      if (id) await deps.sessions.delete(id);
      void reply.clearCookie(sessionCookie, cookieOptions(secure, true));
      return reply.code(204).send(null);
    },
  );
}
