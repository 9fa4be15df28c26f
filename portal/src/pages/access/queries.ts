// The Access section's reads. Secrets never enter the query cache: they live only in the state of the
// panel that shows them once.
import { api, data, type Body } from '../../api/client';

export { marketplacesQuery, type Marketplace } from '../../api/marketplaces';

export type Token = Body<'/api/v1/tokens', 'get'>[number];
export type Grant = Body<'/api/v1/roles', 'get'>[number];

export const tokensQuery = { queryKey: ['tokens'], queryFn: () => data(api.GET('/api/v1/tokens')) };
export const machineQuery = {
  queryKey: ['tokens', 'machine'],
  queryFn: () => data(api.GET('/api/v1/tokens/machine')),
};
export const grantsQuery = { queryKey: ['roles'], queryFn: () => data(api.GET('/api/v1/roles')) };

/** The machine API's closed allowlist of scopes (docs/access.md, Machine credentials). */
export const apiScopeNames = [
  'marketplaces:read',
  'snapshots:read',
  'marketplaces:register',
  'marketplaces:ingest',
  'vetting:run',
  'waivers:read',
  'sync:write',
  'catalog:rebuild',
  'webhooks:read',
  'webhooks:write',
  'audit:read',
  'audit-sinks:read',
  'audit-sinks:write',
  'policy:read',
  'policy:write',
  'retention:read',
  'estate:read',
  'estate:reconcile',
  'adoption:read',
  'roles:read',
] as const;
