import type { Grant } from './role.decider.ts';
import type { RoleName, RoleSource } from './role.events.ts';

export type RoleAssignment = Readonly<{
  role: RoleName;
  marketplace: string | null;
  /** Grants name the marketplace by id (a re-registered name inherits nothing); claims only by name. */
  marketplaceId: number | null;
  source: RoleSource;
}>;

export type ClaimMapping = Readonly<{ claim: string; value: string; role: RoleName; marketplace: string | null }>;

const claimHolds = (claim: unknown, value: string): boolean =>
  Array.isArray(claim)
    ? claim.some((item) => String(item) === value)
    : claim !== undefined && claim !== null && String(claim) === value;

/** Roles of source `claim`: each mapping whose claim equals the value, or is a list containing it. */
export function rolesFromClaims(
  claims: Readonly<Record<string, unknown>>,
  mappings: readonly ClaimMapping[],
): RoleAssignment[] {
  return mappings
    .filter((mapping) => claimHolds(claims[mapping.claim], mapping.value))
    .map((mapping) => ({
      role: mapping.role,
      marketplace: mapping.marketplace,
      marketplaceId: null,
      source: 'claim' as const,
    }));
}

const durability: Record<RoleSource, number> = { config: 0, grant: 1, claim: 2 };

/**
 * Every role of a principal, each reported once under its most durable source (config, then grant,
 * then claim). Machine principals pass no claim roles: they never get roles from claims.
 */
export function effectiveRoles(
  input: Readonly<{
    principal: string;
    configAdmins: readonly string[];
    grants: readonly Grant[];
    claimRoles: readonly RoleAssignment[];
  }>,
): RoleAssignment[] {
  const all: RoleAssignment[] = [
    ...(input.configAdmins.includes(input.principal)
      ? [{ role: 'admin' as const, marketplace: null, marketplaceId: null, source: 'config' as const }]
      : []),
    ...input.grants
      .filter((g) => g.principal === input.principal)
      .map((g) => ({
        role: g.role,
        marketplace: g.marketplace,
        marketplaceId: g.marketplaceId,
        source: 'grant' as const,
      })),
    ...input.claimRoles,
  ];
  const kept = new Map<string, RoleAssignment>();
  for (const assignment of all) {
    const key = `${assignment.role}\u0000${assignment.marketplace ?? ''}`;
    const current = kept.get(key);
    if (!current || durability[assignment.source] < durability[current.source]) kept.set(key, assignment);
  }
  return [...kept.values()].sort(
    (a, b) =>
      a.role.localeCompare(b.role) ||
      (a.marketplace ?? '').localeCompare(b.marketplace ?? '') ||
      durability[a.source] - durability[b.source],
  );
}

export const hasRole = (roles: readonly RoleAssignment[], role: RoleName): boolean =>
  roles.some((r) => r.role === role);
export const isAdmin = (roles: readonly RoleAssignment[]): boolean => hasRole(roles, 'admin');
export const isAuditorOrAdmin = (roles: readonly RoleAssignment[]): boolean =>
  hasRole(roles, 'admin') || hasRole(roles, 'auditor');

/** Approver of that marketplace, or admin (docs/access.md, Roles). */
export function approvesFor(
  roles: readonly RoleAssignment[],
  marketplace: Readonly<{ id: number; name: string }>,
): boolean {
  return (
    isAdmin(roles) ||
    roles.some(
      (r) =>
        r.role === 'approver' &&
        (r.marketplaceId !== null ? r.marketplaceId === marketplace.id : r.marketplace === marketplace.name),
    )
  );
}
