// The machine API's closed allowlist (docs/access.md, Machine credentials). An endpoint is reachable by a machine
// credential only when named here, and only with the scope it is named under. Written once, as data.
export const apiScopeTable = {
  'marketplaces:read': [
    'GET /api/v1/marketplaces',
    'GET /api/v1/marketplaces/{name}/ingest',
    'GET /api/v1/ingests',
    'GET /api/v1/catalog',
    'GET /api/v1/snapshots/{id}/content',
    'GET /api/v1/snapshots/{id}/content-diff',
    'GET /api/v1/snapshots/{id}/licenses',
    'GET /api/v1/snapshots/{id}/provenance',
    'GET /api/v1/snapshots/{id}/release-age',
  ],
  'snapshots:read': [
    'GET /api/v1/snapshots/{id}/diff',
    'GET /api/v1/snapshots/{id}/file',
    'GET /api/v1/snapshots/{id}/files',
    'GET /api/v1/snapshots/{id}/tree',
    'GET /api/v1/snapshots/{id}/vetting',
    'GET /api/v1/snapshots/{id}/fetchers',
    'GET /api/v1/snapshots/{id}/four-eyes',
    'GET /api/v1/snapshots/{id}/name-collisions',
  ],
  'marketplaces:register': ['POST /api/v1/marketplaces'],
  'marketplaces:ingest': ['POST /api/v1/marketplaces/{name}/ingest'],
  // The rerun is the gateway's own route for vetting a held snapshot again (decision 73): the
  // re-vet of one answers 409, and a machine that ran the re-vet must still reach it.
  'vetting:run': [
    'POST /api/v1/marketplaces/{name}/revet',
    'POST /api/v1/snapshots/{id}/revet',
    'POST /api/v1/snapshots/{id}/vetting/rerun',
  ],
  'waivers:read': ['GET /api/v1/marketplaces/{name}/waivers'],
  'sync:write': ['PUT /api/v1/marketplaces/{name}/sync'],
  'catalog:rebuild': ['POST /api/v1/catalog/rebuild'],
  'webhooks:read': ['GET /api/v1/webhooks', 'GET /api/v1/webhooks/deliveries', 'GET /api/v1/webhooks/events'],
  'webhooks:write': ['POST /api/v1/webhooks', 'DELETE /api/v1/webhooks/{id}'],
  'audit:read': ['GET /api/v1/audit', 'GET /api/v1/audit/export'],
  'audit-sinks:read': ['GET /api/v1/audit/sinks'],
  'audit-sinks:write': [
    'POST /api/v1/audit/sinks',
    'DELETE /api/v1/audit/sinks/{id}',
    'PUT /api/v1/audit/sinks/{id}/cursor',
  ],
  'policy:read': ['GET /api/v1/policy/rules', 'POST /api/v1/policy/playground'],
  'policy:write': [
    'POST /api/v1/policy/rules',
    'PUT /api/v1/policy/rules/{name}',
    'DELETE /api/v1/policy/rules/{name}',
  ],
  'retention:read': ['GET /api/v1/retention/candidates'],
  'estate:read': ['GET /api/v1/estate'],
  'estate:reconcile': ['POST /api/v1/estate/reconcile'],
  'adoption:read': ['GET /api/v1/adoption', 'GET /api/v1/adoption/staleness'],
  'roles:read': ['GET /api/v1/roles'],
} as const satisfies Record<string, readonly string[]>;

export type ApiScope = keyof typeof apiScopeTable;
export const apiScopes = Object.keys(apiScopeTable) as ApiScope[];
export const isApiScope = (value: string): value is ApiScope => Object.hasOwn(apiScopeTable, value);

const byEndpoint = new Map<string, ApiScope>(
  apiScopes.flatMap((scope) => apiScopeTable[scope].map((endpoint) => [endpoint, scope] as const)),
);

/** The scope that opens `METHOD /path/{param}` to machines, or null: unreachable by machine. */
export const scopeFor = (method: string, path: string): ApiScope | null => byEndpoint.get(`${method} ${path}`) ?? null;
