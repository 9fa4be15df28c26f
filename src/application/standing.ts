import { liveMarketplaceByName, type MarketplaceRecord } from '../projections/marketplaces/marketplaces.queries.ts';
import { approvesFor, isAdmin, type RoleAssignment } from '../domain/role/permissions.ts';
import { isMarketplaceName } from '../domain/shared/names.ts';
import type { Actor, Ports } from './ports.ts';
import { reject } from './rejected.ts';
import { rolesOf } from './roles.ts';

const forbidden = (need: string) => reject('forbidden', `this needs the ${need} role`);

/** Refused with 403 unless the actor holds the admin role. */
export async function requireAdminRole(deps: Pick<Ports, 'pool' | 'access'>, actor: Actor): Promise<RoleAssignment[]> {
  const roles = await rolesOf(deps, actor);
  if (!isAdmin(roles)) throw forbidden('admin');
  return roles;
}

/** spec, Roles: approver of that marketplace, or admin, resolved from the addressed snapshot or waiver. */
export async function requireApprover(deps: Pick<Ports, 'pool' | 'access'>, actor: Actor,
  marketplace: Readonly<{ id: number; name: string }>): Promise<RoleAssignment[]> {
  const roles = await rolesOf(deps, actor);
  if (!approvesFor(roles, marketplace)) throw forbidden(`approver of ${marketplace.name}, or admin,`);
  return roles;
}

/** A live marketplace by name; 404 for an unknown or removed one (or a name no marketplace can have). */
export async function liveMarketplace(deps: Pick<Ports, 'pool'>, name: string): Promise<MarketplaceRecord> {
  const marketplace = isMarketplaceName(name) ? await liveMarketplaceByName(deps.pool, name) : null;
  if (!marketplace) throw reject('marketplace-not-found', `no live marketplace is named '${name}'`);
  return marketplace;
}
