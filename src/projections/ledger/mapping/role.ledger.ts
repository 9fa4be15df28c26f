import type { RoleEvent, RoleGranted, RolesRead } from '../../../domain/role/role.events.ts';
import type { LedgerTable } from './ledger-table.ts';

type Grant = Pick<RoleGranted['data'], 'grantId' | 'principal' | 'role' | 'marketplace' | 'marketplaceId'>;

const grant = ({ role, principal, marketplace, marketplaceId, grantId }: Grant, verb: string) => [
  { marketplace: marketplace ?? '-', marketplaceId, detail: `grant ${grantId}: ${role} ${verb} ${principal}` },
];

/** Role grants (the marketplace, or - for a global role), and every read of GET /api/v1/roles. */
export const roleLedger: LedgerTable<RoleEvent | RolesRead> = {
  'role-granted': ({ data }) => grant(data, 'granted to'),
  'role-revoked': ({ data }) => grant(data, 'revoked from'),
  'roles-read': ({ data }) => [{ detail: `grants=${data.grants}` }],
};
