import { Type } from 'typebox';
import { grantRole, readGrants, revokeRole } from '../../../application/access/role-grants.use-case.ts';
import { roleNames } from '../../../domain/role/role.events.ts';
import type { HttpApp, HttpDeps } from '../../http-deps.ts';
import { actAsAdmin } from '../../auth/acting.ts';
import { deleteRoute } from '../delete-route.ts';
import { literalUnion, problemResponses, Timestamp } from '../../schemas/common.schema.ts';

const tags = ['roles'];

const GrantView = Type.Object({
  id: Type.Integer(),
  principal: Type.String(),
  role: literalUnion(roleNames),
  marketplace: Type.Union([Type.String(), Type.Null()]),
  grantedBy: Type.String(),
  grantedAt: Timestamp,
});

type GrantRecord = Awaited<ReturnType<typeof readGrants>>[number];

const grantView = (g: GrantRecord) => ({
  id: g.grantId,
  principal: g.principal,
  role: g.role,
  marketplace: g.marketplace,
  grantedBy: g.grantedBy,
  grantedAt: g.grantedAt,
});

const GrantBody = Type.Object(
  {
    principal: Type.String({ maxLength: 200 }),
    role: literalUnion(roleNames),
    marketplace: Type.Optional(Type.Union([Type.String({ maxLength: 63 }), Type.Null()])),
  },
  { additionalProperties: false },
);

// All three need the admin role (machines reach GET with roles:read and a config or granted admin role).
export function roleRoutes(app: HttpApp, deps: HttpDeps): void {
  app.get(
    '/api/v1/roles',
    {
      schema: {
        tags,
        summary: 'Every role grant (configuration admins and claim roles are not grants)',
        response: { 200: Type.Array(GrantView), ...problemResponses(403) },
      },
    },
    async (request) => {
      // A refused read records nothing: the admin check comes first.
      return (await actAsAdmin(deps, request, (_caller, meta) => readGrants(deps, meta))).map(grantView);
    },
  );

  app.post(
    '/api/v1/roles',
    {
      schema: {
        tags,
        summary: 'Grant a role',
        body: GrantBody,
        response: { 201: GrantView, ...problemResponses(403, 404, 409, 422) },
      },
    },
    async (request, reply) => {
      const { principal, role, marketplace = null } = request.body;
      const granted = await actAsAdmin(deps, request, (_caller, meta) =>
        grantRole(deps, { principal, role, marketplace }, meta),
      );
      return reply.code(201).send(grantView(granted));
    },
  );

  deleteRoute(
    app,
    deps,
    {
      path: '/api/v1/roles',
      tags,
      summary: 'Revoke a grant (configuration admins have no grant to revoke)',
      adminOnly: true,
    },
    (_caller, id, meta) => revokeRole(deps, id, meta),
  );
}
