import { join } from 'node:path';
import t from 'tap';
import { loadConfig } from '../../../src/adapters/config/load.ts';
import { git } from '../../../src/adapters/git/git-process.ts';
import { compactionPass } from '../../../src/application/retention/compaction.duty.ts';
import { devSession } from '../../support/api.ts';
import { eventually } from '../../support/assert.ts';
import { testDatabase } from '../../support/database.ts';
import { startOnConfig } from '../../support/gateway.ts';
import { startS3 } from '../../support/s3.ts';
import { marketplaceFiles, serveUpstream } from '../../support/upstream.ts';

// On the object-store backend each replica keeps its own copy of every quarantine. A compaction on one
// replica purges there and rewrites the bucket's packs; every other replica, once it has taken the new
// manifest, prunes its copy under the quarantine's exclusive lock, so purged content leaves every disk. A
// quarantine an ingest holds (shared) is pruned at the first poll after it lets go.

const has = (repo: string, sha: string) =>
  git(['-C', repo, 'cat-file', '-e', `${sha}^{commit}`]).then(
    () => true,
    () => false,
  );
const refsOf = async (repo: string) =>
  (await git(['-C', repo, 'for-each-ref', '--format=%(refname)'])).toString('utf8').split('\n').filter(Boolean);

t.test("a compaction elsewhere is pruned from a replica's quarantine cache, after any ingest holding it", async (t) => {
  const s3 = await startS3(t);
  const { url } = await testDatabase(t);
  const dir = t.testdir({ a: {}, b: {} });
  const configOf = (name: string) =>
    loadConfig({
      env: {
        GATEWAY_DATABASE_URL: url,
        GATEWAY_DATA_DIR: join(dir, name),
        PORT: '0',
        GATEWAY_LOG_LEVEL: 'silent',
        GATEWAY_DEV_INSECURE_AUTH: 'true',
        GATEWAY_ROLES_ADMINS: 'root',
        GATEWAY_STORAGE_OBJECT_STORE_POLL_INTERVAL: '1s',
        ...s3.env(join(dir, name, 'cache')),
      },
      cwd: process.cwd(),
    });
  const [configA, configB] = [await configOf('a'), await configOf('b')];
  const a = await startOnConfig(configA);
  t.teardown(() => a.close());
  const api = devSession(a, 'root');
  const upstream = await serveUpstream(t, marketplaceFiles('acme', ['alpha']));
  const registered = (await api.post('/api/v1/marketplaces', { name: 'acme', url: upstream.url })).body;
  const v1 = (await api.post('/api/v1/marketplaces/acme/ingest')).body;
  await upstream.commit({ 'plugins/alpha/NOTES.md': 'only the second commit has this\n' });
  const v2 = (await api.post('/api/v1/marketplaces/acme/ingest')).body;
  const quarantineOfB = join(configB.storage.objectStore.cacheDir!, 'quarantine', `${registered.id}.git`);

  let b = await startOnConfig(configB);
  t.ok(await has(quarantineOfB, v2.sha), "the second replica's cache holds the commit about to be purged");
  await b.close();

  const deleted = await api.delete(`/api/v1/snapshots/${v2.id}`);
  t.equal(deleted.status, 200, JSON.stringify(deleted.body));
  const ahead = Date.parse(deleted.body.purgeAfter) - Date.now() + 3_600_000;
  const clock = { now: () => new Date(Date.now() + ahead), instant: () => new Date(Date.now() + ahead).toISOString() };
  const meta = { principal: 'system', actorType: 'system' as const, at: clock.instant(), correlationId: 'prune-test' };
  t.match(await compactionPass({ ...a.deps, clock }, meta), { acted: 1 }, 'purged on the first replica');

  // An ingest on any replica holds the quarantine shared: the second replica takes the manifest but must not prune.
  let release = () => {};
  const held = new Promise<void>((resolve) => (release = resolve));
  let holding = () => {};
  const holds = new Promise<void>((resolve) => (holding = resolve));
  const ingestLike = a.deps.quarantineLocks.shared(registered.id, async () => {
    holding();
    await held;
  });
  await holds;
  b = await startOnConfig(configB);
  t.teardown(() => b.close());
  t.notOk(
    (await refsOf(quarantineOfB)).includes(`refs/quarantine/${v2.sha}`),
    "the purged commit's ref is gone from its copy",
  );
  await new Promise((resolve) => setTimeout(resolve, 2_500)); // two polls
  t.ok(await has(quarantineOfB, v2.sha), 'not pruned while an ingest holds the quarantine');

  release();
  await ingestLike;
  await eventually(async () => !(await has(quarantineOfB, v2.sha)), 15_000, 200);
  t.notOk(await has(quarantineOfB, v2.sha), 'pruned once the ingest let go: the purged commit left this disk too');
  t.ok(await has(quarantineOfB, v1.sha), 'the held snapshot stays');
});
