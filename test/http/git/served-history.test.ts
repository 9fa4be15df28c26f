// What a clone receives is what was vetted (decisions 333 and 334), with the real git client through the
// facade: a credential an upstream committed and then deleted, a plugin a selection excludes and a plugin
// withheld for an unreadable source, in both history modes. Object counts are printed as comments.
import { generateKeyPairSync } from 'node:crypto';
import t, { type Test } from 'tap';
import { devSession } from '../../support/api.ts';
import { startTestGateway, type TestGateway } from '../../support/gateway.ts';
import { gitClient, gitIn, marketplaceFiles, serveUpstream, type Upstream } from '../../support/upstream.ts';

type Mode = 'upstream' | 'vetted';
type Api = ReturnType<typeof devSession>;
const manifestPath = '.claude-plugin/marketplace.json';

const gateway = (t: Test, history: Mode) =>
  startTestGateway(t, {
    GATEWAY_DEV_INSECURE_AUTH: 'true',
    GATEWAY_ROLES_ADMINS: 'root',
    GATEWAY_FACADE_HISTORY: history,
  });

/** An AWS key pair and an RSA private key, as a careless commit leaves them (not real credentials). */
function leakedCredentials(): string {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 1024 });
  return (
    'AWS_ACCESS_KEY_ID=AKIAQ3EGRTL5XKJ7M2PZ\n' +
    'AWS_SECRET_ACCESS_KEY=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\n' +
    privateKey.export({ type: 'pkcs1', format: 'pem' }).toString()
  );
}

/** An upstream whose second commit added credentials and whose tip deleted them. */
async function deletedSecretUpstream(t: Test) {
  const upstream = await serveUpstream(t, marketplaceFiles('hist', ['h1']), 'hist');
  const leaked = await upstream.commit({ 'plugins/h1/creds.env': leakedCredentials() }, 'add deployment settings');
  const blob = await gitIn(upstream.bare, 'rev-parse', `${leaked}:plugins/h1/creds.env`);
  await upstream.commit({ 'plugins/h1/creds.env': null }, 'remove deployment settings');
  return { upstream, leaked, blob };
}

/** Every object of every ref of a clone, and whether git fsck finds it whole. */
async function cloneObjects(t: Test, gw: TestGateway, token: string, name: string) {
  const client = gitClient(t, token);
  const clone = await client.clone(`${gw.url}/git/${name}.git`);
  t.ok(clone.ok, `git clone ${name}: ${clone.stderr}`);
  const listing = await gitIn(clone.dir, 'rev-list', '--objects', '--all');
  const objects = new Set(listing.split('\n').map((line) => line.split(' ')[0]!));
  const fsck = await client.run(['fsck', '--full', '--strict'], clone.dir);
  t.ok(fsck.ok, `git fsck is clean in the clone of ${name}: ${fsck.stderr}`);
  return { dir: clone.dir, objects, client };
}

async function register(api: Api, name: string, upstream: Upstream) {
  const registered = await api.post('/api/v1/marketplaces', { name, url: upstream.url });
  if (registered.status !== 201) throw new Error(registered.text);
  const snapshot = await api.post(`/api/v1/marketplaces/${name}/ingest`);
  if (snapshot.status !== 201) throw new Error(snapshot.text);
  return snapshot.body as { id: number; sha: string; upstreamSha: string };
}

type Verdict = { connector: string; findings: Array<{ id: string; location: string; message: string }> };

t.test('history upstream: a credential deleted upstream blocks approval, named at its path and commit', async (t) => {
  const gw = await gateway(t, 'upstream');
  const api = devSession(gw, 'root');
  const { upstream, leaked, blob } = await deletedSecretUpstream(t);
  const snapshot = await register(api, 'hist', upstream);
  t.equal(snapshot.sha, snapshot.upstreamSha, 'the upstream commit is served as it is');

  const report = await api.get(`/api/v1/snapshots/${snapshot.id}/vetting`);
  t.equal(report.body.outcome, 'BLOCKED', report.text);
  const history = (report.body.run.verdicts as Verdict[]).find((v) => v.connector === 'history');
  t.ok(history, 'the run has a history verdict');
  t.match(
    history?.findings.map((f) => [f.id, f.location]),
    [
      ['secrets-aws', `plugins/h1/creds.env@${leaked}:2`],
      ['secrets-privatekey', `plugins/h1/creds.env@${leaked}:3`],
    ],
    'each credential at <path>@<commit>:<line>',
  );
  const refused = await api.post(`/api/v1/snapshots/${snapshot.id}/approve`);
  t.equal(refused.status, 409, 'approval is refused until the finding is dealt with');
  t.match(refused.body, { type: /\/problems\/vetting-blocked$/ });

  // An admin who overrides serves the history with it: the old blob reaches every clone.
  const override = await api.post(`/api/v1/snapshots/${snapshot.id}/approve?overrideReason=accepted%20risk`);
  t.equal(override.status, 200, override.text);
  const token = (await api.post('/api/v1/tokens', { name: 'reader' })).body.token as string;
  const clone = await cloneObjects(t, gw, token, 'hist');
  t.ok(clone.objects.has(blob), 'history mode upstream serves the deleted blob once approved');
  t.comment(`history upstream, deleted-secret upstream (override): ${clone.objects.size} objects in a clone`);

  // A later snapshot is vetted only on what it newly exposes: the served history is not reported again.
  const tip = await upstream.commit({ 'plugins/h1/README.md': 'Notes.\n' }, 'notes');
  const next = await api.post('/api/v1/marketplaces/hist/ingest');
  t.equal(next.body.sha, tip);
  const nextReport = await api.get(`/api/v1/snapshots/${next.body.id}/vetting`);
  t.equal(nextReport.body.outcome, 'CLEAR', nextReport.text);
});

t.test('history upstream: a credential in a commit message, and history beyond the bound, block', async (t) => {
  const gw = await startTestGateway(t, {
    GATEWAY_DEV_INSECURE_AUTH: 'true',
    GATEWAY_ROLES_ADMINS: 'root',
    GATEWAY_VETTING_HISTORY_MAX_BLOBS: '6',
  });
  const api = devSession(gw, 'root');
  // The benign twin first: ordinary history is read and passes.
  const benign = await serveUpstream(t, marketplaceFiles('plain', ['p1']), 'plain');
  await benign.commit({ 'plugins/p1/README.md': 'First notes.\n' }, 'docs: notes');
  await benign.commit({ 'plugins/p1/README.md': 'Better notes.\n' }, 'docs: fix a typo (token refresh explained)');
  const plain = await register(api, 'plain', benign);
  const plainReport = await api.get(`/api/v1/snapshots/${plain.id}/vetting`);
  t.equal(plainReport.body.outcome, 'CLEAR', plainReport.text);
  const read = (plainReport.body.run.verdicts as Array<Verdict & { state: string; detail: string }>).find(
    (v) => v.connector === 'history',
  );
  t.match(read, { state: 'PASS', detail: /scanned for secrets/ }, 'the history was read and passed');

  const leaky = await serveUpstream(t, marketplaceFiles('msg', ['m1']), 'msg');
  const token = `ghp_${'R8xk2LmQ9vT4wZ7yB3nD6fH1jK5pS0aC'}aB1c`;
  const pasted = await leaky.commit(
    { 'plugins/m1/README.md': 'Notes.\n' },
    `ci: use the deploy token\n\nGITHUB_TOKEN=${token}\n`,
  );
  await leaky.commit({ 'plugins/m1/README.md': 'Notes, again.\n' }, 'docs: notes');
  const snapshot = await register(api, 'msg', leaky);
  const report = await api.get(`/api/v1/snapshots/${snapshot.id}/vetting`);
  t.equal(report.body.outcome, 'BLOCKED', report.text);
  const history = (report.body.run.verdicts as Verdict[]).find((v) => v.connector === 'history');
  t.match(
    history?.findings.map((f) => f.location),
    [`commit-message@${pasted}:3`],
    'the token pasted into a commit message is found there',
  );

  // Ten new blobs and three commit messages, six read at most: the rest is said to be unread, and blocks.
  const big = await serveUpstream(t, marketplaceFiles('big', ['b1']), 'big');
  const files: Record<string, string> = {};
  for (let i = 0; i < 10; i++) files[`plugins/b1/notes/${i}.md`] = `note ${i}\n`;
  await big.commit(files, 'notes');
  await big.commit(Object.fromEntries(Object.keys(files).map((path) => [path, null])), 'drop notes');
  const bounded = await register(api, 'big', big);
  const boundReport = await api.get(`/api/v1/snapshots/${bounded.id}/vetting`);
  t.equal(boundReport.body.outcome, 'BLOCKED', boundReport.text);
  const notVetted = (boundReport.body.run.verdicts as Verdict[])
    .find((v) => v.connector === 'history')
    ?.findings.find((f) => f.id === 'history-not-vetted');
  t.match(notVetted, {
    location: `history@${bounded.sha}:1`,
    message: /13 blobs and commit messages.*oldest 7 were not scanned/,
  });
});

t.test('history vetted: the deleted credential is in no object a client receives', async (t) => {
  const gw = await gateway(t, 'vetted');
  const api = devSession(gw, 'root');
  const { upstream, blob } = await deletedSecretUpstream(t);
  const first = await register(api, 'hist', upstream);
  t.not(first.sha, first.upstreamSha, 'a commit of the gateway is served');
  const report = await api.get(`/api/v1/snapshots/${first.id}/vetting`);
  t.equal(report.body.outcome, 'CLEAR', report.text);
  t.equal((await api.post(`/api/v1/snapshots/${first.id}/approve`)).status, 200);

  const token = (await api.post('/api/v1/tokens', { name: 'reader' })).body.token as string;
  const clone = await cloneObjects(t, gw, token, 'hist');
  t.notOk(clone.objects.has(blob), 'the deleted blob is not in the clone');
  t.notOk((await clone.client.run(['cat-file', '-e', blob], clone.dir)).ok, 'git cat-file cannot find it');
  t.equal(await gitIn(clone.dir, 'rev-list', '--count', 'HEAD'), '1', 'the first served commit has no parent');
  t.equal(
    await gitIn(clone.dir, 'log', '-1', '--format=%(trailers:key=Upstream-Commit,valueonly)'),
    first.upstreamSha,
    'the served commit names its upstream commit',
  );
  t.comment(`history vetted, deleted-secret upstream: ${clone.objects.size} objects in a clone`);

  // The next approval descends from the served commit: clients fast-forward, still without the old blob.
  await upstream.commit({ 'plugins/h1/README.md': 'Notes.\n' }, 'notes');
  const second = await api.post('/api/v1/marketplaces/hist/ingest');
  t.equal(second.status, 201, second.text);
  t.not(second.body.id, first.id);
  t.equal((await api.post(`/api/v1/snapshots/${second.body.id}/approve`)).status, 200);
  const pulled = await clone.client.run(['pull', '--ff-only', '--quiet'], clone.dir);
  t.ok(pulled.ok, `git pull --ff-only: ${pulled.stderr}`);
  t.equal(await gitIn(clone.dir, 'rev-parse', 'HEAD'), second.body.sha);
  t.equal(await gitIn(clone.dir, 'rev-parse', 'HEAD~1'), first.sha, 'its parent is the previously served commit');
  const again = await gitIn(clone.dir, 'rev-list', '--objects', '--all');
  t.notOk(again.includes(blob), 'still not after the fetch');

  // Ingesting the unchanged upstream again is the served snapshot, not a new one.
  const unchanged = await api.post('/api/v1/marketplaces/hist/ingest');
  t.equal(unchanged.body.id, second.body.id, 'an unchanged upstream creates no second snapshot');
});

/** An upstream with two local plugins and one external plugin whose host answers nothing. */
async function curatedUpstream(t: Test) {
  const files = marketplaceFiles('beta', ['beta-one', 'beta-two']);
  const manifest = JSON.parse(files[manifestPath]!) as { plugins: unknown[] };
  manifest.plugins.push({ name: 'gone', source: { source: 'url', url: 'http://127.0.0.1:1/gone.git' } });
  const upstream = await serveUpstream(t, { ...files, [manifestPath]: JSON.stringify(manifest, null, 2) }, 'beta');
  const tip = await gitIn(upstream.bare, 'rev-parse', 'main');
  const excluded = await gitIn(upstream.bare, 'rev-parse', `${tip}:plugins/beta-two/skills/beta-two-skill/SKILL.md`);
  const upstreamManifest = await gitIn(upstream.bare, 'rev-parse', `${tip}:${manifestPath}`);
  return { upstream, excluded, upstreamManifest };
}

for (const history of ['upstream', 'vetted'] as const)
  t.test(`history ${history}: an excluded or withheld plugin is in no object of a clone`, async (t) => {
    const gw = await gateway(t, history);
    const api = devSession(gw, 'root');
    const { upstream, excluded, upstreamManifest } = await curatedUpstream(t);
    t.equal((await api.post('/api/v1/marketplaces', { name: 'beta', url: upstream.url })).status, 201);
    t.equal((await api.put('/api/v1/marketplaces/beta/selection', { exclude: ['beta-two'] })).status, 200);
    const snapshot = await api.post('/api/v1/marketplaces/beta/ingest');
    t.equal(snapshot.status, 201, snapshot.text);
    t.match(snapshot.body.unresolved, [{ plugin: 'gone' }], 'the unreadable source withholds its plugin');
    t.match(snapshot.body.leftOut, [{ plugin: 'beta-two' }]);
    const waived = await api.post(`/api/v1/snapshots/${snapshot.body.id}/waivers`, {
      ruleId: 'source-unresolved',
      scope: 'SNAPSHOT',
      justification: 'served without the unreadable plugin',
      expiresAt: new Date(Date.now() + 86_400_000).toISOString(),
    });
    t.equal(waived.status, 201, waived.text);
    const approved = await api.post(`/api/v1/snapshots/${snapshot.body.id}/approve`);
    t.equal(approved.status, 200, approved.text);

    const token = (await api.post('/api/v1/tokens', { name: 'reader' })).body.token as string;
    const clone = await cloneObjects(t, gw, token, 'beta');
    t.notOk(clone.objects.has(snapshot.body.upstreamSha), 'the upstream commit is not in the clone');
    t.notOk(clone.objects.has(excluded), "the excluded plugin's blobs are not in the clone");
    t.notOk(clone.objects.has(upstreamManifest), 'nor the upstream manifest naming the withheld plugin');
    t.equal(await gitIn(clone.dir, 'rev-list', '--count', 'HEAD'), '1', 'the first served commit has no parent');
    t.comment(`history ${history}, curated marketplace: ${clone.objects.size} objects in a clone`);

    // The next snapshot descends from the served commit, in both modes.
    await upstream.commit({ 'plugins/beta-one/README.md': 'One.\n' }, 'readme');
    const next = await api.post('/api/v1/marketplaces/beta/ingest');
    t.equal(next.status, 201, next.text);
    t.equal(
      await gitIn(gw.core.gitStore.quarantinePath(next.body.marketplaceId), 'rev-parse', `${next.body.sha}^`),
      snapshot.body.sha,
      'its parent is the served commit, not the upstream commit',
    );
  });
