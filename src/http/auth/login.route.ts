import { Type } from 'typebox';
import { IdentityError, type OidcProvider } from '../../adapters/identity/oidc.ts';
import { randomHandle } from '../../adapters/system/token-digests.ts';
import { boundClaims } from '../../domain/access/claims.ts';
import type { HttpApp, HttpDeps } from '../http-deps.ts';
import { reject } from '../../application/rejected.ts';
import { cookieOptions, sessionCookie } from './cookies.ts';

const loginRequestTtlMs = 10 * 60_000;
const callbackPath = '/login/oauth2/code/idp';

/**
 * Only a place on this gateway: the value is resolved against the base URL the way a browser would
 * (which drops tabs and line breaks), and anything that leaves the origin, or carries control
 * characters, falls back to `/` (no open redirect).
 */
export function safeReturn(value: unknown, baseUrl: string): string {
  if (
    typeof value !== 'string' ||
    value.length > 2000 ||
    /[\u0000-\u001f\u007f\\]/.test(value) ||
    !value.startsWith('/')
  )
    return '/';
  try {
    const base = new URL(baseUrl);
    const target = new URL(value, base);
    return target.origin === base.origin ? `${target.pathname}${target.search}${target.hash}` : '/';
  } catch {
    return '/';
  }
}

/** spec, Authentication: login paths /oauth2/authorization/idp and /login/oauth2/code/idp (authorization code with PKCE). */
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
      const at = deps.clock.now().getTime();
      await deps.sessions.putLoginRequest(
        checks.state,
        {
          codeVerifier: checks.codeVerifier,
          nonce: checks.nonce,
          returnTo: safeReturn(request.query.returnTo, deps.baseUrl),
        },
        new Date(at + loginRequestTtlMs).toISOString(),
      );
      const url = await provider.authorizationUrl(`${deps.baseUrl}${callbackPath}`, checks).catch((error: unknown) => {
        request.log.error({ err: error }, 'identity provider unavailable');
        throw reject('internal-error', 'the identity provider is unavailable; try again shortly');
      });
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
      const now = deps.clock.now();
      const pending = state ? await deps.sessions.takeLoginRequest(state, now.toISOString()) : null;
      if (!state || !pending)
        throw reject(
          'forbidden',
          'this sign-in is unknown, expired or was already used; start again at /oauth2/authorization/idp',
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
        request.log.warn({ err: error instanceof IdentityError ? error.cause : error }, 'sign-in refused');
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
