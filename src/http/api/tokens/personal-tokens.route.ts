import { Type } from 'typebox';
import { tokensOf } from '../../../application/access/token-reads.use-case.ts';
import { callerOf, metaFor } from '../../auth/authorize.ts';
import type { HttpApp, HttpDeps } from '../../http-deps.ts';
import { IdParams, problemResponses } from '../../schemas/common.schema.ts';
import { CreateSessionTokenBody, CreateTokenBody, TokenView, tokenView } from '../../schemas/token.schema.ts';
import { issueToken, revokeToken, rotateToken } from '../../../application/access/tokens.use-case.ts';

const tags = ['tokens'];
const own = (principal: string) => ({ asOwner: principal, kinds: ['personal', 'session'] as const });

// Own personal tokens need any authenticated principal, no role; owner-scoped.
export function personalTokenRoutes(app: HttpApp, deps: HttpDeps): void {
  createPersonalTokenRoute(app, deps);
  listOwnTokensRoute(app, deps);
  revokeOwnTokenRoute(app, deps);
  rotateOwnTokenRoute(app, deps);
  createSessionTokenRoute(app, deps);
}

function createPersonalTokenRoute(app: HttpApp, deps: HttpDeps): void {
  app.post(
    '/api/v1/tokens',
    {
      schema: {
        tags,
        summary: 'Create a personal access token',
        body: CreateTokenBody,
        response: { 201: TokenView, ...problemResponses(401, 403, 422) },
      },
    },
    async (request, reply) => {
      const caller = callerOf(request);
      const { name, scopes = [], pushScopes = [], expiresAt = null } = request.body;
      const { token, secret } = await issueToken(deps, metaFor(deps, request, caller), {
        kind: 'personal',
        owner: caller.principal,
        principal: caller.principal,
        name,
        scopes,
        pushScopes,
        apiScopes: [],
        expiresAt,
      });
      return reply.code(201).send(tokenView(token, secret));
    },
  );
}

function listOwnTokensRoute(app: HttpApp, deps: HttpDeps): void {
  app.get(
    '/api/v1/tokens',
    {
      schema: {
        tags,
        summary: "The caller's own tokens (never the secret, never others')",
        response: { 200: Type.Array(TokenView) },
      },
    },
    async (request) => {
      return (await tokensOf(deps, callerOf(request).principal)).map((token) => tokenView(token));
    },
  );
}

function revokeOwnTokenRoute(app: HttpApp, deps: HttpDeps): void {
  app.delete(
    '/api/v1/tokens/:id',
    {
      schema: {
        tags,
        summary: 'Revoke one of your tokens',
        params: IdParams,
        response: { 204: Type.Null(), ...problemResponses(404) },
      },
    },
    async (request, reply) => {
      const caller = callerOf(request);
      await revokeToken(deps, metaFor(deps, request, caller), request.params.id, own(caller.principal));
      return reply.code(204).send(null);
    },
  );
}

function rotateOwnTokenRoute(app: HttpApp, deps: HttpDeps): void {
  app.post(
    '/api/v1/tokens/:id/rotate',
    {
      schema: {
        tags,
        summary: 'Replace one of your tokens with a new secret',
        params: IdParams,
        response: { 200: TokenView, ...problemResponses(404, 409) },
      },
    },
    async (request) => {
      const caller = callerOf(request);
      const { token, secret } = await rotateToken(
        deps,
        metaFor(deps, request, caller),
        request.params.id,
        own(caller.principal),
      );
      return tokenView(token, secret);
    },
  );
}

function createSessionTokenRoute(app: HttpApp, deps: HttpDeps): void {
  app.post(
    '/api/v1/tokens/session',
    {
      schema: {
        tags,
        summary: 'Mint a session-derived token with the gateway-fixed lifetime',
        body: CreateSessionTokenBody,
        response: { 201: TokenView, ...problemResponses(401, 422) },
      },
    },
    async (request, reply) => {
      const caller = callerOf(request);
      const { token, secret } = await issueToken(deps, metaFor(deps, request, caller), {
        kind: 'session',
        owner: caller.principal,
        principal: caller.principal,
        name: request.body.name,
        scopes: request.body.scopes ?? [],
        pushScopes: [],
        apiScopes: [],
        expiresAt: null,
      });
      return reply.code(201).send(tokenView(token, secret));
    },
  );
}
