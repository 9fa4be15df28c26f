import { Type } from 'typebox';
import { tokensOf } from '../../../application/access/token-reads.use-case.ts';
import type { FastifyRequest } from 'fastify';
import { callerOf } from '../../auth/authorize.ts';
import type { HttpApp, HttpDeps } from '../../http-deps.ts';
import { actAs } from '../../auth/acting.ts';
import { answerIssued, issuedView } from './tokens.shared.ts';
import { IdParams, problemResponses } from '../../schemas/common.schema.ts';
import { CreateSessionTokenBody, CreateTokenBody, TokenView, tokenView } from '../../schemas/token.schema.ts';
import {
  issueToken,
  revokeToken,
  rotateToken,
  type TokenRequest,
} from '../../../application/access/tokens.use-case.ts';

const tags = ['tokens'];
const own = (principal: string) => ({ asOwner: principal, kinds: ['personal', 'session'] as const });

type OwnTokenBody = Readonly<{
  name: string;
  scopes?: readonly string[] | undefined;
  pushScopes?: readonly string[] | undefined;
  expiresAt?: TokenRequest['expiresAt'];
}>;

/** What a session token takes from its body: no push scopes, and no expiry (the gateway fixes its lifetime). */
const sessionFields = ({ name, scopes }: Pick<OwnTokenBody, 'name' | 'scopes'>): OwnTokenBody => ({ name, scopes });

/** A token the caller issues to themself (owner and principal both theirs): what the body leaves out is none. */
const issueOwn = (
  deps: HttpDeps,
  request: FastifyRequest,
  kind: 'personal' | 'session',
  { name, scopes = [], pushScopes = [], expiresAt = null }: OwnTokenBody,
) =>
  actAs(deps, request, (caller, meta) => {
    const self = caller.principal;
    // API scopes are machine credentials' alone.
    return issueToken(deps, meta, {
      kind,
      owner: self,
      principal: self,
      name,
      scopes,
      pushScopes,
      apiScopes: [],
      expiresAt,
    });
  });

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
    async (request, reply) => answerIssued(reply, await issueOwn(deps, request, 'personal', request.body)),
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
      await actAs(deps, request, (caller, meta) => revokeToken(deps, meta, request.params.id, own(caller.principal)));
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
    async (request) =>
      issuedView(
        await actAs(deps, request, (caller, meta) => rotateToken(deps, meta, request.params.id, own(caller.principal))),
      ),
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
    async (request, reply) =>
      answerIssued(reply, await issueOwn(deps, request, 'session', sessionFields(request.body))),
  );
}
