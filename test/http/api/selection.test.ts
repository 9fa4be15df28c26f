// Curation (docs/marketplaces.md, Selection): an admin chooses which plugins of an upstream marketplace the
// gateway serves (`PUT /api/v1/marketplaces/{name}/selection` with `include`/`exclude` name patterns, on the ledger).
import t, { type Test } from 'tap';
import { devSession, type ApiAnswer } from '../../support/api.ts';
import { assertNothingChanged, ledger } from '../../support/assert.ts';
import { startTestGateway, type TestGateway } from '../../support/gateway.ts';
import { marketplaceFiles, serveUpstream } from '../../support/upstream.ts';

const env = { GATEWAY_DEV_INSECURE_AUTH: 'true', GATEWAY_ROLES_ADMINS: 'root' };
const path = '/api/v1/marketplaces/acme/selection';

const putRaw = (gw: TestGateway, user: string, body: unknown) => devSession(gw, user).put(path, body);
/** A refused PUT: a problem document of `status` (and `code`), and nothing recorded. */
const refused = async (
  t: Test,
  gw: TestGateway,
  body: unknown,
  status: number,
  code: string,
  { user = 'root', target = path } = {},
): Promise<ApiAnswer> => {
  const answer = await assertNothingChanged(t, gw, () => devSession(gw, user).put(target, body), JSON.stringify(body));
  t.equal(answer.status, status, `${JSON.stringify(body)}: ${answer.text.slice(0, 300)}`);
  t.match(answer.headers.get('content-type'), /^application\/problem\+json/);
  t.match(answer.body, { status, type: new RegExp(`/problems/${code}$`) });
  return answer;
};

const listed = async (gw: TestGateway, user = 'alice') =>
  ((await devSession(gw, user).get('/api/v1/marketplaces')).body as { name: string; selection: unknown }[]).find(
    (m) => m.name === 'acme',
  );

t.test('an admin sets, reads and clears the selection; it is on the ledger and on the marketplace', async (t) => {
  const gw = await startTestGateway(t, env);
  const root = devSession(gw, 'root');
  const upstream = await serveUpstream(t, marketplaceFiles('acme', ['alpha']));
  t.equal((await root.post('/api/v1/marketplaces', { name: 'acme', url: upstream.url })).status, 201);

  const before = await devSession(gw, 'alice').get(path);
  t.equal(before.status, 200, 'any session reads it');
  t.strictSame(before.body, { marketplace: 'acme', selection: null }, 'no selection: every plugin is served');
  t.equal((await listed(gw))?.selection, null);

  const set = await root.put(path, { include: ['code-*', 'security-guidance', 'code-*'], exclude: ['code-legacy'] });
  t.equal(set.status, 200, set.text);
  t.match(set.body, {
    marketplace: 'acme',
    selection: {
      include: ['code-*', 'security-guidance'],
      exclude: ['code-legacy'],
      setBy: 'root',
      setAt: /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/,
    },
  });
  t.strictSame((await devSession(gw, 'alice').get(path)).body, set.body, 'GET answers what PUT stored');
  t.strictSame((await listed(gw))?.selection, set.body.selection, 'the marketplace resource shows it');
  t.match(await ledger(gw, 'marketplace-selection-set'), [
    {
      principal: 'root',
      source: 'admin',
      marketplace: 'acme',
      detail: 'include=[code-*, security-guidance] exclude=[code-legacy]; takes effect at the next ingest',
    },
  ]);

  const again = await assertNothingChanged(
    t,
    gw,
    () => root.put(path, { include: ['code-*', 'security-guidance'], exclude: ['code-legacy'] }),
    'the same selection again',
  );
  t.equal(again.status, 200);
  t.strictSame(again.body, set.body, 'setting the selection it has changes nothing, setAt included');

  const excludeOnly = await root.put(path, { exclude: ['example-*'] });
  t.match(excludeOnly.body.selection, { include: [], exclude: ['example-*'] });
  t.match((await ledger(gw, 'marketplace-selection-set')).at(-1), {
    detail: 'include=every plugin exclude=[example-*]; takes effect at the next ingest',
  });

  const cleared = await root.put(path, {});
  t.equal(cleared.status, 200);
  t.strictSame(cleared.body, { marketplace: 'acme', selection: null }, '{} clears the selection');
  t.equal((await listed(gw))?.selection, null);
  t.match((await ledger(gw, 'marketplace-selection-set')).at(-1), {
    detail: 'selection cleared: every plugin is served from the next ingest',
  });
  t.equal((await ledger(gw, 'marketplace-selection-set')).length, 3);
  t.equal((await ledger(gw, 'ingest-succeeded')).length, 0, 'setting a selection starts no ingest');
});

t.test(
  'refusals: 400 bad patterns or too many, 422 off-schema, 403 non-admin, 404 unknown; nothing recorded',
  async (t) => {
    const gw = await startTestGateway(t, env);
    const root = devSession(gw, 'root');
    const upstream = await serveUpstream(t, marketplaceFiles('acme', ['alpha']));
    t.equal((await root.post('/api/v1/marketplaces', { name: 'acme', url: upstream.url })).status, 201);
    t.equal((await root.put(path, { include: ['kept-*'] })).status, 200);

    const bad = await refused(t, gw, { include: ['ok', '[ab]*'], exclude: ['', ' x'] }, 400, 'invalid-selection');
    t.match(bad.body.detail, /^include\[1\] '\[ab\]\*' uses \[ \] \{ \} or \\/, 'every offending pattern is named');
    t.match(bad.body.detail, /exclude\[0\] '' is empty; exclude\[1\] ' x' begins or ends with white space$/);

    const tooMany = { include: Array.from({ length: 501 }, (_, i) => `p-${i}`) };
    const many = await refused(t, gw, tooMany, 400, 'invalid-selection');
    t.match(many.body, { detail: 'include has 501 patterns; at most 500 are allowed' });
    const long = await refused(t, gw, { exclude: ['x'.repeat(129)] }, 400, 'invalid-selection');
    t.match(long.body, { detail: /is longer than 128 characters/ });
    const negated = await refused(t, gw, { include: ['!legacy'] }, 400, 'invalid-selection');
    t.match(negated.body, { detail: /list the plugins to leave out under exclude/ });

    // decision 3: a body off the schema (wrong types, unknown fields) is the gateway's usual 422.
    for (const body of [{ include: 'code-*' }, { include: [1] }, { only: ['a'] }, { include: null }])
      await refused(t, gw, body, 422, 'invalid-request');

    const forbidden = await refused(t, gw, { include: ['a'] }, 403, 'forbidden', { user: 'alice' });
    t.match(forbidden.body, { detail: /admin/ });
    const unknownTarget = '/api/v1/marketplaces/nope/selection';
    await refused(t, gw, { include: ['a'] }, 404, 'marketplace-not-found', { target: unknownTarget });
    t.equal((await devSession(gw, 'alice').get('/api/v1/marketplaces/nope/selection')).status, 404);
    t.equal((await devSession(gw, 'alice').get('/api/v1/marketplaces/Bad%20Name/selection')).status, 404);

    t.match((await putRaw(gw, 'root', { include: ['kept-*'] })).body, { selection: { include: ['kept-*'] } });
    t.equal((await ledger(gw, 'marketplace-selection-set')).length, 1, 'only the one accepted selection is recorded');
  },
);

t.test('a removed marketplace has no selection to read or set', async (t) => {
  const gw = await startTestGateway(t, env);
  const root = devSession(gw, 'root');
  const upstream = await serveUpstream(t, marketplaceFiles('acme', ['alpha']));
  t.equal((await root.post('/api/v1/marketplaces', { name: 'acme', url: upstream.url })).status, 201);
  t.equal((await root.put(path, { include: ['a-*'] })).status, 200);
  t.equal((await root.delete('/api/v1/marketplaces/acme', { reason: 'retired' })).status, 200);
  t.equal((await root.get(path)).status, 404);
  t.equal((await root.put(path, { include: ['b-*'] })).status, 404);

  t.equal((await root.post('/api/v1/marketplaces', { name: 'acme', url: upstream.url })).status, 201);
  t.strictSame((await root.get(path)).body, { marketplace: 'acme', selection: null }, 'a new acme inherits nothing');
});
