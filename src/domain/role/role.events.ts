import type { Event, Instant } from '../kernel/decider.ts';

export const roleNames = ['admin', 'approver', 'auditor'] as const;
export type RoleName = (typeof roleNames)[number];
export const roleSources = ['config', 'grant', 'claim'] as const;
export type RoleSource = (typeof roleSources)[number];

export type RoleGranted = Event<
  'role-granted',
  {
    grantId: number;
    principal: string;
    role: RoleName;
    marketplace: string | null;
    marketplaceId: number | null;
    grantedBy: string;
    grantedAt: Instant;
  }
>;

export type RoleRevoked = Event<
  'role-revoked',
  {
    grantId: number;
    principal: string;
    role: RoleName;
    marketplace: string | null;
    marketplaceId: number | null;
    revokedBy: string;
    revokedAt: Instant;
  }
>;

// Every authorized read of GET /roles is recorded, detail grants={n}.
export type RolesRead = Event<'roles-read', { grants: number }>;

export type RoleEvent = RoleGranted | RoleRevoked;
