// An actor's standing: the roles it holds and the checks use cases refuse with 403.
import {
  approvesFor,
  effectiveRoles,
  isAdmin,
  isAuditorOrAdmin,
  rolesFromClaims,
  type RoleAssignment,
} from '../../domain/role/permissions.ts';
import type { Grant } from '../../domain/role/role.decider.ts';
import { grantsOf } from '../../projections/roles/roles.queries.ts';
import type { Actor, Ports } from '../kernel/ports.ts';
import { reject } from '../kernel/rejected.ts';

/**
 * An actor's roles: configured admins, grants, and for people the roles mapped from their claims.
 * A machine principal gets roles only from the admin list or from a grant (docs/access.md, Roles).
 */
export async function rolesOf(ports: Pick<Ports, 'pool' | 'access'>, actor: Actor): Promise<RoleAssignment[]> {
  return rolesWith(ports, actor, await grantsOf(ports.pool, actor.principal));
}

/** An actor's roles from its grants as read already (the approval reads them with its other inputs). */
export function rolesWith(ports: Pick<Ports, 'access'>, actor: Actor, grants: readonly Grant[]): RoleAssignment[] {
  const claimRoles = actor.actorType === 'human' ? rolesFromClaims(actor.claims, ports.access.claimMappings) : [];
  return effectiveRoles({ principal: actor.principal, configAdmins: ports.access.configAdmins, grants, claimRoles });
}

type StandingPorts = Pick<Ports, 'pool' | 'access'>;

/** `roles`, refused with 403 (naming the role it needs) unless they are `allowed`. */
function holding(roles: RoleAssignment[], allowed: boolean, need: string): RoleAssignment[] {
  if (!allowed) throw reject('forbidden', `this needs the ${need} role`);
  return roles;
}

/** A check refused with 403 unless the actor's roles are `allowed`. */
const requiring =
  (allowed: (roles: readonly RoleAssignment[]) => boolean, need: string) =>
  async (deps: StandingPorts, actor: Actor): Promise<RoleAssignment[]> => {
    const roles = await rolesOf(deps, actor);
    return holding(roles, allowed(roles), need);
  };

/** Refused with 403 unless the actor holds the admin role. */
export const requireAdminRole = requiring(isAdmin, 'admin');

/** Refused with 403 unless the actor is an auditor or an admin. */
export const requireAuditorRole = requiring(isAuditorOrAdmin, 'auditor or admin');

type Marketplace = Readonly<{ id: number; name: string }>;

/** Refused with 403 unless `roles` approve for the marketplace (approver of it, or admin). */
export const approving = (roles: RoleAssignment[], marketplace: Marketplace): RoleAssignment[] =>
  holding(roles, approvesFor(roles, marketplace), `approver of ${marketplace.name}, or admin,`);

/** docs/access.md, Roles: approver of that marketplace, or admin, resolved from the addressed snapshot or waiver. */
export const requireApprover = async (
  deps: StandingPorts,
  actor: Actor,
  marketplace: Marketplace,
): Promise<RoleAssignment[]> => approving(await rolesOf(deps, actor), marketplace);
