import t from 'tap';
import { git } from '../../../src/adapters/git/git-process.ts';
import { devSession } from '../../support/api.ts';
import { startOnConfig, testConfig } from '../../support/gateway.ts';
import { marketplaceFiles, serveUpstream } from '../../support/upstream.ts';

t.test('startup reconciliation repairs a published repository and records what it found (DESIGN.md 6)', async (t) => {
  const config = await testConfig(t, { GATEWAY_DEV_INSECURE_AUTH: 'true', GATEWAY_ROLES_ADMINS: 'root' });
  const upstream = await serveUpstream(t, marketplaceFiles('acme', ['alpha']));
  const first = await startOnConfig(config);
  const api = devSession(first, 'root');
  const registered = (await api.post('/api/v1/marketplaces', { name: 'acme', url: upstream.url })).body;
  const approved = (await api.post('/api/v1/marketplaces/acme/ingest')).body;
  await api.post(`/api/v1/snapshots/${approved.id}/approve`);
  await upstream.commit({ 'x.md': 'held only\n' });
  const held = (await api.post('/api/v1/marketplaces/acme/ingest')).body;
  await first.close();

  // Someone edits the published repository behind the gateway's back: main is gone, and a commit that
  // was never approved appears under another ref.
  const published = first.core.gitStore.publishedPath(registered.id);
  const quarantine = first.core.gitStore.quarantinePath(registered.id);
  await git(['-C', published, 'update-ref', '-d', 'refs/heads/main']);
  await git(['-C', quarantine, 'push', '--quiet', published, `${held.sha}:refs/heads/evil`]);

  const second = await startOnConfig(config);
  t.teardown(() => second.close());
  const refs = await second.core.gitStore.refs(published);
  t.strictSame(
    Object.fromEntries(refs),
    { 'refs/heads/main': approved.sha, [`refs/snapshots/${approved.sha}`]: approved.sha },
    'converged to the events',
  );
  t.notOk(
    await git(['-C', published, 'cat-file', '-e', `${held.sha}^{commit}`]).then(
      () => true,
      () => false,
    ),
    'the unapproved commit is pruned',
  );
  await second.settled();
  const entries = (await devSession(second, 'root').get('/api/v1/audit?marketplace=acme&limit=50')).body
    .entries as Array<Record<string, unknown>>;
  t.match(
    entries.find((e) => e.event === 'publication-served-not-approved'),
    {
      principal: 'publication-reconciler',
      actorType: 'system',
      ref: 'refs/heads/evil',
      sha: held.sha,
    },
  );
  t.match(
    entries.find((e) => e.event === 'publication-repaired'),
    {
      principal: 'publication-reconciler',
      actorType: 'system',
      detail: 'restored refs/heads/main; removed refs/heads/evil',
    },
  );

  await second.close();
  const third = await startOnConfig(config);
  t.teardown(() => third.close());
  await third.settled();
  const after = (await devSession(third, 'root').get('/api/v1/audit?marketplace=acme&limit=50')).body.entries as Array<
    Record<string, unknown>
  >;
  t.equal(after.filter((e) => e.event === 'publication-repaired').length, 1, 'a repository in step records nothing');
});
