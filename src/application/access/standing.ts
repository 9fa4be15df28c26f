// An actor's standing: the roles it holds and the checks use cases refuse with 403.
import {
  approvesFor,
  effectiveRoles,
  isAdmin,
  isAuditorOrAdmin,
  rolesFromClaims,
  type RoleAssignment,
} from '../../domain/role/permissions.ts';
import { grantsOf } from '../../projections/roles/roles.queries.ts';
import type { Actor, Ports } from '../kernel/ports.ts';
import { reject } from '../kernel/rejected.ts';

/**
 * An actor's roles: configured admins, grants, and for people the roles mapped from their claims.
 * A machine principal gets roles only from the admin list or from a grant (docs/access.md, Roles).
 */
export async function rolesOf(ports: Pick<Ports, 'pool' | 'access'>, actor: Actor): Promise<RoleAssignment[]> {
  const grants = await grantsOf(ports.pool, actor.principal);
  const claimRoles = actor.actorType === 'human' ? rolesFromClaims(actor.claims, ports.access.claimMappings) : [];
  return effectiveRoles({ principal: actor.principal, configAdmins: ports.access.configAdmins, grants, claimRoles });
}

const forbidden = (need: string) => reject('forbidden', `this needs the ${need} role`);

/** Refused with 403 unless the actor holds the admin role. */
export async function requireAdminRole(deps: Pick<Ports, 'pool' | 'access'>, actor: Actor): Promise<RoleAssignment[]> {
  const roles = await rolesOf(deps, actor);
  if (!isAdmin(roles)) throw forbidden('admin');
  return roles;
}

/** Refused with 403 unless the actor is an auditor or an admin. */
export async function requireAuditorRole(
  deps: Pick<Ports, 'pool' | 'access'>,
  actor: Actor,
): Promise<RoleAssignment[]> {
  const roles = await rolesOf(deps, actor);
  if (!isAuditorOrAdmin(roles)) throw forbidden('auditor or admin');
  return roles;
}

/** docs/access.md, Roles: approver of that marketplace, or admin, resolved from the addressed snapshot or waiver. */
export async function requireApprover(
  deps: Pick<Ports, 'pool' | 'access'>,
  actor: Actor,
  marketplace: Readonly<{ id: number; name: string }>,
): Promise<RoleAssignment[]> {
  const roles = await rolesOf(deps, actor);
  if (!approvesFor(roles, marketplace)) throw forbidden(`approver of ${marketplace.name}, or admin,`);
  return roles;
}
