import { Type } from 'typebox';
import { UpstreamError } from '../../../adapters/git/git-store.ts';
import { normalizedCloneUrl } from '../../../domain/marketplace/forge.ts';
import { marketplaceDecider, marketplaceNameDecider } from '../../../domain/marketplace/marketplace.decider.ts';
import { marketplaceOrigins, pushPolicies } from '../../../domain/marketplace/marketplace.events.ts';
import { canonicalUrl, registrationRefusal } from '../../../domain/marketplace/trust-boundary.ts';
import { isMarketplaceName } from '../../../domain/shared/names.ts';
import { streams } from '../../../domain/shared/streams.ts';
import { liveMarketplaceByName, liveMarketplaces, marketplaceById } from '../../../projections/marketplaces/marketplaces.queries.ts';
import { snapshotById, snapshotsOf } from '../../../projections/snapshots/snapshots.queries.ts';
import { pushScopeHolders } from '../../../projections/tokens/tokens.queries.ts';
import { metaFor, requireAdmin, requireApproverOf, callerOf } from '../../auth/authorize.ts';
import { execute } from '../../../application/execute.ts';
import type { HttpApp, HttpDeps } from '../../http-deps.ts';
import { reject, Rejected } from '../../problems.ts';
import { literalUnion, problemResponses, Timestamp } from '../../schemas/common.schema.ts';
import { MarketplaceView, marketplaceView, SnapshotView, snapshotView } from '../../schemas/marketplace.schema.ts';
import { ingest } from '../../../application/ingest-marketplace.ts';

const tags = ['marketplaces'];
const NameParams = Type.Object({ name: Type.String({ maxLength: 200 }) });

const RegisterBody = Type.Object({
  // No length bound here: an over-long name is refused by the name rule, with its /git/<name> wording.
  name: Type.String(),
  url: Type.Optional(Type.String({ maxLength: 2048 })),
  ref: Type.Optional(Type.String({ maxLength: 255 })),
  origin: Type.Optional(literalUnion(marketplaceOrigins)),
  pushPolicy: Type.Optional(literalUnion(pushPolicies)),
}, { additionalProperties: false });

const RemovalBody = Type.Object({ reason: Type.String({ maxLength: 2000 }) }, { additionalProperties: false });
const RemovalView = Type.Object({
  id: Type.Integer(), name: Type.String(), removedAt: Timestamp, removedBy: Type.String(),
  withdrawnSnapshotIds: Type.Array(Type.Integer()), pushScopeRemovedFromTokenIds: Type.Array(Type.Integer()),
});

const upstreamProblem = (error: UpstreamError) =>
  reject('upstream-unreadable', `${error.reason}: ${error.rootCause}`, { reason: error.reason, rootCause: error.rootCause, nextStep: error.nextStep });

/** A live marketplace by the name in the path; removed and unknown names answer alike. */
export async function liveOr404(deps: HttpDeps, name: string) {
  const marketplace = isMarketplaceName(name) ? await liveMarketplaceByName(deps.pool, name) : null;
  if (!marketplace) throw reject('marketplace-not-found', `no live marketplace is named '${name}'`);
  return marketplace;
}

export function marketplaceRoutes(app: HttpApp, deps: HttpDeps): void {
  app.get('/api/v1/marketplaces', {
    schema: { tags, summary: 'Every live marketplace with its snapshots', response: { 200: Type.Array(MarketplaceView) } },
  }, async (request) => {
    callerOf(request);
    const live = await liveMarketplaces(deps.pool);
    const snapshots = await snapshotsOf(deps.pool, live.map((m) => m.id));
    return Promise.all(live.map(async (m) => marketplaceView(m, await deps.gitStore.servedSha(m.id), snapshots)));
  });

  app.post('/api/v1/marketplaces', {
    schema: {
      tags, summary: 'Register a marketplace (upstream or hosted)', body: RegisterBody,
      response: { 201: Type.Intersect([MarketplaceView, Type.Object({ warnings: Type.Array(Type.String()) })]), ...problemResponses(400, 403, 409, 422, 502) },
    },
  }, async (request, reply) => {
    const caller = await requireAdmin(deps, request);
    const { name, ref = null, origin = 'upstream', pushPolicy = null } = request.body;
    const requestedUrl = request.body.url ?? null;
    if (!isMarketplaceName(name)) {
      throw reject('invalid-name', `'${name}' is not a valid marketplace name: it is the /git/<name> path clients clone, and must match ^[a-z0-9][a-z0-9_-]{0,62}$`);
    }
    const refusal = registrationRefusal({ origin, url: requestedUrl, ref, pushPolicy }, deps.marketplaces.allowedUrlSchemes);
    if (refusal) throw new Rejected(refusal);
    const url = requestedUrl === null ? null : canonicalUrl(requestedUrl);
    if (await liveMarketplaceByName(deps.pool, name)) throw reject('marketplace-name-taken', `a live marketplace is already named '${name}'`);
    // The virtual catalog is served at /git/<gateway.catalog.name>: a marketplace of that name would be shadowed.
    if (deps.catalog.enabled && name === deps.catalog.name) {
      throw reject('marketplace-name-taken', `'${name}' is the name of the virtual catalog (gateway.catalog.name), served at /git/${name}`);
    }
    // spec: the upstream is read only after all other checks pass; if it is unreadable nothing is registered.
    if (url !== null) await deps.gitStore.remoteDefaultBranch(url).catch((error: unknown) => { throw error instanceof UpstreamError ? upstreamProblem(error) : error; });

    const marketplaceId = await deps.ids('marketplace');
    const meta = metaFor(deps, request, caller);
    await execute(deps, marketplaceNameDecider, streams.marketplaceName(name), { type: 'reserve-marketplace-name', data: { name, marketplaceId }, meta });
    try {
      await execute(deps, marketplaceDecider, streams.marketplace(marketplaceId), {
        type: 'register-marketplace', data: { marketplaceId, name, origin, url, pushPolicy: origin === 'hosted' ? (pushPolicy ?? 'append-only') : null }, meta,
      }, ['marketplaces', 'ledger']);
    } catch (error) {
      await execute(deps, marketplaceNameDecider, streams.marketplaceName(name), { type: 'release-marketplace-name', data: { name, marketplaceId }, meta });
      throw error;
    }
    const registered = (await marketplaceById(deps.pool, marketplaceId))!;
    const others = (await liveMarketplaces(deps.pool)).filter((m) => m.id !== marketplaceId && m.url !== null && url !== null
      && normalizedCloneUrl(m.url) === normalizedCloneUrl(url));
    return reply.code(201).send({
      ...marketplaceView(registered, null, []),
      warnings: others.map((m) => `url already registered as ${m.name}`),
    });
  });

  app.delete('/api/v1/marketplaces/:name', {
    schema: { tags, summary: 'Remove (retire) a marketplace, withdrawing every approved snapshot', params: NameParams, body: RemovalBody, response: { 200: RemovalView, ...problemResponses(403, 404, 422) } },
  }, async (request) => {
    const caller = await requireAdmin(deps, request);
    const marketplace = await liveOr404(deps, request.params.name);
    const reason = request.body.reason.trim();
    if (reason === '') throw reject('invalid-request', 'a removal needs a reason');
    const meta = metaFor(deps, request, caller);
    const holders = await pushScopeHolders(deps.pool, marketplace.name);
    const decision = await execute(deps, marketplaceDecider, streams.marketplace(marketplace.id), {
      type: 'remove-marketplace', data: { reason, pushScopeTokenIds: holders }, meta,
    }, ['marketplaces', 'snapshots', 'tokens', 'ledger', 'publication']);
    await execute(deps, marketplaceNameDecider, streams.marketplaceName(marketplace.name), {
      type: 'release-marketplace-name', data: { name: marketplace.name, marketplaceId: marketplace.id }, meta,
    });
    const removed = decision.events.find((e) => e.type === 'marketplace-removed');
    if (removed?.type !== 'marketplace-removed') throw new Error('removal decided without a removal');
    return {
      id: marketplace.id, name: marketplace.name, removedAt: removed.data.removedAt, removedBy: removed.data.removedBy,
      withdrawnSnapshotIds: [...removed.data.withdrawnSnapshotIds], pushScopeRemovedFromTokenIds: holders,
    };
  });

  app.post('/api/v1/marketplaces/:name/ingest', {
    schema: { tags, summary: 'Ingest the default branch into quarantine as a held snapshot', params: NameParams, response: { 201: SnapshotView, ...problemResponses(403, 404, 502) } },
  }, async (request, reply) => {
    const marketplace = await liveOr404(deps, request.params.name);
    const caller = await requireApproverOf(deps, request, marketplace);
    const { snapshotId } = await ingest(deps, marketplace, 'on-demand', metaFor(deps, request, caller));
    return reply.code(201).send(snapshotView((await snapshotById(deps.pool, snapshotId))!));
  });
}
