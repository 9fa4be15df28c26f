import { accept, refuse, type Command, type Decider } from '../kernel/decider.ts';
import type { RoleEvent, RoleName } from './role.events.ts';

export type Grant = Readonly<{
  grantId: number;
  principal: string;
  role: RoleName;
  marketplace: string | null;
  marketplaceId: number | null;
}>;

export type GrantRole = Command<
  'grant-role',
  {
    grantId: number;
    principal: string;
    role: RoleName;
    marketplace: string | null;
    /** Resolved by the handler from the live marketplaces; null when the name is unknown. */
    marketplaceId: number | null;
  }
>;
export type RevokeRole = Command<'revoke-role', { grantId: number }>;
export type RoleCommand = GrantRole | RevokeRole;

/** All live grants: one stream (`roles`), so that an identical grant can be refused without a race. */
export type RoleState = ReadonlyMap<number, Grant>;

const sameGrant = (a: Grant, b: Omit<Grant, 'grantId' | 'marketplaceId'>) =>
  a.principal === b.principal && a.role === b.role && a.marketplace === b.marketplace;

export const roleDecider: Decider<RoleState, RoleCommand, RoleEvent> = {
  initialState: () => new Map(),
  evolve(state, event) {
    const next = new Map(state);
    if (event.type === 'role-granted') {
      const { grantId, principal, role, marketplace, marketplaceId } = event.data;
      next.set(grantId, { grantId, principal, role, marketplace, marketplaceId });
    } else {
      next.delete(event.data.grantId);
    }
    return next;
  },
  decide(command, state) {
    const { meta } = command;
    if (command.type === 'revoke-role') {
      const grant = state.get(command.data.grantId);
      if (!grant) return refuse({ code: 'grant-not-found', detail: `no role grant ${command.data.grantId}` });
      return accept({ type: 'role-revoked', data: { ...grant, revokedBy: meta.principal, revokedAt: meta.at } });
    }
    const { grantId, role, marketplace, marketplaceId } = command.data;
    const principal = command.data.principal.trim();
    // 422: a missing principal, approver without marketplace, or a global role with one.
    if (principal === '') return refuse({ code: 'invalid-grant', detail: 'principal is required' });
    if (role === 'approver' && marketplace === null) {
      return refuse({ code: 'invalid-grant', detail: 'an approver grant names the marketplace it approves for' });
    }
    if (role !== 'approver' && marketplace !== null) {
      return refuse({ code: 'invalid-grant', detail: `${role} is a global role and takes no marketplace` });
    }
    if (marketplace !== null && marketplaceId === null) {
      return refuse({ code: 'marketplace-not-found', detail: `no live marketplace is named '${marketplace}'` });
    }
    for (const grant of state.values()) {
      if (sameGrant(grant, { principal, role, marketplace })) {
        return refuse({
          code: 'grant-exists',
          detail: `grant ${grant.grantId} already gives ${principal} the ${role} role${marketplace ? ` on ${marketplace}` : ''}`,
        });
      }
    }
    return accept({
      type: 'role-granted',
      data: { grantId, principal, role, marketplace, marketplaceId, grantedBy: meta.principal, grantedAt: meta.at },
    });
  },
};
