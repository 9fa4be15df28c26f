// What the git smart-HTTP surfaces (/git fetch, /publish push) share: plain-text answers a git client
// prints, the one 404 for everything that is not there for the caller, Basic authentication, and
// the error handler of the encapsulated route group.
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { encodePktLine, flushPkt } from '../../adapters/git/pkt-line.ts';
import type { CommandMeta, Instant } from '../../domain/kernel/decider.ts';
import { isDatabaseUnavailable } from '../../adapters/postgres/unavailable.ts';
import { isMarketplaceName } from '../../domain/kernel/names.ts';
import { databaseRetryAfterSeconds } from '../problems.ts';
import { authenticateFacade, type FacadeCaller, type FacadeCredentialDeps } from '../auth/facade-credentials.ts';
import type { HttpApp } from '../http-deps.ts';

export const realm = 'Basic realm="Skill Marketplace Gateway", charset="UTF-8"';
export const text = (reply: FastifyReply, status: number, body: string) =>
  reply.code(status).type('text/plain; charset=utf-8').send(`${body}\n`);
export const notFound = (reply: FastifyReply) => text(reply, 404, 'repository not found');
/** The facade checks the name after stripping an optional `.git` (docs/facade.md). */
export const repoName = (raw: string): string => raw.replace(/\.git$/, '');

export type GitService = 'git-upload-pack' | 'git-receive-pack';

export const RepoParams = Type.Object({ repo: Type.String() });

/** The smart-HTTP ref advertisement of `service`, with the `# service=` preamble when the protocol wants one. */
export const advertise = (reply: FastifyReply, service: GitService, advertisement: Buffer, preamble = true) =>
  reply
    .code(200)
    .header('content-type', `application/x-${service}-advertisement`)
    .header('cache-control', 'no-cache')
    .send(preamble ? Buffer.concat([encodePktLine(`# service=${service}\n`), flushPkt, advertisement]) : advertisement);

/**
 * The routes of a surface that serves `offered` alone: info/refs answered by `infoRefs` for it, and for
 * the other service refused by name (403, its POST before the body is even read, whatever is sent), as
 * is an info/refs of the dumb protocol.
 */
export function offerService(
  git: HttpApp,
  offered: GitService,
  refusal: string,
  infoRefs: (request: FastifyRequest, rawName: string, reply: FastifyReply) => Promise<FastifyReply>,
): void {
  const other: GitService = offered === 'git-upload-pack' ? 'git-receive-pack' : 'git-upload-pack';
  const querystring = Type.Object({ service: Type.Optional(Type.String()) }, { additionalProperties: true });
  git.get('/:repo/info/refs', { schema: { hide: true, params: RepoParams, querystring } }, async (request, reply) => {
    if (request.query.service === other) return text(reply, 403, refusal);
    if (request.query.service !== offered)
      return text(reply, 403, `only the smart HTTP protocol (${offered}) is served`);
    return infoRefs(request, request.params.repo, reply);
  });
  git.post(
    `/:repo/${other}`,
    {
      schema: { hide: true, params: RepoParams },
      onRequest: async (_request, reply) => {
        await text(reply, 403, refusal);
      },
    },
    async (_request, reply) => text(reply, 403, refusal),
  );
}

/**
 * A valid repository name and an accepted credential, or the answer already sent: 404 for an invalid
 * name (before any credential check), 401 with `WWW-Authenticate: Basic` for a missing or bad one.
 */
export async function wireCaller(
  credentials: FacadeCredentialDeps,
  request: FastifyRequest,
  rawName: string,
  reply: FastifyReply,
): Promise<Readonly<{ name: string; caller: FacadeCaller }> | null> {
  const name = repoName(rawName);
  if (!isMarketplaceName(name)) {
    notFound(reply);
    return null;
  }
  const caller = await authenticateFacade(credentials, request.headers.authorization);
  if (!caller) {
    void reply.header('www-authenticate', realm);
    text(reply, 401, 'authentication required: use a personal access token as the password');
    return null;
  }
  return { name, caller };
}

/**
 * Who acts on a git request: the credential's principal (always a person's token or sign-in on these
 * surfaces), the request as correlation and source, and the token when one was used.
 */
export const facadeMeta = (request: FastifyRequest, caller: FacadeCaller, at: Instant): CommandMeta => ({
  principal: caller.principal,
  actorType: 'human',
  at,
  correlationId: request.id,
  source: request.ip,
  ...(caller.tokenId === null ? {} : { credentialId: caller.tokenId }),
});

/** Errors of a git route group as text git shows; a broken stream is cut rather than answered twice. */
export const wireErrorHandler =
  (what: string, requestType: string, failure: string) =>
  (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const unavailable = isDatabaseUnavailable(error);
    if (unavailable) request.log.warn({ err: error }, `${what}: the database is unavailable`);
    else request.log.error({ err: error }, `${what} failure`);
    if (reply.sent || reply.raw.headersSent) {
      reply.raw.destroy();
      return;
    }
    if (unavailable) {
      void reply.header('retry-after', databaseRetryAfterSeconds);
      return text(reply, 503, 'the gateway cannot reach its database right now; try again shortly');
    }
    const status = error.statusCode;
    if (typeof status === 'number' && status >= 400 && status < 500) {
      return text(
        reply,
        status,
        status === 415 ? `expected ${requestType}` : status === 413 ? 'request body too large' : 'bad request',
      );
    }
    return text(reply, 500, failure);
  };
