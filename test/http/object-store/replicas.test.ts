import { join } from 'node:path';
import t from 'tap';
import { loadConfig } from '../../../src/adapters/config/load.ts';
import { git } from '../../../src/adapters/git/git-process.ts';
import { ObjectStoreReplication } from '../../../src/adapters/storage/object-store.ts';
import type { Manifest } from '../../../src/adapters/storage/repo-sync.ts';
import { devSession } from '../../support/api.ts';
import { eventually } from '../../support/assert.ts';
import { testDatabase } from '../../support/database.ts';
import { startOnConfig, type TestGateway } from '../../support/gateway.ts';
import { startS3, type TestS3 } from '../../support/s3.ts';
import { gitClient, marketplaceFiles, serveUpstream } from '../../support/upstream.ts';

const has = (repo: string, sha: string) =>
  git(['-C', repo, 'cat-file', '-e', `${sha}^{commit}`]).then(
    () => true,
    () => false,
  );

const manifestOf = async (s3: TestS3, key: string): Promise<Manifest | null> => {
  const bytes = await s3.client.get(`manifests/${key}.json`);
  return bytes === null ? null : (JSON.parse(bytes.toString('utf8')) as Manifest);
};

const replicationOf = (gw: TestGateway): ObjectStoreReplication => {
  const replication = gw.core.gitStore.replication;
  if (!(replication instanceof ObjectStoreReplication)) throw new Error('not on the object-store backend');
  return replication;
};

t.test('object-store backend: two replicas on one database and one bucket', async (t) => {
  const s3 = await startS3(t);
  const { url } = await testDatabase(t);
  const configOf = (dir: string) =>
    loadConfig({
      env: {
        GATEWAY_DATABASE_URL: url,
        GATEWAY_DATA_DIR: dir,
        PORT: '0',
        GATEWAY_LOG_LEVEL: 'silent',
        GATEWAY_DEV_INSECURE_AUTH: 'true',
        GATEWAY_ROLES_ADMINS: 'root',
        GATEWAY_STORAGE_OBJECT_STORE_POLL_INTERVAL: '1s',
        ...s3.env(join(dir, 'cache')),
      },
      cwd: process.cwd(),
    });
  const dirA = t.testdir({ a: {}, b: {} });
  const configA = await configOf(join(dirA, 'a'));
  const configB = await configOf(join(dirA, 'b'));
  t.equal(configA.storage.backend, 'object-store');
  t.equal(configA.storage.objectStore.cacheDir, join(dirA, 'a', 'cache'));

  const a = await startOnConfig(configA);
  t.teardown(() => a.close());
  const apiA = devSession(a, 'root');
  const upstream = await serveUpstream(t, marketplaceFiles('acme', ['alpha']));
  const registered = (await apiA.post('/api/v1/marketplaces', { name: 'acme', url: upstream.url })).body;
  const published = `published/${registered.id}`;
  const v1 = (await apiA.post('/api/v1/marketplaces/acme/ingest')).body;
  t.equal((await apiA.post(`/api/v1/snapshots/${v1.id}/approve`)).status, 200);
  const token = (await apiA.post('/api/v1/tokens', { name: 'clone' })).body.token as string;
  const client = gitClient(t, token);
  const mainOf = async (gw: TestGateway) => {
    const listed = await client.run(['ls-remote', `${gw.url}/git/acme`, 'refs/heads/main']);
    return listed.ok ? (listed.stdout.split('\t')[0] ?? '') : `failed: ${listed.stderr}`;
  };

  await t.test('the replica that published serves the approved commit, and the bucket holds it', async (t) => {
    const clone = await client.clone(`${a.url}/git/acme`);
    t.ok(clone.ok, clone.stderr);
    t.equal((await client.run(['rev-parse', 'HEAD'], clone.dir)).stdout, v1.sha);
    const manifest = await manifestOf(s3, published);
    t.match(manifest, { refs: { 'refs/heads/main': v1.sha, [`refs/snapshots/${v1.sha}`]: v1.sha } });
    for (const pack of manifest!.packs)
      t.not(await s3.client.get(`packs/${published}/${pack}.pack`), null, 'a manifest names no missing pack');
    t.ok(await manifestOf(s3, `quarantine/${registered.id}`), 'the quarantine is in the bucket too');
  });

  // Each replica serves from a local cache under cache-dir that it brings up to date
  const b = await startOnConfig(configB);
  let bOpen = true;
  t.teardown(() => (bOpen ? b.close() : undefined));
  const apiB = devSession(b, 'root');

  await t.test('a second replica with an empty cache serves the same commit', async (t) => {
    t.not(b.leadership.isLeader, true, 'the second replica is not the leader');
    const clone = await client.clone(`${b.url}/git/acme`);
    t.ok(clone.ok, clone.stderr);
    t.equal((await client.run(['rev-parse', 'HEAD'], clone.dir)).stdout, v1.sha);
    t.ok(await has(join(configB.storage.objectStore.cacheDir!, 'published', `${registered.id}.git`), v1.sha));
  });

  let v2sha = '';
  await t.test('an ingest and an approval through the replica that is not the leader reach both', async (t) => {
    await upstream.commit({ 'plugins/alpha/NOTES.md': 'second\n' });
    const v2 = (await apiB.post('/api/v1/marketplaces/acme/ingest')).body;
    v2sha = v2.sha;
    t.equal((await apiB.post(`/api/v1/snapshots/${v2.id}/approve`)).status, 200);
    // The leader (A) publishes from the quarantine B wrote to the bucket; B follows its notification.
    t.equal(await eventually(async () => (await mainOf(a)) === v2sha && v2sha, 15_000), v2sha);
    t.equal(await eventually(async () => (await mainOf(b)) === v2sha && v2sha, 15_000), v2sha);
    const clone = await client.clone(`${b.url}/git/acme`);
    t.equal((await client.run(['rev-parse', 'HEAD'], clone.dir)).stdout, v2sha);
  });

  await t.test('an interrupted download leaves the replica serving what it had', async (t) => {
    await b.close();
    bOpen = false;
    const before = (await manifestOf(s3, published))!;
    await upstream.commit({ 'plugins/alpha/NOTES.md': 'third\n' });
    const v3 = (await apiA.post('/api/v1/marketplaces/acme/ingest')).body;
    t.equal((await apiA.post(`/api/v1/snapshots/${v3.id}/approve`)).status, 200);
    t.equal(await eventually(async () => (await mainOf(a)) === v3.sha && v3.sha, 15_000), v3.sha);
    const after = (await manifestOf(s3, published))!;
    const added = after.packs.filter((pack) => !before.packs.includes(pack));
    t.ok(added.length > 0, 'the approval uploaded a pack');
    for (const pack of added) await s3.client.delete(`packs/${published}/${pack}.pack`);

    const again = await startOnConfig(configB);
    t.teardown(() => again.close());
    const record = replicationOf(again).pulls.get(published);
    t.ok(record && record.failed >= 1, `the pull failed: ${JSON.stringify(record)}`);
    t.equal(await mainOf(again), v2sha, 'still serving the commit it had downloaded');
    const repo = join(configB.storage.objectStore.cacheDir!, 'published', `${registered.id}.git`);
    t.notOk(await has(repo, v3.sha), 'the commit whose pack is missing is not there');
    t.notOk((await again.core.gitStore.refs(repo)).has(`refs/snapshots/${v3.sha}`), 'and no ref names it');

    await t.test('a revocation through one replica stops the other from serving', async (t) => {
      const apiAgain = devSession(again, 'root');
      const removed = await apiAgain.delete('/api/v1/marketplaces/acme', { reason: 'retired' });
      t.equal(removed.status, 200, JSON.stringify(removed.body));
      // Administrative withdrawal, including marketplace removal → revoked, refs removed
      await eventually(async () => !(await mainOf(a)).startsWith(v3.sha), 15_000);
      await eventually(async () => (await again.core.gitStore.refs(repo)).size === 0, 15_000);
      t.match(await mainOf(again), /^failed|^$/, 'the other replica serves nothing');
      t.notOk(await has(repo, v2sha), 'the withdrawn commit is pruned from its cache');
      t.strictSame((await manifestOf(s3, published))!.refs, {}, 'the bucket holds no ref of it');
    });
  });
});
