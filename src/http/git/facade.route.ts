import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { gunzipSync } from 'node:zlib';
import { Type } from 'typebox';
import { metadataOf } from '../../adapters/eventstore/run-command.ts';
import { spawnGit } from '../../adapters/git/git-process.ts';
import type { ServedView } from '../../adapters/git/served-view.ts';
import { PackStartDetector } from '../../adapters/git/pack-start.ts';
import { encodePktLine, flushPkt, parseUploadPackRequest, PktLineError } from '../../adapters/git/pkt-line.ts';
import type { CredentialKind } from '../../domain/access/access.events.ts';
import { advertisedFrom, attributeWant, isAdvertised, type Advertised } from '../../domain/access/ref-attribution.ts';
import { streams } from '../../domain/shared/streams.ts';
import { liveMarketplaceByName } from '../../projections/marketplaces/marketplaces.queries.ts';
import { mayFetch, type FacadeCaller, type FacadeCredentialDeps } from '../auth/facade-credentials.ts';
import type { HttpApp, HttpDeps } from '../http-deps.ts';
import { notFound, text, wireCaller, wireErrorHandler } from './wire.ts';

const maxRequestBytes = 8 * 1024 * 1024;
const maxInflatedBytes = 64 * 1024 * 1024;

// The virtual catalog is served with no marketplace id (its ledger entries carry its name alone).
type Served = Readonly<{ marketplace: Readonly<{ id: number | null; name: string }>; repo: string; view: ServedView; advertised: Advertised; caller: FacadeCaller }>;

const protocolOf = (request: FastifyRequest): 0 | 2 => (/(^|:)version=2($|:)/.test(String(request.headers['git-protocol'] ?? '')) ? 2 : 0);

export function facadeRoutes(app: HttpApp, deps: HttpDeps, credentials: FacadeCredentialDeps): void {
  app.register(async (plain) => {
    const git = plain.withTypeProvider<TypeBoxTypeProvider>();
    // The request body is a pkt-line stream, read raw (and inflated) before it is parsed.
    git.addContentTypeParser(['application/x-git-upload-pack-request', 'application/x-git-receive-pack-request'],
      { parseAs: 'buffer', bodyLimit: maxRequestBytes }, (_request, body, done) => done(null, body));
    git.setNotFoundHandler((_request, reply) => notFound(reply));
    git.setErrorHandler(wireErrorHandler('git facade', 'application/x-git-upload-pack-request', 'the gateway could not serve this request'));

    /** Authenticated, live, in scope, and serving: anything else answers as a nonexistent repository. */
    async function served(request: FastifyRequest, rawName: string, reply: FastifyReply): Promise<Served | null> {
      const authenticated = await wireCaller(credentials, request, rawName, reply);
      if (!authenticated) return null;
      const { name, caller } = authenticated;
      // The virtual catalog answers under its own name (before a marketplace of that name), with the same
      // credentials, scopes (a scoped token must name it) and accounting.
      const catalog = deps.catalog.enabled ? deps.catalogBuilder : null;
      if (catalog && name === catalog.name) {
        if (!mayFetch(caller, name)) { notFound(reply); return null; }
        const view = await catalog.servedView();
        const advertised = advertisedFrom(view.refs);
        if (advertised.main === null) { notFound(reply); return null; }
        return { marketplace: { id: null, name }, repo: catalog.servedRepo, view, advertised, caller };
      }
      const marketplace = await liveMarketplaceByName(deps.pool, name);
      if (!marketplace || !mayFetch(caller, name)) { notFound(reply); return null; }
      const repo = deps.gitStore.publishedPath(marketplace.id);
      const view = await deps.gitStore.servedView(marketplace.id);
      const advertised = advertisedFrom(view.refs);
      if (advertised.main === null) { notFound(reply); return null; }
      return { marketplace, repo, view, advertised, caller };
    }

    /** The ledger append is synchronous: when it fails, nothing is served. */
    async function record(request: FastifyRequest, target: Served, type: 'info-refs' | 'upload-pack', data: Record<string, unknown>): Promise<void> {
      const { caller, marketplace } = target;
      await deps.store.append(streams.access(marketplace.id), [{
        type,
        data: { marketplaceId: marketplace.id, marketplace: marketplace.name, credentialKind: caller.credentialKind satisfies CredentialKind, ...data },
        metadata: metadataOf({
          principal: caller.principal, actorType: 'human', at: deps.clock.instant(), correlationId: request.id, source: request.ip,
          ...(caller.tokenId === null ? {} : { credentialId: caller.tokenId }),
        }),
      }], 'any');
    }

    const receivePackRefused = (reply: FastifyReply) => text(reply, 403, "Service not enabled: 'receive-pack'");

    git.get('/:repo/info/refs', {
      schema: { hide: true, params: Type.Object({ repo: Type.String() }), querystring: Type.Object({ service: Type.Optional(Type.String()) }, { additionalProperties: true }) },
    }, async (request, reply) => {
      // spec, Facade rule 4: receive-pack is disabled whatever the credential.
      if (request.query.service === 'git-receive-pack') return receivePackRefused(reply);
      if (request.query.service !== 'git-upload-pack') return text(reply, 403, 'only the smart HTTP protocol (git-upload-pack) is served');
      const target = await served(request, request.params.repo, reply);
      if (!target) return reply;
      await record(request, target, 'info-refs', { ref: 'refs/heads/main', sha: target.advertised.main });
      const version = protocolOf(request);
      const advertisement = await target.view.advertisement(version);
      const preamble = version === 0 ? Buffer.concat([encodePktLine('# service=git-upload-pack\n'), flushPkt]) : Buffer.alloc(0);
      return reply.code(200).header('content-type', 'application/x-git-upload-pack-advertisement').header('cache-control', 'no-cache')
        .send(Buffer.concat([preamble, advertisement]));
    });

    // Refused before the body is even read: whatever is sent, receive-pack is not a service here.
    git.post('/:repo/git-receive-pack', {
      schema: { hide: true, params: Type.Object({ repo: Type.String() }) },
      onRequest: async (_request, reply) => { await receivePackRefused(reply); },
    }, async (_request, reply) => receivePackRefused(reply));

    git.post('/:repo/git-upload-pack', { schema: { hide: true, params: Type.Object({ repo: Type.String() }) } }, async (request, reply) => {
      const target = await served(request, request.params.repo, reply);
      if (!target) return reply;
      let body = request.body as Buffer | undefined;
      if (!Buffer.isBuffer(body)) return text(reply, 415, 'expected application/x-git-upload-pack-request');
      if (request.headers['content-encoding'] === 'gzip') {
        try {
          body = gunzipSync(body, { maxOutputLength: maxInflatedBytes });
        } catch {
          return text(reply, 400, 'the request body could not be inflated (or inflates beyond the limit)');
        }
      }
      const version = protocolOf(request);
      let parsed;
      try {
        parsed = parseUploadPackRequest(body, version);
      } catch (error) {
        return text(reply, 400, `malformed request: ${error instanceof PktLineError ? error.message : 'unreadable pkt-lines'}`);
      }
      if (version === 2 && parsed.command !== 'ls-refs' && parsed.command !== 'fetch') {
        return text(reply, 400, `unsupported protocol v2 command '${parsed.command ?? ''}'`);
      }
      const fetching = version === 0 || parsed.command === 'fetch';
      if (!fetching) {
        // ls-refs: the refs alone, answered from the served view (no pack, nothing recorded).
        return reply.code(200).header('content-type', 'application/x-git-upload-pack-result').header('cache-control', 'no-cache')
          .send(await target.view.lsRefs(body));
      }
      const foreign = parsed.wants.find((want) => !isAdvertised(target.advertised, want));
      if (foreign !== undefined || parsed.wantRefs.length > 0) {
        // Answered inside the protocol, so the client shows "remote error: upload-pack: not our ref".
        reply.hijack();
        reply.raw.writeHead(200, { 'content-type': 'application/x-git-upload-pack-result', 'cache-control': 'no-cache' });
        reply.raw.end(encodePktLine(`ERR upload-pack: not our ref ${foreign ?? parsed.wantRefs[0]}\n`));
        return;
      }
      const child = spawnGit(['upload-pack', '--stateless-rpc', target.repo], version === 2 ? { env: { GIT_PROTOCOL: 'version=2' } } : {});
      child.stdin?.on('error', () => {});
      child.stdin?.end(body);
      reply.hijack();
      const raw = reply.raw;
      raw.on('close', () => { if (child.exitCode === null) child.kill('SIGKILL'); });
      raw.writeHead(200, { 'content-type': 'application/x-git-upload-pack-result', 'cache-control': 'no-cache' });
      // Hold the output until the pack starts; then the ledger append must succeed before a byte of it leaves.
      const detector = new PackStartDetector(version);
      const held: Buffer[] = [];
      let appending: Promise<void> | null = null;
      child.stdout?.on('data', (chunk: Buffer) => {
        if (appending) { held.push(chunk); return; }
        held.push(chunk);
        if (!detector.feed(chunk)) return;
        child.stdout?.pause();
        appending = record(request, target, 'upload-pack', {
          // spec: one entry per wanted object (git may send the same want twice, for HEAD and for main)
          wants: [...new Set(parsed.wants)].map((sha) => ({ sha, ref: attributeWant(target.advertised, sha) })),
        }).then(() => {
          for (const part of held.splice(0)) raw.write(part);
          child.stdout?.removeAllListeners('data');
          child.stdout?.pipe(raw);
          child.stdout?.resume();
        }, (error: unknown) => {
          request.log.error({ err: error }, 'ledger append failed: the fetch is refused');
          child.kill('SIGKILL');
          raw.destroy();
        });
      });
      child.stdout?.on('end', () => {
        if (!appending) { for (const part of held.splice(0)) raw.write(part); raw.end(); }
      });
      child.on('error', () => raw.destroy());
    });
  }, { prefix: '/git' });
}
