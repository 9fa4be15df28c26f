// The Access section's reads. Secrets never enter the query cache: they live only in the state of the
// panel that shows them once.
import { useQuery } from '@tanstack/react-query';
import { api, data, type Body } from '../../api/client';
import { marketplacesQuery } from '../../api/marketplaces';
import { catalogNameOf } from './reach';

export { marketplacesQuery, type Marketplace } from '../../api/marketplaces';

export type Token = Body<'/api/v1/tokens', 'get'>[number];
export type Grant = Body<'/api/v1/roles', 'get'>[number];

export const tokensQuery = { queryKey: ['tokens'], queryFn: () => data(api.GET('/api/v1/tokens')) };
export const machineQuery = {
  queryKey: ['tokens', 'machine'],
  queryFn: () => data(api.GET('/api/v1/tokens/machine')),
};
export const grantsQuery = { queryKey: ['roles'], queryFn: () => data(api.GET('/api/v1/roles')) };

export const managedSettingsPath = '/api/v1/clients/managed-settings';

/** The managed settings registering `chosen` (none: the gateway's default, the catalog when it is enabled). */
export const managedSettingsQuery = (chosen: readonly string[]) => ({
  queryKey: ['clients', 'managed-settings', chosen],
  queryFn: () =>
    data(
      api.GET(managedSettingsPath, {
        params: { query: chosen.length === 0 ? {} : { marketplaces: chosen.join(',') } },
      }),
    ),
});

/** The catalog's name when the default managed settings register it (the catalog is enabled), else null. */
export function useCatalogName(): string | null {
  const settings = useQuery(managedSettingsQuery([]));
  const marketplaces = useQuery(marketplacesQuery());
  if (!settings.data || !marketplaces.data) return null;
  return catalogNameOf(Object.keys(settings.data.extraKnownMarketplaces), marketplaces.data);
}

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
