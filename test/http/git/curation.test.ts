// Curation (docs/marketplaces.md, Selection): an admin chooses which plugins of an upstream marketplace the gateway
// serves (PUT /api/v1/marketplaces/{name}/selection with include/exclude name patterns, on the ledger);
// only selected plugins are resolved, vetted, composed and served; the snapshot says which were left out
// and why. Checked with the real git client and in the catalog.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { devSession } from '../../support/api.ts';
import { startTestGateway, type TestGateway } from '../../support/gateway.ts';
import { gitClient, marketplaceFiles, serveUpstream } from '../../support/upstream.ts';

const env = { GATEWAY_DEV_INSECURE_AUTH: 'true', GATEWAY_ROLES_ADMINS: 'root' };
const manifestPath = '.claude-plugin/marketplace.json';
type Manifest = { plugins: Array<{ name: string; source: unknown }> };

/** Four local plugins and two external ones: one served on loopback, one whose host answers nothing. */
async function wideMarketplace(t: Test) {
  const external = await serveUpstream(
    t,
    {
      '.claude-plugin/plugin.json': JSON.stringify({ name: 'ext-keep', version: '1.0.0' }),
      'skills/ext-skill/SKILL.md': '---\nname: ext-skill\ndescription: an external skill\n---\nDo the thing.\n',
    },
    'ext-keep',
  );
  const files = { ...marketplaceFiles('wide', ['alpha', 'beta', 'gamma', 'delta']) };
  const manifest = JSON.parse(files[manifestPath]!) as Manifest;
  manifest.plugins.push(
    { name: 'ext-keep', source: { source: 'url', url: external.url } },
    { name: 'ext-dead', source: { source: 'url', url: 'http://127.0.0.1:1/dead.git' } },
  );
  return serveUpstream(t, { ...files, [manifestPath]: JSON.stringify(manifest, null, 2) }, 'wide');
}

async function clonedManifest(t: Test, gw: TestGateway, token: string, repo: string) {
  const clone = await gitClient(t, token).clone(`${gw.url}/git/${repo}`);
  t.ok(clone.ok, clone.stderr);
  const manifest = JSON.parse(readFileSync(join(clone.dir, manifestPath), 'utf8')) as Manifest;
  return { dir: clone.dir, names: manifest.plugins.map((p) => p.name).sort() };
}

t.test('only selected plugins are resolved, vetted, composed and served', async (t) => {
  const gw = await startTestGateway(t, env);
  const api = devSession(gw, 'root');
  const upstream = await wideMarketplace(t);
  t.equal((await api.post('/api/v1/marketplaces', { name: 'wide', url: upstream.url })).status, 201);
  const selection = await api.put('/api/v1/marketplaces/wide/selection', {
    include: ['alpha', 'gamma', 'ext-*'],
    exclude: ['ext-dead'],
  });
  t.equal(selection.status, 200, selection.text);

  const snapshot = await api.post('/api/v1/marketplaces/wide/ingest');
  t.equal(snapshot.status, 201, snapshot.text);
  t.equal(snapshot.body.state, 'held');
  t.not(snapshot.body.sha, snapshot.body.upstreamSha, 'the selection is served from a composite');
  t.match(
    snapshot.body.leftOut,
    [
      { plugin: 'beta', reason: /not matched by include/ },
      { plugin: 'delta', reason: /not matched by include/ },
      { plugin: 'ext-dead', reason: /excluded by 'ext-dead'/ },
    ],
    '"the snapshot says which were left out and why"',
  );
  t.equal(snapshot.body.leftOut.length, 3);
  t.strictSame(snapshot.body.unresolved, [], 'a left-out external source is never fetched, so never unresolved');

  const report = await api.get(`/api/v1/snapshots/${snapshot.body.id}/vetting`);
  t.equal(report.body.outcome, 'CLEAR', report.text);
  const approved = await api.post(`/api/v1/snapshots/${snapshot.body.id}/approve`);
  t.equal(approved.status, 200, approved.text);

  const token = (await api.post('/api/v1/tokens', { name: 'reader' })).body.token as string;
  const served = await clonedManifest(t, gw, token, 'wide');
  t.strictSame(served.names, ['alpha', 'ext-keep', 'gamma'], 'the served marketplace.json lists the selection');
  t.ok(existsSync(join(served.dir, 'plugins/alpha/skills/alpha-skill/SKILL.md')), 'a selected plugin is served');
  t.ok(existsSync(join(served.dir, '.gateway-external/ext-keep/skills/ext-skill/SKILL.md')));
  t.notOk(existsSync(join(served.dir, 'plugins/beta')), 'a left-out plugin is not in the served tree');
  t.notOk(existsSync(join(served.dir, 'plugins/delta')));

  // The catalog is composed from the served tree, after the approval, without being asked.
  await gw.settled();
  const catalog = await clonedManifest(t, gw, token, 'catalog');
  t.strictSame(catalog.names, ['alpha', 'ext-keep', 'gamma'], 'the catalog follows the selection');
  t.notOk(existsSync(join(catalog.dir, 'plugins/wide/beta')));
});

t.test('a changed selection takes effect at the next ingest of the same upstream commit', async (t) => {
  const gw = await startTestGateway(t, env);
  const api = devSession(gw, 'root');
  const upstream = await serveUpstream(t, marketplaceFiles('narrow', ['one', 'two', 'three']), 'narrow');
  t.equal((await api.post('/api/v1/marketplaces', { name: 'narrow', url: upstream.url })).status, 201);

  const whole = await api.post('/api/v1/marketplaces/narrow/ingest');
  t.equal(whole.status, 201, whole.text);
  t.equal(whole.body.sha, whole.body.upstreamSha, 'without a selection the upstream commit is served as it is');
  t.strictSame(whole.body.leftOut, []);

  t.equal((await api.put('/api/v1/marketplaces/narrow/selection', { exclude: ['t*'] })).status, 200);
  const curated = await api.post('/api/v1/marketplaces/narrow/ingest');
  t.equal(curated.status, 201, curated.text);
  t.not(curated.body.id, whole.body.id, 'a new snapshot: the served tree differs');
  t.equal(curated.body.upstreamSha, whole.body.upstreamSha);
  t.strictSame(
    curated.body.leftOut.map((l: { plugin: string }) => l.plugin),
    ['two', 'three'],
  );
  const again = await api.post('/api/v1/marketplaces/narrow/ingest');
  t.equal(again.body.id, curated.body.id, 'the same selection of the same commit creates no second snapshot');
});
