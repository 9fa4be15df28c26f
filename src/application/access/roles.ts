import { effectiveRoles, rolesFromClaims, type RoleAssignment } from '../../domain/role/permissions.ts';
import { grantsOf } from '../../projections/roles/roles.queries.ts';
import type { Actor, Ports } from '../kernel/ports.ts';

/**
 * An actor's roles: configured admins, grants, and for people the roles mapped from their claims.
 * A machine principal gets roles only from the admin list or from a grant (docs/access.md, Roles).
 */
export async function rolesOf(ports: Pick<Ports, 'pool' | 'access'>, actor: Actor): Promise<RoleAssignment[]> {
  const grants = await grantsOf(ports.pool, actor.principal);
  const claimRoles = actor.actorType === 'human' ? rolesFromClaims(actor.claims, ports.access.claimMappings) : [];
  return effectiveRoles({ principal: actor.principal, configAdmins: ports.access.configAdmins, grants, claimRoles });
}
