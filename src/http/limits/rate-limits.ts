// Request budgets (docs/operations.md): so that one runaway client cannot starve the rest, every request to
// the management API and to the facade counts against the budget of its client address and, once the
// credential is known, against the budget of its credential. Over either budget the request is answered
// 429 with Retry-After: a problem document on the API and on /status/v1, plain text that git prints as a
// `remote:` line on /git and /publish. Beginning a sign-in (GET /oauth2/authorization/idp, which stores a
// login request) counts against a budget per address of its own (decision 352). /actuator/health, the
// portal, the rest of sign-in and /hooks are never counted.
//
// @fastify/rate-limit keeps the counters (a fixed window per key, in this replica's memory); the gateway
// calls its limiters itself, so that each surface answers in its own terms.
import rateLimit, { normalizeIP } from '@fastify/rate-limit';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { digestOf } from '../../adapters/system/token-digests.ts';
import type { HttpApp, HttpDeps } from '../http-deps.ts';
import { instanceOf, problemFor, sendProblem } from '../problems.ts';
import { text } from '../git/wire.ts';

import type { RateLimitSettings } from './rate-limit-settings.ts';

export type { Budget, RateLimitSettings } from './rate-limit-settings.ts';

type Surface = 'api' | 'facade' | 'sign-in';

const signInStart = '/oauth2/authorization/idp';
type Per = 'credential' | 'address';
type Limiter = ReturnType<HttpApp['createRateLimit']>;
type Refusal = Readonly<{ surface: Surface; per: Per; max: number; retryAfter: number }>;

const pathOf = (request: FastifyRequest) => request.url.split('?')[0] ?? request.url;

/** Which budget a request counts against; null for everything that is never limited. */
export function surfaceOf(path: string): Surface | null {
  if (path.startsWith('/api/')) return 'api';
  if (path.startsWith('/git/') || path.startsWith('/publish/') || path.startsWith('/status/')) return 'facade';
  if (path === signInStart) return 'sign-in';
  return null;
}

/** The secret a facade request presents (Basic password or bearer token), digested: what the facade looks up. */
function facadeCredentialKey(authorization: string | undefined): string | null {
  if (authorization === undefined) return null;
  if (/^basic /i.test(authorization)) {
    const decoded = Buffer.from(authorization.slice(6).trim(), 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    return colon < 0 ? null : `basic:${digestOf(decoded.slice(colon + 1))}`;
  }
  if (/^bearer /i.test(authorization)) return `bearer:${digestOf(authorization.slice(7).trim())}`;
  return null;
}

/** The API caller authentication established (onRequest, before this runs): one bucket per credential. */
function apiCredentialKey(request: FastifyRequest): string | null {
  const caller = request.caller;
  if (caller === null) return null;
  if (caller.via === 'machine') return `machine:${String(caller.credentialId)}`;
  if (caller.via === 'session') return `session:${caller.sessionId ?? caller.principal}`;
  return `dev:${caller.principal}`;
}

export const credentialKeyOf = (surface: Surface, request: FastifyRequest): string | null =>
  surface === 'api'
    ? apiCredentialKey(request)
    : surface === 'facade'
      ? facadeCredentialKey(request.headers.authorization)
      : null;

const surfaceNames = { api: 'management API', facade: 'git facade', 'sign-in': 'sign-in start' } as const;

const describe = ({ surface, per, max, retryAfter }: Refusal, windowMs: number) =>
  `too many requests ${per === 'credential' ? 'with this credential' : 'from this address'} to the ` +
  `${surfaceNames[surface]}: the budget is ${max} per ${windowMs / 1000} seconds ` +
  `on this gateway; retry after ${retryAfter} seconds`;

/** The 429 in the terms of the surface: git prints a text/plain body of a refused info/refs as `remote:`. */
function refuse(deps: HttpDeps, settings: RateLimitSettings, request: FastifyRequest, reply: FastifyReply, r: Refusal) {
  const detail = describe(r, settings.windowMs);
  void reply.header('retry-after', String(r.retryAfter));
  const path = pathOf(request);
  if (path.startsWith('/git/') || path.startsWith('/publish/')) return text(reply, 429, detail);
  return sendProblem(reply, problemFor(deps.baseUrl, { code: 'rate-limited', detail }, instanceOf(request)));
}

async function check(limiter: Limiter | null, request: FastifyRequest, surface: Surface, per: Per) {
  if (limiter === null) return null;
  const outcome = await limiter(request);
  if (outcome.isAllowed || !outcome.isExceeded) return null;
  return { surface, per, max: outcome.max, retryAfter: Math.max(1, outcome.ttlInSeconds) };
}

/**
 * Registers the budgets, when enabled. Call before the authentication hook: the address is counted first
 * (onRequest, so that a flood of bad credentials is refused before any lookup), the credential after
 * authentication (preParsing, after every onRequest hook, before a body is read).
 */
export async function registerRateLimits(app: HttpApp, deps: HttpDeps): Promise<void> {
  const settings = deps.rateLimit;
  if (!settings?.enabled) return;
  await app.register(rateLimit, { global: false });
  const limiter = (max: number, keyGenerator: (request: FastifyRequest) => string): Limiter | null =>
    max === 0 ? null : app.createRateLimit({ max, timeWindow: settings.windowMs, keyGenerator });
  const byAddress = (request: FastifyRequest) => normalizeIP(request.ip);
  const limiters = {
    api: {
      address: limiter(settings.api.perAddress, byAddress),
      credential: limiter(settings.api.perCredential, (request) => credentialKeyOf('api', request) ?? ''),
    },
    facade: {
      address: limiter(settings.facade.perAddress, byAddress),
      credential: limiter(settings.facade.perCredential, (request) => credentialKeyOf('facade', request) ?? ''),
    },
    'sign-in': { address: limiter(settings.signIn.perAddress, byAddress), credential: null },
  };

  app.addHook('onRequest', async (request, reply) => {
    const surface = surfaceOf(pathOf(request));
    if (surface === null) return;
    const refusal = await check(limiters[surface].address, request, surface, 'address');
    if (refusal) return refuse(deps, settings, request, reply, refusal);
  });
  // A reply sent here ends the request (fastify stops at a sent reply); the payload is left as it is.
  app.addHook('preParsing', async (request, reply) => {
    const surface = surfaceOf(pathOf(request));
    if (surface === null || credentialKeyOf(surface, request) === null) return;
    const refusal = await check(limiters[surface].credential, request, surface, 'credential');
    if (refusal) refuse(deps, settings, request, reply, refusal);
  });
}
