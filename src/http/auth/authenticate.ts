import type {} from '@fastify/cookie';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { randomHandle, constantTimeEqual, tokenSecretPattern } from '../../adapters/system/token-digests.ts';
import { scopeFor } from '../../domain/access/api-scopes.ts';
import { activeTokenOf } from '../../application/access/token-reads.use-case.ts';
import type { HttpApp, HttpDeps } from '../http-deps.ts';
import { instanceOf, problemFor, sendProblem } from '../problems.ts';
import type { Caller } from './caller.ts';
import { cookieOptions, csrfCookie, csrfHeader, sessionCookie } from './cookies.ts';
import type { TokenUseRecorder } from '../../application/access/token-use.ts';

// Paths that need a caller: the management API, the OpenAPI document with its UI, the metrics and the SBOM.
const protectedPath = (path: string) =>
  path.startsWith('/api/') ||
  path === '/v3/api-docs' ||
  path === '/docs' ||
  path.startsWith('/docs/') ||
  path === '/actuator/prometheus' ||
  path === '/actuator/sbom';
// Wire surfaces answer machines in their own protocols and carry no browser cookies.
const wirePath = (path: string) =>
  ['/git/', '/status/', '/hooks/', '/publish/'].some((prefix) => path.startsWith(prefix));
const safeMethods = new Set(['GET', 'HEAD', 'OPTIONS']);

const pathOf = (request: FastifyRequest) => request.url.split('?')[0] ?? request.url;

/** A browser opening the API reference without a session is sent to sign in and back, as the portal's pages are. */
const browserAtDocs = (deps: HttpDeps, request: FastifyRequest, path: string): boolean =>
  deps.identity !== null &&
  (path === '/docs' || path === '/docs/') &&
  safeMethods.has(request.method) &&
  (request.headers.accept ?? '').includes('text/html');

function deny(
  deps: HttpDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  code: 'unauthenticated' | 'forbidden',
  detail: string,
) {
  return sendProblem(reply, problemFor(deps.baseUrl, { code, detail }, instanceOf(request)));
}

/** The caller a bearer credential names, or null. A personal access token reaches no /api/** endpoint. */
async function machineCaller(deps: HttpDeps, secret: string): Promise<Caller | null> {
  if (!tokenSecretPattern.test(secret)) return null;
  const token = await activeTokenOf(deps, secret);
  if (!token || token.apiScopes.length === 0) return null;
  return {
    via: 'machine',
    principal: token.principal,
    actorType: 'machine',
    credentialId: token.id,
    apiScopes: token.apiScopes,
    claims: {},
    claimsTruncated: false,
    sessionId: null,
  };
}

async function sessionCaller(deps: HttpDeps, request: FastifyRequest): Promise<Caller | null> {
  if (deps.access.devInsecureAuth) {
    // The development hatch (docs/access.md) authenticates the session path from X-Dev-User, with groups
    // from X-Dev-Groups fed through the claim mappings as the claim `groups`.
    const user = request.headers['x-dev-user'];
    if (typeof user !== 'string' || user.trim() === '') return null;
    const groupsHeader = request.headers['x-dev-groups'];
    const groups =
      typeof groupsHeader === 'string'
        ? groupsHeader
            .split(',')
            .map((g) => g.trim())
            .filter(Boolean)
        : [];
    return {
      via: 'dev',
      principal: user.trim(),
      actorType: 'human',
      credentialId: null,
      apiScopes: [],
      claims: { groups },
      claimsTruncated: false,
      sessionId: null,
    };
  }
  const id = request.cookies[sessionCookie];
  if (!id) return null;
  const session = await deps.sessions.get(id, deps.clock.instant());
  if (!session) return null;
  return {
    via: 'session',
    principal: session.principal,
    actorType: 'human',
    credentialId: null,
    apiScopes: [],
    claims: session.claims,
    claimsTruncated: session.claimsTruncated,
    sessionId: id,
  };
}

/**
 * The three surfaces (docs/access.md), told apart by what the request carries: a bearer
 * header takes the machine path (strict, stateless, no CSRF, no cookie honoured); anything else
 * takes the session path (OIDC session or the development hatch, CSRF enforced). /git and
 * /status authenticate separately (facade-credentials.ts).
 */
export function registerAuthentication(app: HttpApp, deps: HttpDeps, tokenUse: TokenUseRecorder): void {
  const secure = deps.baseUrl.startsWith('https:');
  app.decorateRequest('caller', null);

  app.addHook('onRequest', async (request, reply) => {
    const path = pathOf(request);
    let csrf = request.cookies[csrfCookie];
    if (!wirePath(path)) {
      // Every response of the session surface sets a script-readable XSRF-TOKEN cookie.
      csrf ??= randomHandle(24);
      void reply.setCookie(csrfCookie, csrf, cookieOptions(secure, false));
    }
    if (!protectedPath(path)) return;

    const authorization = request.headers.authorization;
    if (authorization !== undefined && /^bearer /i.test(authorization)) {
      // The machine path: bearer plus a Cookie header is refused with a bare 401.
      if (request.headers.cookie !== undefined) return reply.code(401).send();
      const caller = await machineCaller(deps, authorization.slice(7).trim());
      if (!caller) {
        void reply.header('www-authenticate', 'Bearer');
        return deny(
          deps,
          request,
          reply,
          'unauthenticated',
          'the bearer credential is unknown, revoked, expired, or not a machine credential',
        );
      }
      request.caller = caller;
      tokenUse.record(caller.credentialId!, caller.principal, 'machine');
      // The machine allowlist is closed (docs/access.md). A machine reaches an /api route only when the route
      // is named in the scope table under a scope the credential holds. Checked here, before the body
      // is validated, so that a request outside the allowlist learns nothing about the route's schema.
      const route = request.routeOptions.url;
      if (!route?.startsWith('/api/')) return;
      const method = request.method === 'HEAD' ? 'GET' : request.method;
      const scope = scopeFor(method, route.replace(/:([A-Za-z0-9_]+)/g, '{$1}'));
      if (scope === null)
        return deny(deps, request, reply, 'forbidden', `${method} ${route} is not open to machine credentials`);
      if (!caller.apiScopes.includes(scope))
        return deny(deps, request, reply, 'forbidden', `this needs the API scope ${scope}`);
      return;
    }
    if (authorization !== undefined) {
      return deny(
        deps,
        request,
        reply,
        'unauthenticated',
        'the management API takes a session or a machine credential as Authorization: Bearer; personal access tokens work only on /git',
      );
    }
    return sessionPath(deps, request, reply, path);
  });
}

/** The session path: a signed-in caller (or the development hatch's), and the CSRF echo on a state change. */
async function sessionPath(deps: HttpDeps, request: FastifyRequest, reply: FastifyReply, path: string) {
  const caller = await sessionCaller(deps, request);
  if (!caller && browserAtDocs(deps, request, path))
    return reply.redirect(`/oauth2/authorization/idp?returnTo=${encodeURIComponent(request.url)}`, 302);
  if (!caller)
    return deny(
      deps,
      request,
      reply,
      'unauthenticated',
      'not signed in: start at /oauth2/authorization/idp, or present a machine credential as Authorization: Bearer',
    );
  const echoed = request.headers[csrfHeader];
  if (
    !safeMethods.has(request.method) &&
    (typeof echoed !== 'string' ||
      !request.cookies[csrfCookie] ||
      !constantTimeEqual(echoed, request.cookies[csrfCookie]!))
  ) {
    return deny(
      deps,
      request,
      reply,
      'forbidden',
      'state-changing requests on a session must echo the XSRF-TOKEN cookie in the X-XSRF-TOKEN header',
    );
  }
  request.caller = caller;
}
