import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import {
  advertiseRefs,
  servedRepository,
  uploadPack,
  uploadPackLimits,
  type ServedRepository,
} from '../../application/facade/serve-fetch.use-case.ts';
import { mayFetch, type FacadeCaller, type FacadeCredentialDeps } from '../auth/facade-credentials.ts';
import type { HttpApp, HttpDeps } from '../http-deps.ts';
import { countFetch, type FetchOutcome, type FetchPhase } from './facade-metrics.ts';
import {
  advertise,
  facadeMeta,
  notFound,
  offerService,
  RepoParams,
  text,
  wireCaller,
  wireErrorHandler,
} from './wire.ts';

const resultType = 'application/x-git-upload-pack-result';

/** The answer of a fetch, written by hand (the protocol's own errors and the pack are streams, not replies). */
function resultStream(reply: FastifyReply): ServerResponse {
  reply.hijack();
  reply.raw.writeHead(200, { 'content-type': resultType, 'cache-control': 'no-cache' });
  return reply.raw;
}

const protocolOf = (request: FastifyRequest): 0 | 2 =>
  /(^|:)version=2($|:)/.test(String(request.headers['git-protocol'] ?? '')) ? 2 : 0;

/** What a git request over the wire acts on, and who asks: a served repository here, a push target for publishing. */
export type WireTarget<T> = Readonly<{ target: T; caller: FacadeCaller }>;

/**
 * The request authenticated, and `find` (the credential's scopes, then the repository) answering its target:
 * anything else answers as a nonexistent repository.
 */
export async function wireTarget<T>(
  credentials: FacadeCredentialDeps,
  request: FastifyRequest,
  rawName: string,
  reply: FastifyReply,
  find: (caller: FacadeCaller, name: string) => Promise<T | null> | null,
): Promise<WireTarget<T> | null> {
  const authenticated = await wireCaller(credentials, request, rawName, reply);
  if (!authenticated) return null;
  const { name, caller } = authenticated;
  const target = await find(caller, name);
  if (!target) notFound(reply);
  return target ? { target, caller } : null;
}

/** A fetch (v0, or v2 `fetch`) or a v2 `ls-refs`: the body checked, the use case's answer streamed. */
async function fetch(
  deps: HttpDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  { target: served, caller }: WireTarget<ServedRepository>,
): Promise<FastifyReply | undefined> {
  if (!(request.body instanceof Readable)) return text(reply, 415, 'expected application/x-git-upload-pack-request');
  if (Number(request.headers['content-length']) > uploadPackLimits.maxBodyBytes)
    return text(reply.header('connection', 'close'), 413, 'request body too large');
  const version = protocolOf(request);
  const count = (phase: FetchPhase, outcome: FetchOutcome, bytes = 0) =>
    countFetch(deps.metrics, served.marketplace.name, version, phase, outcome, bytes);
  const answer = await uploadPack(deps, served, {
    body: request.body,
    version,
    gzip: request.headers['content-encoding'] === 'gzip',
    fetcher: caller,
    meta: () => facadeMeta(request, caller, deps.clock.instant()),
  });
  switch (answer.kind) {
    case 'refused':
      count('upload-pack', 'refused');
      return text(answer.close ? reply.header('connection', 'close') : reply, answer.status, answer.reason);
    case 'refs':
      count('ls-refs', 'served', answer.refs.length);
      return reply.code(200).header('content-type', resultType).header('cache-control', 'no-cache').send(answer.refs);
    case 'not-our-ref':
      count('upload-pack', 'refused');
      resultStream(reply).end(answer.error);
      return undefined;
    case 'pack': {
      let failed = false;
      answer.send(resultStream(reply), {
        refused: (error) => {
          failed = true;
          request.log.error({ err: error }, 'ledger append failed: the fetch is refused');
        },
        sent: (bytes, complete) => count('upload-pack', failed || !complete ? 'failed' : 'served', bytes),
      });
      return undefined;
    }
  }
}

export function facadeRoutes(app: HttpApp, deps: HttpDeps, credentials: FacadeCredentialDeps): void {
  // In scope, live and serving.
  const served = (caller: FacadeCaller, name: string) => (mayFetch(caller, name) ? servedRepository(deps, name) : null);
  app.register(
    async (plain) => {
      const git = plain.withTypeProvider<TypeBoxTypeProvider>();
      // An upload-pack body is read by the use case, as a stream, after the credential check
      // (upload-pack-body.ts); receive-pack is refused before its body is read.
      git.addContentTypeParser('application/x-git-upload-pack-request', (_request, payload, done) =>
        done(null, payload),
      );
      git.addContentTypeParser(
        'application/x-git-receive-pack-request',
        { parseAs: 'buffer', bodyLimit: uploadPackLimits.maxBodyBytes },
        (_request, body, done) => done(null, body),
      );
      git.setNotFoundHandler((_request, reply) => notFound(reply));
      git.setErrorHandler(
        wireErrorHandler(
          'git facade',
          'application/x-git-upload-pack-request',
          'the gateway could not serve this request',
        ),
      );
      // Receive-pack is disabled whatever the credential (docs/facade.md).
      offerService(git, 'git-upload-pack', "Service not enabled: 'receive-pack'", async (request, rawName, reply) => {
        const found = await wireTarget(credentials, request, rawName, reply, served);
        if (!found) return reply;
        const version = protocolOf(request);
        const meta = facadeMeta(request, found.caller, deps.clock.instant());
        const advertisement = await advertiseRefs(deps, found.target, found.caller, version, meta);
        countFetch(deps.metrics, found.target.marketplace.name, version, 'info-refs', 'served', advertisement.length);
        return advertise(reply, 'git-upload-pack', advertisement, version === 0);
      });

      git.post('/:repo/git-upload-pack', { schema: { hide: true, params: RepoParams } }, async (request, reply) => {
        const found = await wireTarget(credentials, request, request.params.repo, reply, served);
        return found ? fetch(deps, request, reply, found) : reply;
      });
    },
    { prefix: '/git' },
  );
}
