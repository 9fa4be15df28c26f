// GET /api/v1/clients/managed-settings returns a Claude Code managed-settings.json for the
// organisation: extraKnownMarketplaces registering the catalog (or the chosen marketplaces) through the facade
// and strictKnownMarketplaces limited to the gateway's host (hostPattern), so clients can reach nothing else.
import t from 'tap';
import { day, expectJson, expectProblem, inMs, machine, registerMarketplace, session } from '../../support/assert.ts';
import { startTestGateway } from '../../support/gateway.ts';

const env = { GATEWAY_DEV_INSECURE_AUTH: 'true', GATEWAY_ROLES_ADMINS: 'root' };
const path = '/api/v1/clients/managed-settings';

type Settings = {
  extraKnownMarketplaces: Record<string, { source: { source: string; url: string } }>;
  strictKnownMarketplaces: Array<{ source: string; hostPattern: string }>;
};

t.test('the catalog by default, through the facade, and the gateway host alone, escaped', async (t) => {
  const base = 'https://skills.acme-corp.example:8443';
  const gw = await startTestGateway(t, { ...env, GATEWAY_BASE_URL: base });
  const response = await session(gw, 'alice').get(path);
  t.match(response.headers.get('content-type'), /^application\/json/, 'JSON');
  t.equal(
    response.headers.get('content-disposition'),
    'attachment; filename="managed-settings.json"',
    'offered as a download under the name Claude Code reads',
  );
  const settings = await expectJson<Settings>(t, response, 200, 'any signed-in caller');
  t.same(settings, {
    extraKnownMarketplaces: { catalog: { source: { source: 'git', url: `${base}/git/catalog.git` } } },
    strictKnownMarketplaces: [{ source: 'hostPattern', hostPattern: '^skills\\.acme-corp\\.example$' }],
  });
  // Claude Code compares the pattern with the URL's hostname (no port): it must admit this host and no look-alike.
  const pattern = new RegExp(settings.strictKnownMarketplaces[0]!.hostPattern);
  t.ok(pattern.test(new URL(`${base}/git/catalog.git`).hostname), "admits the gateway's hostname");
  for (const other of [
    'skillsXacme-corp.example',
    'skills.acme-corp.example.evil.test',
    'evil.skills.acme-corp.example',
  ])
    t.notOk(pattern.test(other), `refuses ${other}`);
});

t.test(
  'chosen marketplaces: the catalog and live ones, in the order given, each once; unknown ones named',
  async (t) => {
    const gw = await startTestGateway(t, env);
    await registerMarketplace(gw, 1, 'acme', 'upstream');
    await registerMarketplace(gw, 2, 'studio', 'hosted');
    const alice = session(gw, 'alice');
    const chosen = await expectJson<Settings>(t, await alice.get(`${path}?marketplaces=studio,%20catalog,studio`), 200);
    t.same(
      Object.entries(chosen.extraKnownMarketplaces).map(([name, entry]) => [name, entry.source.url]),
      [
        ['studio', `${gw.url}/git/studio.git`],
        ['catalog', `${gw.url}/git/catalog.git`],
      ],
      'each chosen name once, through the facade',
    );
    t.same(chosen.strictKnownMarketplaces, [{ source: 'hostPattern', hostPattern: '^127\\.0\\.0\\.1$' }]);

    const unknown = await expectProblem(
      t,
      await alice.get(`${path}?marketplaces=acme,nope,other`),
      404,
      'marketplace-not-found',
    );
    t.match(unknown.detail, /nope, other/, 'every unknown name is named');
    t.same((unknown as unknown as { unknown: string[] }).unknown, ['nope', 'other']);
    await expectProblem(
      t,
      await alice.get(`${path}?marketplaces=acme,,studio`),
      422,
      'invalid-request',
      'an empty entry',
    );
    await expectProblem(t, await alice.get(`${path}?marketplaces=`), 422, 'invalid-request', 'an empty list');
    const many = Array.from({ length: 101 }, (_, i) => `m${i}`).join(',');
    await expectProblem(t, await alice.get(`${path}?marketplaces=${many}`), 422, 'invalid-request', '101 names');
  },
);

t.test('with the catalog disabled: every live marketplace by default, and "catalog" is unknown', async (t) => {
  const gw = await startTestGateway(t, { ...env, GATEWAY_CATALOG_ENABLED: 'false' });
  await registerMarketplace(gw, 1, 'studio', 'hosted');
  await registerMarketplace(gw, 2, 'acme', 'upstream');
  const alice = session(gw, 'alice');
  const settings = await expectJson<Settings>(t, await alice.get(path), 200);
  t.same(Object.keys(settings.extraKnownMarketplaces), ['acme', 'studio'], 'every live marketplace, in name order');
  await expectProblem(t, await alice.get(`${path}?marketplaces=catalog`), 404, 'marketplace-not-found');
});

t.test('signed-in people only: anonymous 401, machine credentials outside the closed allowlist 403', async (t) => {
  const gw = await startTestGateway(t, env);
  await expectProblem(t, await gw.fetch(path), 401, 'unauthenticated', 'anonymous');
  const body = { principal: 'fleet-bot', name: 'fleet', apiScopes: ['roles:read'], expiresAt: inMs(day) };
  const issued = await expectJson<{ token: string }>(
    t,
    await session(gw, 'root').post('/api/v1/tokens/machine', body),
    201,
  );
  await expectProblem(t, await machine(gw, issued.token).get(path), 403, 'forbidden', 'a machine credential');
});
