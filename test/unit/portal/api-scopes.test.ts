// The portal offers the machine API's scopes in a list of its own (it cannot import src/); the machine
// allowlist is closed (docs/access.md), so the two lists must name the same scopes in the same order.
import { readFileSync } from 'node:fs';
import t from 'tap';
import { apiScopes } from '../../../src/domain/access/api-scopes.ts';

t.test('the portal offers exactly the machine API scopes the gateway knows', async (t) => {
  const source = readFileSync('portal/src/pages/access/queries.ts', 'utf8');
  const list = /export const apiScopeNames = \[([^\]]*)\]/.exec(source)?.[1];
  t.ok(list, 'portal/src/pages/access/queries.ts declares apiScopeNames');
  const offered = [...(list ?? '').matchAll(/'([^']+)'/g)].map((m) => m[1]);
  t.same(offered, apiScopes);
});
