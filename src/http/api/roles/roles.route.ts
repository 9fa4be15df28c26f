import { Type } from 'typebox';
import { appendFacts } from '../../../adapters/eventstore/append-facts.ts';
import { metadataOf } from '../../../adapters/eventstore/run-command.ts';
import { fact } from '../../../domain/events.ts';
import { roleDecider } from '../../../domain/role/role.decider.ts';
import { roleNames } from '../../../domain/role/role.events.ts';
import { streams } from '../../../domain/shared/streams.ts';
import { liveMarketplaceByName } from '../../../projections/marketplaces/marketplaces.queries.ts';
import { allGrants, type GrantRecord } from '../../../projections/roles/roles.queries.ts';
import { metaFor, requireAdmin } from '../../auth/authorize.ts';
import { execute } from '../../../application/execute.ts';
import type { HttpApp, HttpDeps } from '../../http-deps.ts';
import { IdParams, literalUnion, problemResponses, Timestamp } from '../../schemas/common.schema.ts';

const tags = ['roles'];
const readModels = ['roles', 'ledger'];

const GrantView = Type.Object({
  id: Type.Integer(),
  principal: Type.String(),
  role: literalUnion(roleNames),
  marketplace: Type.Union([Type.String(), Type.Null()]),
  grantedBy: Type.String(),
  grantedAt: Timestamp,
});

const grantView = (g: GrantRecord) => ({ id: g.grantId, principal: g.principal, role: g.role, marketplace: g.marketplace, grantedBy: g.grantedBy, grantedAt: g.grantedAt });

const GrantBody = Type.Object({
  principal: Type.String({ maxLength: 200 }),
  role: literalUnion(roleNames),
  marketplace: Type.Optional(Type.Union([Type.String({ maxLength: 63 }), Type.Null()])),
}, { additionalProperties: false });

// spec, Roles: all three need the admin role (machines reach GET with roles:read and a config or granted admin role).
export function roleRoutes(app: HttpApp, deps: HttpDeps): void {
  app.get('/api/v1/roles', {
    schema: { tags, summary: 'Every role grant (configuration admins and claim roles are not grants)', response: { 200: Type.Array(GrantView), ...problemResponses(403) } },
  }, async (request) => {
    const caller = await requireAdmin(deps, request);
    const grants = await allGrants(deps.pool);
    // spec: every authorized read is recorded (roles-read, detail grants={n}); a refused one records nothing.
    const read = fact('roles-read', { grants: grants.length });
    const { position } = await appendFacts(deps.store, streams.reads('roles'), [read],
      metadataOf(metaFor(deps, request, caller)), 'any');
    await deps.waiter.waitFor(position, ['ledger']);
    return grants.map(grantView);
  });

  app.post('/api/v1/roles', {
    schema: { tags, summary: 'Grant a role', body: GrantBody, response: { 201: GrantView, ...problemResponses(403, 404, 409, 422) } },
  }, async (request, reply) => {
    const caller = await requireAdmin(deps, request);
    const marketplace = request.body.marketplace ?? null;
    const live = marketplace === null ? null : await liveMarketplaceByName(deps.pool, marketplace);
    const grantId = await deps.ids('grant');
    await execute(deps, roleDecider, streams.roles(), {
      type: 'grant-role',
      data: { grantId, principal: request.body.principal, role: request.body.role, marketplace, marketplaceId: live?.id ?? null },
      meta: metaFor(deps, request, caller),
    }, readModels);
    const granted = (await allGrants(deps.pool)).find((g) => g.grantId === grantId)!;
    return reply.code(201).send(grantView(granted));
  });

  app.delete('/api/v1/roles/:id', {
    schema: { tags, summary: 'Revoke a grant (configuration admins have no grant to revoke)', params: IdParams, response: { 204: Type.Null(), ...problemResponses(403, 404) } },
  }, async (request, reply) => {
    const caller = await requireAdmin(deps, request);
    await execute(deps, roleDecider, streams.roles(), { type: 'revoke-role', data: { grantId: request.params.id }, meta: metaFor(deps, request, caller) }, readModels);
    return reply.code(204).send(null);
  });
}
