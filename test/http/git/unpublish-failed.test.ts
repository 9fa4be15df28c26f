import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { git } from '../../../src/adapters/git/git-process.ts';
import { devSession } from '../../support/api.ts';
import { eventually } from '../../support/assert.ts';
import { startTestGateway } from '../../support/gateway.ts';
import { marketplaceFiles, serveUpstream } from '../../support/upstream.ts';

// snapshot-revoked, snapshot-unpublished, snapshot-unpublish-failed | revocation and
// removal of refs; the last needs a person. Here git cannot take its ref locks in the published
// repository (a stale lock file left by a crashed process), so removing the refs fails.
t.test(
  'refs that cannot be removed give one snapshot-unpublish-failed entry, and publication retries until they go',
  async (t) => {
    const gw = await startTestGateway(t, { GATEWAY_DEV_INSECURE_AUTH: 'true', GATEWAY_ROLES_ADMINS: 'root' });
    const api = devSession(gw, 'root');
    const upstream = await serveUpstream(t, marketplaceFiles('acme', ['alpha']));
    const registered = (await api.post('/api/v1/marketplaces', { name: 'acme', url: upstream.url })).body;
    const snapshot = (await api.post('/api/v1/marketplaces/acme/ingest')).body;
    t.equal((await api.post(`/api/v1/snapshots/${snapshot.id}/approve`)).status, 200);
    await gw.settled();

    const published = gw.core.gitStore.publishedPath(registered.id);
    const locks = [join(published, 'packed-refs.lock'), join(published, 'refs', 'heads', 'main.lock')];
    for (const lock of locks) writeFileSync(lock, '');
    const removed = await api.delete('/api/v1/marketplaces/acme', { reason: 'retired' });
    // Read-your-writes waits for publication too, which cannot catch up: the documented 503.
    t.match(
      removed,
      { status: 503, body: { detail: /the change was recorded/ } },
      'the removal is recorded whatever git does',
    );
    t.equal((await api.get('/api/v1/marketplaces')).body.length, 0, 'and the marketplace is gone');

    const failed = await eventually(async () => {
      const entries = (await api.get(`/api/v1/audit?limit=50`)).body.entries as Array<Record<string, unknown>>;
      return entries.find((e) => e.event === 'snapshot-unpublish-failed');
    }, 10_000);
    t.match(failed, {
      principal: 'publication',
      actorType: 'system',
      sha: snapshot.sha,
      ref: `refs/snapshots/${snapshot.sha}`,
      detail: new RegExp(
        `^snapshot ${snapshot.id}: refs could not be removed from publication \\(.*lock.*\\); .*a person must`,
      ),
    });
    const refs = await gw.core.gitStore.refs(published);
    t.equal(refs.get('refs/heads/main'), snapshot.sha, 'the refs are still there while the lock stands');

    for (const lock of locks) rmSync(lock);
    await eventually(async () => (await gw.core.gitStore.refs(published)).size === 0, 15_000, 200);
    // Publication removes the refs, then prunes: the commit goes a moment after the refs.
    const present = () =>
      git(['-C', published, 'cat-file', '-e', `${snapshot.sha}^{commit}`]).then(
        () => true,
        () => false,
      );
    t.ok(await eventually(async () => !(await present()), 15_000, 200).catch(() => false), 'then the commit is pruned');
    await gw.settled();
    const entries = (await api.get(`/api/v1/audit?limit=50`)).body.entries as Array<Record<string, unknown>>;
    t.equal(
      entries.filter((e) => e.event === 'snapshot-unpublish-failed').length,
      1,
      'recorded once, not once per retry',
    );
  },
);
