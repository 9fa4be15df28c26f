import { Type } from 'typebox';
import { registerMarketplace, removeMarketplace } from '../../../application/marketplaces/registration.use-case.ts';
import { marketplaceOrigins, pushPolicies } from '../../../domain/marketplace/marketplace.events.ts';
import { listMarketplaces } from '../../../application/marketplaces/marketplace-reads.use-case.ts';
import { callerOf } from '../../auth/authorize.ts';
import type { HttpApp, HttpDeps } from '../../http-deps.ts';
import { actAsAdmin } from '../../auth/acting.ts';
import { literalUnion, problemResponses, Timestamp, NameParams } from '../../schemas/common.schema.ts';
import { MarketplaceView, marketplaceView } from '../../schemas/marketplace.schema.ts';

const tags = ['marketplaces'];
const RegisterBody = Type.Object(
  {
    // No length bound here: an over-long name is refused by the name rule, with its /git/<name> wording.
    name: Type.String(),
    url: Type.Optional(Type.String({ maxLength: 2048 })),
    ref: Type.Optional(Type.String({ maxLength: 255 })),
    origin: Type.Optional(literalUnion(marketplaceOrigins)),
    pushPolicy: Type.Optional(literalUnion(pushPolicies)),
  },
  { additionalProperties: false },
);

const RemovalBody = Type.Object({ reason: Type.String({ maxLength: 2000 }) }, { additionalProperties: false });
const RemovalView = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  removedAt: Timestamp,
  removedBy: Type.String(),
  withdrawnSnapshotIds: Type.Array(Type.Integer()),
  pushScopeRemovedFromTokenIds: Type.Array(Type.Integer()),
});

export function marketplaceRoutes(app: HttpApp, deps: HttpDeps): void {
  listMarketplacesRoute(app, deps);
  registerMarketplaceRoute(app, deps);
  removeMarketplaceRoute(app, deps);
}

function listMarketplacesRoute(app: HttpApp, deps: HttpDeps): void {
  app.get(
    '/api/v1/marketplaces',
    {
      schema: {
        tags,
        summary: 'Every live marketplace with its snapshots',
        response: { 200: Type.Array(MarketplaceView) },
      },
    },
    async (request) => {
      callerOf(request);
      return (await listMarketplaces(deps)).map((m) => marketplaceView(m.marketplace, m.servedSha, m.snapshots));
    },
  );
}

function registerMarketplaceRoute(app: HttpApp, deps: HttpDeps): void {
  app.post(
    '/api/v1/marketplaces',
    {
      schema: {
        tags,
        summary: 'Register a marketplace (upstream or hosted)',
        body: RegisterBody,
        response: {
          201: Type.Intersect([MarketplaceView, Type.Object({ warnings: Type.Array(Type.String()) })]),
          ...problemResponses(400, 403, 409, 422, 502),
        },
      },
    },
    async (request, reply) => {
      const { name, ref = null, origin = 'upstream', pushPolicy = null } = request.body;
      const registration = { name, url: request.body.url ?? null, ref, origin, pushPolicy };
      const { marketplace, warnings } = await actAsAdmin(deps, request, (_admin, meta) =>
        registerMarketplace(deps, registration, meta),
      );
      return reply.code(201).send({ ...marketplaceView(marketplace, null, []), warnings });
    },
  );
}

function removeMarketplaceRoute(app: HttpApp, deps: HttpDeps): void {
  app.delete(
    '/api/v1/marketplaces/:name',
    {
      schema: {
        tags,
        summary: 'Remove (retire) a marketplace, withdrawing every approved snapshot',
        params: NameParams,
        body: RemovalBody,
        response: { 200: RemovalView, ...problemResponses(403, 404, 422) },
      },
    },
    async (request) =>
      actAsAdmin(deps, request, (_admin, meta) =>
        removeMarketplace(deps, request.params.name, request.body.reason, meta),
      ),
  );
}
