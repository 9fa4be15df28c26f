// Decision 423: the portal tells a person which of their tokens can fetch what the managed settings register.
// Its rule must be the facade's: an active token without API scopes, whose scopes are empty or name it.
import t from 'tap';
import { mayFetch as facadeMayFetch } from '../../../src/http/auth/facade-credentials.ts';
import {
  catalogNameOf,
  mayFetch,
  reachOf,
  type FetchingToken,
  type ServingMarketplace,
} from '../../../portal/src/pages/access/reach.ts';

type Token = FetchingToken & Readonly<{ id: number }>;

const now = Date.parse('2026-03-01T10:00:00Z');
const token = (id: number, fields: Partial<Token> = {}): Token => ({
  id,
  name: `t${id}`,
  revokedAt: null,
  scopes: [],
  apiScopes: [],
  expiresAt: null,
  ...fields,
});
const market = (name: string, servedSha: string | null): ServingMarketplace => ({ name, servedSha });

const tokens = [
  token(1),
  token(2, { scopes: ['acme'] }),
  token(3, { scopes: ['acme', 'catalog'] }),
  token(4, { revokedAt: '2026-02-01T00:00:00Z' }),
  token(5, { expiresAt: '2026-02-28T00:00:00Z' }),
  token(6, { apiScopes: ['marketplaces:read'] }),
  token(7, { scopes: ['other'], expiresAt: '2026-04-01T00:00:00Z' }),
];

t.test('the portal rule is the facade rule for every token and name', async (t) => {
  for (const each of tokens)
    for (const name of ['acme', 'catalog', 'other']) {
      // What authenticateFacade accepts (active, no API scopes), then the facade's scope check.
      const authenticates = each.revokedAt === null && (each.expiresAt === null || Date.parse(each.expiresAt) > now);
      const caller = {
        principal: 'alice',
        credentialKind: 'pat' as const,
        tokenId: each.id,
        scopes: each.scopes.length === 0 ? null : each.scopes,
        pushScopes: [],
      };
      const facade = authenticates && each.apiScopes.length === 0 && facadeMayFetch(caller, name);
      t.equal(mayFetch(each, name, now), facade, `${each.name} → ${name}`);
    }
});

t.test('reach per registered name, the catalog told apart, unserved marketplaces noted', async (t) => {
  const marketplaces = [market('acme', 'a'.repeat(40)), market('later', null)];
  const reach = reachOf(['catalog', 'acme', 'later'], tokens, marketplaces, 'catalog', now);
  t.same(
    reach.map((r) => [r.name, r.catalog, r.served, r.tokens.map((x) => x.name)]),
    [
      ['catalog', true, true, ['t1', 't3']],
      ['acme', false, true, ['t1', 't2', 't3']],
      ['later', false, false, ['t1']],
    ],
  );
  t.same(
    reachOf(['catalog'], [token(2, { scopes: ['acme'] })], marketplaces, 'catalog', now)[0]?.tokens,
    [],
    "the README's scoped token reaches no catalog",
  );
});

t.test('the catalog is the default entry that is no live marketplace', async (t) => {
  const marketplaces = [market('acme', null), market('tools', null)];
  t.equal(catalogNameOf(['catalog'], marketplaces), 'catalog', 'catalog enabled: the default registers it alone');
  t.equal(catalogNameOf(['acme', 'tools'], marketplaces), null, 'catalog disabled: every live marketplace');
  t.equal(catalogNameOf([], []), null, 'nothing registered');
});
