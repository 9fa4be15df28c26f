// What the git smart-HTTP surfaces (/git fetch, /publish push) share: plain-text answers a git client
// prints, the one 404 for everything that is not there for the caller, Basic authentication, and
// the error handler of the encapsulated route group.
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { isMarketplaceName } from '../../domain/shared/names.ts';
import { authenticateFacade, type FacadeCaller, type FacadeCredentialDeps } from '../auth/facade-credentials.ts';

export const realm = 'Basic realm="Skill Marketplace Gateway", charset="UTF-8"';
export const text = (reply: FastifyReply, status: number, body: string) => reply.code(status).type('text/plain; charset=utf-8').send(`${body}\n`);
export const notFound = (reply: FastifyReply) => text(reply, 404, 'repository not found');
/** spec, Facade rule 1: the name is checked after stripping an optional `.git`. */
export const repoName = (raw: string): string => raw.replace(/\.git$/, '');

/**
 * A valid repository name and an accepted credential, or the answer already sent: 404 for an invalid
 * name (before any credential check), 401 with `WWW-Authenticate: Basic` for a missing or bad one.
 */
export async function wireCaller(credentials: FacadeCredentialDeps, request: FastifyRequest, rawName: string, reply: FastifyReply):
  Promise<Readonly<{ name: string; caller: FacadeCaller }> | null> {
  const name = repoName(rawName);
  if (!isMarketplaceName(name)) { notFound(reply); return null; }
  const caller = await authenticateFacade(credentials, request.headers.authorization);
  if (!caller) {
    void reply.header('www-authenticate', realm);
    text(reply, 401, 'authentication required: use a personal access token as the password');
    return null;
  }
  return { name, caller };
}

/** Errors of a git route group as text git shows; a broken stream is cut rather than answered twice. */
export const wireErrorHandler = (what: string, requestType: string, failure: string) =>
  (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    request.log.error({ err: error }, `${what} failure`);
    if (reply.sent || reply.raw.headersSent) { reply.raw.destroy(); return; }
    const status = error.statusCode;
    if (typeof status === 'number' && status >= 400 && status < 500) {
      return text(reply, status, status === 415 ? `expected ${requestType}` : status === 413 ? 'request body too large' : 'bad request');
    }
    return text(reply, 500, failure);
  };
