import t from 'tap';
import { apiScopes, apiScopeTable, isApiScope, scopeFor } from '../../../../src/domain/access/api-scopes.ts';

// The scope table, row by row, as docs/access.md (Machine credentials) words it.
const specTable: Array<[string, string[]]> = [
  [
    'marketplaces:read',
    [
      'GET /api/v1/marketplaces',
      'GET /api/v1/catalog',
      'GET /api/v1/snapshots/{id}/content',
      'GET /api/v1/snapshots/{id}/content-diff',
      'GET /api/v1/snapshots/{id}/licenses',
      'GET /api/v1/snapshots/{id}/provenance',
      'GET /api/v1/snapshots/{id}/release-age',
      // The gateway adds the progress of ingests (docs/decisions/0390): read like the marketplaces themselves.
      'GET /api/v1/marketplaces/{name}/ingest',
      'GET /api/v1/ingests',
    ],
  ],
  [
    'snapshots:read',
    [
      'GET /api/v1/snapshots/{id}/diff',
      'GET /api/v1/snapshots/{id}/file',
      'GET /api/v1/snapshots/{id}/files',
      'GET /api/v1/snapshots/{id}/tree',
      'GET /api/v1/snapshots/{id}/vetting',
      'GET /api/v1/snapshots/{id}/fetchers',
      'GET /api/v1/snapshots/{id}/four-eyes',
      'GET /api/v1/snapshots/{id}/name-collisions',
    ],
  ],
  ['marketplaces:register', ['POST /api/v1/marketplaces']],
  ['marketplaces:ingest', ['POST /api/v1/marketplaces/{name}/ingest']],
  // The gateway adds the rerun of a held snapshot's vetting (decision 73): the re-vet it replaces is 409 there.
  [
    'vetting:run',
    [
      'POST /api/v1/marketplaces/{name}/revet',
      'POST /api/v1/snapshots/{id}/revet',
      'POST /api/v1/snapshots/{id}/vetting/rerun',
    ],
  ],
  ['waivers:read', ['GET /api/v1/marketplaces/{name}/waivers']],
  ['sync:write', ['PUT /api/v1/marketplaces/{name}/sync']],
  ['catalog:rebuild', ['POST /api/v1/catalog/rebuild']],
  ['webhooks:read', ['GET /api/v1/webhooks', 'GET /api/v1/webhooks/deliveries', 'GET /api/v1/webhooks/events']],
  ['webhooks:write', ['POST /api/v1/webhooks', 'DELETE /api/v1/webhooks/{id}']],
  ['audit:read', ['GET /api/v1/audit', 'GET /api/v1/audit/export']],
  ['audit-sinks:read', ['GET /api/v1/audit/sinks']],
  [
    'audit-sinks:write',
    ['POST /api/v1/audit/sinks', 'DELETE /api/v1/audit/sinks/{id}', 'PUT /api/v1/audit/sinks/{id}/cursor'],
  ],
  ['policy:read', ['GET /api/v1/policy/rules', 'POST /api/v1/policy/playground']],
  [
    'policy:write',
    ['POST /api/v1/policy/rules', 'PUT /api/v1/policy/rules/{name}', 'DELETE /api/v1/policy/rules/{name}'],
  ],
  ['retention:read', ['GET /api/v1/retention/candidates']],
  ['estate:read', ['GET /api/v1/estate']],
  ['estate:reconcile', ['POST /api/v1/estate/reconcile']],
  ['adoption:read', ['GET /api/v1/adoption', 'GET /api/v1/adoption/staleness']],
  ['roles:read', ['GET /api/v1/roles']],
];

const split = (endpoint: string): [string, string] => {
  const [method = '', path = ''] = endpoint.split(' ');
  return [method, path];
};

t.test('the scopes are exactly those of the specification, in its order', async (t) => {
  t.strictSame(
    apiScopes,
    specTable.map(([scope]) => scope),
  );
  t.strictSame(
    Object.keys(apiScopeTable),
    specTable.map(([scope]) => scope),
  );
});

t.test('scopeFor opens every endpoint of the table under its own scope, and under no other', async (t) => {
  for (const [scope, endpoints] of specTable) {
    for (const endpoint of endpoints) t.equal(scopeFor(...split(endpoint)), scope, endpoint);
  }
  const all = specTable.flatMap(([, endpoints]) => endpoints);
  t.equal(new Set(all).size, all.length, 'no endpoint is named twice');
  t.equal(
    Object.values(apiScopeTable).flat().length,
    all.length,
    'and the table names nothing the specification does not',
  );
});

t.test('spec: the allowlist is closed; no scope and no role reaches these', async (t) => {
  const unreachable = [
    // approve and reject; waiver create and delete
    'POST /api/v1/snapshots/{id}/approve',
    'POST /api/v1/snapshots/{id}/reject',
    'POST /api/v1/snapshots/{id}/waivers',
    'DELETE /api/v1/waivers/{id}',
    // retention evaluate and compact; snapshot delete and restore; marketplace removal
    'POST /api/v1/retention/evaluate',
    'POST /api/v1/retention/compact',
    'DELETE /api/v1/snapshots/{id}',
    'POST /api/v1/snapshots/{id}/restore',
    'DELETE /api/v1/marketplaces/{name}',
    // POST/DELETE /api/v1/roles
    'POST /api/v1/roles',
    'DELETE /api/v1/roles/{id}',
    // everything under /api/v1/tokens/**
    'GET /api/v1/tokens',
    'POST /api/v1/tokens',
    'DELETE /api/v1/tokens/{id}',
    'POST /api/v1/tokens/{id}/rotate',
    'POST /api/v1/tokens/session',
    'GET /api/v1/tokens/machine',
    'POST /api/v1/tokens/machine',
    'POST /api/v1/tokens/machine/{id}/rotate',
    'DELETE /api/v1/tokens/machine/{id}',
    // GET /api/v1/me; the mirror endpoints
    'GET /api/v1/me',
    'GET /api/v1/mirror/drift',
    'POST /api/v1/mirror/reconcile',
    // not named in the table either
    'POST /api/v1/logout',
    'GET /api/v1/marketplaces/{name}/vetting-chain',
    'PUT /api/v1/vetting/chain-mode',
    'GET /api/v1/vetting/vetter-toggles',
  ];
  for (const endpoint of unreachable) t.equal(scopeFor(...split(endpoint)), null, endpoint);
});

t.test('an endpoint is named by method and path together', async (t) => {
  t.equal(scopeFor('POST', '/api/v1/roles'), null, 'GET /roles is open, POST is not');
  t.equal(scopeFor('DELETE', '/api/v1/marketplaces'), null);
  t.equal(scopeFor('GET', '/api/v1/marketplaces/{name}/ingest'), 'marketplaces:read', 'following an ingest reads');
  t.equal(scopeFor('POST', '/api/v1/marketplaces/{name}/ingest'), 'marketplaces:ingest', 'starting one ingests');
  t.equal(scopeFor('PUT', '/api/v1/marketplaces/{name}/ingest'), null);
  t.equal(scopeFor('GET', '/api/v1/audit/sinks/{id}/cursor'), null);
  t.equal(scopeFor('GET', '/api/v1/roles/'), null, 'a trailing slash is another path');
  t.equal(scopeFor('GET', '/api/v1/snapshots/7/content'), null, 'paths are route templates, not concrete URLs');
});

t.test("isApiScope: the table's keys only; there is no wildcard", async (t) => {
  for (const [scope] of specTable) t.ok(isApiScope(scope), scope);
  for (const value of [
    '*',
    'all',
    '',
    'roles',
    'roles:*',
    'ROLES:READ',
    'roles:write',
    'constructor',
    'toString',
    '__proto__',
    'hasOwnProperty',
  ]) {
    t.notOk(isApiScope(value), JSON.stringify(value));
  }
});
