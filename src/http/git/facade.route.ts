import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { encodePktLine } from '../../adapters/git/pkt-line.ts';
import type { ServedView } from '../../adapters/git/served-view.ts';
import { streamUploadPack } from '../../adapters/git/upload-pack.ts';
import { readUploadPackRequest, requestLimits } from '../../adapters/git/upload-pack-body.ts';
import { recordAdvertisement, recordFetch, type FetchAccess } from '../../application/facade/record-fetch.ts';
import { advertisedFrom, attributeWant, isAdvertised, type Advertised } from '../../domain/access/ref-attribution.ts';
import { liveMarketplaceByName } from '../../projections/marketplaces/marketplaces.queries.ts';
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

// The virtual catalog is served with no marketplace id (its ledger entries carry its name alone).
type Served = Readonly<{
  marketplace: Readonly<{ id: number | null; name: string }>;
  repo: string;
  view: ServedView;
  advertised: Advertised;
  caller: FacadeCaller;
}>;

/** What every access entry of a served repository says: which one, and how the caller signed in. */
const accessOf = ({ marketplace, caller }: Served): FetchAccess => ({
  marketplaceId: marketplace.id,
  marketplace: marketplace.name,
  credentialKind: caller.credentialKind,
});

/** The answer of a fetch, written by hand (the protocol's own errors and the pack are streams, not replies). */
function resultStream(reply: FastifyReply): ServerResponse {
  reply.hijack();
  reply.raw.writeHead(200, { 'content-type': resultType, 'cache-control': 'no-cache' });
  return reply.raw;
}

const protocolOf = (request: FastifyRequest): 0 | 2 =>
  /(^|:)version=2($|:)/.test(String(request.headers['git-protocol'] ?? '')) ? 2 : 0;

type Source = Pick<Served, 'marketplace' | 'repo'> & Readonly<{ view(): Promise<ServedView> }>;

/**
 * The repository served under `name`: the virtual catalog under its own name (before a marketplace of
 * that name, with the same credentials, scopes and accounting), else a live marketplace.
 */
async function sourceOf(deps: HttpDeps, name: string): Promise<Source | null> {
  const catalog = deps.catalog.enabled ? deps.catalogBuilder : null;
  if (catalog && name === catalog.name) {
    return { marketplace: { id: null, name }, repo: catalog.servedRepo, view: () => catalog.servedView() };
  }
  const marketplace = await liveMarketplaceByName(deps.pool, name);
  if (!marketplace) return null;
  return {
    marketplace,
    repo: deps.gitStore.publishedPath(marketplace.id),
    view: () => deps.gitStore.servedView(marketplace.id),
  };
}

/** Authenticated, live, in scope, and serving: anything else answers as a nonexistent repository. */
async function served(
  deps: HttpDeps,
  credentials: FacadeCredentialDeps,
  request: FastifyRequest,
  rawName: string,
  reply: FastifyReply,
): Promise<Served | null> {
  const authenticated = await wireCaller(credentials, request, rawName, reply);
  if (!authenticated) return null;
  const { name, caller } = authenticated;
  const source = await sourceOf(deps, name);
  if (!source || !mayFetch(caller, name)) {
    notFound(reply);
    return null;
  }
  const view = await source.view();
  const advertised = advertisedFrom(view.refs);
  if (advertised.main === null) {
    notFound(reply);
    return null;
  }
  return { marketplace: source.marketplace, repo: source.repo, view, advertised, caller };
}

/** A fetch (v0, or v2 `fetch`) or a v2 `ls-refs` on a served repository. */
async function uploadPack(
  deps: HttpDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  target: Served,
): Promise<FastifyReply | undefined> {
  if (!(request.body instanceof Readable)) return text(reply, 415, 'expected application/x-git-upload-pack-request');
  if (Number(request.headers['content-length']) > requestLimits.maxBodyBytes)
    return text(reply.header('connection', 'close'), 413, 'request body too large');
  const version = protocolOf(request);
  const count = (phase: FetchPhase, outcome: FetchOutcome, bytes = 0) =>
    countFetch(deps.metrics, target.marketplace.name, version, phase, outcome, bytes);
  const read = await readUploadPackRequest(request.body, {
    version,
    gzip: request.headers['content-encoding'] === 'gzip',
  });
  // The rest of a refused body is never read: the connection closes after the answer.
  if (!read.ok) count('upload-pack', 'refused');
  if (!read.ok) return text(reply.header('connection', 'close'), read.status, read.reason);
  const { body, request: parsed } = read;
  if (version === 2 && parsed.command !== 'ls-refs' && parsed.command !== 'fetch') {
    count('upload-pack', 'refused');
    return text(reply, 400, `unsupported protocol v2 command '${parsed.command ?? ''}'`);
  }
  if (version === 2 && parsed.command === 'ls-refs') {
    // The refs alone, answered from the served view (no pack, nothing recorded).
    const refs = await target.view.lsRefs(body);
    count('ls-refs', 'served', refs.length);
    return reply.code(200).header('content-type', resultType).header('cache-control', 'no-cache').send(refs);
  }
  const foreign = parsed.wants.find((want) => !isAdvertised(target.advertised, want));
  if (foreign !== undefined || parsed.wantRefs.length > 0) {
    // Answered inside the protocol, so the client shows "remote error: upload-pack: not our ref".
    count('upload-pack', 'refused');
    resultStream(reply).end(encodePktLine(`ERR upload-pack: not our ref ${foreign ?? parsed.wantRefs[0]}\n`));
    return undefined;
  }
  // One ledger entry per wanted object (git may send the same want twice, for HEAD and for main)
  let failed = false;
  const wants = [...new Set(parsed.wants)].map((sha) => ({ sha, ref: attributeWant(target.advertised, sha) }));
  streamUploadPack({
    repo: target.repo,
    version,
    body,
    out: resultStream(reply),
    // The ledger append is synchronous: when it fails, nothing is served.
    beforePack: () =>
      recordFetch(deps, accessOf(target), wants, facadeMeta(request, target.caller, deps.clock.instant())),
    refused: (error) => {
      failed = true;
      request.log.error({ err: error }, 'ledger append failed: the fetch is refused');
    },
    sent: (bytes, complete) => count('upload-pack', failed || !complete ? 'failed' : 'served', bytes),
  });
  return undefined;
}

export function facadeRoutes(app: HttpApp, deps: HttpDeps, credentials: FacadeCredentialDeps): void {
  app.register(
    async (plain) => {
      const git = plain.withTypeProvider<TypeBoxTypeProvider>();
      // An upload-pack body is read by the route, as a stream, after the credential check
      // (upload-pack-body.ts); receive-pack is refused before its body is read.
      git.addContentTypeParser('application/x-git-upload-pack-request', (_request, payload, done) =>
        done(null, payload),
      );
      git.addContentTypeParser(
        'application/x-git-receive-pack-request',
        { parseAs: 'buffer', bodyLimit: requestLimits.maxBodyBytes },
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
        const target = await served(deps, credentials, request, rawName, reply);
        if (!target) return reply;
        const meta = facadeMeta(request, target.caller, deps.clock.instant());
        await recordAdvertisement(deps, accessOf(target), target.advertised.main, meta);
        const version = protocolOf(request);
        const advertisement = await target.view.advertisement(version);
        countFetch(deps.metrics, target.marketplace.name, version, 'info-refs', 'served', advertisement.length);
        return advertise(reply, 'git-upload-pack', advertisement, version === 0);
      });

      git.post('/:repo/git-upload-pack', { schema: { hide: true, params: RepoParams } }, async (request, reply) => {
        const target = await served(deps, credentials, request, request.params.repo, reply);
        return target ? uploadPack(deps, request, reply, target) : reply;
      });
    },
    { prefix: '/git' },
  );
}
