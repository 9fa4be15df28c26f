import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { advertiseReceivePack, defaultReceiveLimits, type ReceiveLimits } from '../../adapters/git/receive-pack.ts';
import type { PushPolicy } from '../../domain/marketplace/marketplace.events.ts';
import { liveMarketplaceByName, type MarketplaceRecord } from '../../projections/marketplaces/marketplaces.queries.ts';
import { snapshotById } from '../../projections/snapshots/snapshots.queries.ts';
import { mayPush, type FacadeCaller, type FacadeCredentialDeps } from '../auth/facade-credentials.ts';
import type { HttpApp, HttpDeps } from '../http-deps.ts';
import { receive, requestType, type PushTarget } from './receive.ts';
import { advertise, facadeMeta, notFound, offerService, RepoParams, wireCaller, wireErrorHandler } from './wire.ts';

// Hosted publishing (a publisher pushes to /publish/{name}, docs/marketplaces.md): the receive side of git smart
// HTTP over the system `git receive-pack`, into the marketplace's quarantine repository (receive.ts).
// A push never changes what is served: it is recorded (marketplace-pushed) and ingested as a held snapshot.

/**
 * Authenticated like the facade; then live, hosted, and named by the token's push scopes: anything
 * else answers as a nonexistent repository (docs/access.md, Tokens).
 */
async function pushTarget(
  deps: HttpDeps,
  credentials: FacadeCredentialDeps,
  request: FastifyRequest,
  rawName: string,
  reply: FastifyReply,
): Promise<PushTarget | null> {
  const authenticated = await wireCaller(credentials, request, rawName, reply);
  if (!authenticated) return null;
  const { name, caller } = authenticated;
  const marketplace = await liveMarketplaceByName(deps.pool, name);
  if (!marketplace || marketplace.origin !== 'hosted' || !mayPush(caller, name)) {
    notFound(reply);
    return null;
  }
  const policy: PushPolicy = marketplace.pushPolicy === 'allow-rewrite' ? 'allow-rewrite' : 'append-only';
  return { marketplace, policy, repo: await deps.gitStore.ensureQuarantine(marketplace.id), caller };
}

/** The recorded push ingested as a held snapshot, attributed to the pusher: what the pusher is told. */
async function captured(
  deps: HttpDeps,
  request: FastifyRequest,
  marketplace: MarketplaceRecord,
  caller: FacadeCaller,
  newTip: string,
): Promise<string[]> {
  try {
    const meta = facadeMeta(request, caller, deps.clock.instant());
    const { snapshotId, created } = await deps.ingests.run(marketplace, 'push', meta, newTip);
    const snapshot = await snapshotById(deps.pool, snapshotId);
    const state =
      snapshot === null ? '' : ` (${snapshot.state}${snapshot.violation === null ? '' : `: ${snapshot.violation}`})`;
    return [
      created
        ? `captured ${newTip} as snapshot ${snapshotId}${state}; nothing is served until it is approved`
        : `${newTip} was captured before, as snapshot ${snapshotId}${state}`,
    ];
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    return [
      `the push was recorded but could not be ingested: ${why}`,
      `ingest it again with POST /api/v1/marketplaces/${marketplace.name}/ingest`,
    ];
  }
}

export function publishRoutes(
  app: HttpApp,
  deps: HttpDeps,
  credentials: FacadeCredentialDeps,
  limits: ReceiveLimits = defaultReceiveLimits,
): void {
  app.register(
    async (plain) => {
      const git = plain.withTypeProvider<TypeBoxTypeProvider>();
      // The body is read as a stream: the command list is judged first, then the pack goes on to git.
      git.addContentTypeParser(requestType, (_request, payload, done) => done(null, payload));
      git.setNotFoundHandler((_request, reply) => notFound(reply));
      git.setErrorHandler(
        wireErrorHandler('publish', requestType, 'the gateway could not complete this push; nothing was published'),
      );
      const uploadPackRefused = "Service not enabled: 'upload-pack' (fetch approved content from /git/<name>)";
      offerService(git, 'git-receive-pack', uploadPackRefused, async (request, rawName, reply) => {
        const target = await pushTarget(deps, credentials, request, rawName, reply);
        if (!target) return reply;
        return advertise(reply, 'git-receive-pack', await advertiseReceivePack(target.repo, target.policy, limits));
      });

      git.post('/:repo/git-receive-pack', { schema: { hide: true, params: RepoParams } }, async (request, reply) => {
        const target = await pushTarget(deps, credentials, request, request.params.repo, reply);
        if (!target) return reply;
        const pushed = (newTip: string) => captured(deps, request, target.marketplace, target.caller, newTip);
        const { store, waiter, clock, quarantineLocks } = deps;
        const receiveDeps = { store, waiter, clock, quarantineLocks, limits, captured: pushed };
        return receive(receiveDeps, request, reply, target);
      });
    },
    { prefix: '/publish' },
  );
}
