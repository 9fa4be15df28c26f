import { Type } from 'typebox';
import { roleNames, roleSources } from '../../../domain/role/role.events.ts';
import { rolesOf } from '../../../application/access/standing.ts';
import { callerOf } from '../../auth/authorize.ts';
import type { HttpApp, HttpDeps } from '../../http-deps.ts';
import { literalUnion } from '../../schemas/common.schema.ts';

const Me = Type.Object({
  username: Type.String(),
  roles: Type.Array(
    Type.Object({
      role: literalUnion(roleNames),
      marketplace: Type.Union([Type.String(), Type.Null()]),
      source: literalUnion(roleSources),
    }),
  ),
  claimsTruncated: Type.Boolean(),
  version: Type.Optional(Type.String()),
});

// A role is reported once, under its most durable source; version is absent when the build has none.
export function meRoute(app: HttpApp, deps: HttpDeps): void {
  app.get(
    '/api/v1/me',
    { schema: { tags: ['session'], summary: 'Who you are signed in as, and your roles', response: { 200: Me } } },
    async (request) => {
      const caller = callerOf(request);
      const roles = (await rolesOf(deps, caller)).map(({ role, marketplace, source }) => ({
        role,
        marketplace,
        source,
      }));
      return {
        username: caller.principal,
        roles,
        claimsTruncated: caller.claimsTruncated,
        ...(deps.version === null ? {} : { version: deps.version }),
      };
    },
  );
}
