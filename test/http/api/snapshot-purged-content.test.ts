import t from 'tap';
import type { Clock } from '../../../src/adapters/system/clock.ts';
import { sql } from '../../../src/adapters/postgres/pool.ts';
import { compactionPass } from '../../../src/application/retention/compaction.duty.ts';
import { softDeleteSnapshot } from '../../../src/application/snapshots/deletion.use-case.ts';
import { expectJson, expectProblem, session } from '../../support/assert.ts';
import { startTestGateway } from '../../support/gateway.ts';
import { gitIn, marketplaceFiles, serveUpstream } from '../../support/upstream.ts';

// The row of an administratively withdrawn snapshot is never permanently removed; only its content is
// reclaimed (docs/retention.md). The row stays readable; a read of the content it no longer has answers 409
// snapshot-purged (409 is the status of a request the resource's state refuses), never a 500.

const env = { GATEWAY_DEV_INSECURE_AUTH: 'true', GATEWAY_ROLES_ADMINS: 'root', GATEWAY_WEBHOOKS_ENABLED: 'false' };

const meta = () => ({
  principal: 'system',
  actorType: 'system' as const,
  at: new Date().toISOString(),
  correlationId: 'purged-content-test',
});

const clockAhead = (offsetMs: number): Clock => ({
  now: () => new Date(Date.now() + offsetMs),
  instant: () => new Date(Date.now() + offsetMs).toISOString(),
});

type Snapshot = { id: number; marketplaceId: number; sha: string; state: string; purgeAfter?: string };

t.test('a purged withdrawn row: its record reads answer, its content reads 409 snapshot-purged', async (t) => {
  const gw = await startTestGateway(t, env);
  const root = session(gw, 'root');
  const upstream = await serveUpstream(t, marketplaceFiles('relic', ['alpha']), 'relic');
  await expectJson(t, await root.post('/api/v1/marketplaces', { name: 'relic', url: upstream.url }), 201);
  const snap = await expectJson<Snapshot>(t, await root.post('/api/v1/marketplaces/relic/ingest'), 201);
  await expectJson(t, await root.post(`/api/v1/snapshots/${snap.id}/approve`), 200);
  await expectJson(t, await root.request('DELETE', '/api/v1/marketplaces/relic', { reason: 'retired' }), 200);
  const deleted = await softDeleteSnapshot(gw.deps, null, snap.id, 'superseded', meta());
  const due = Date.parse(deleted.purgeAfter!) - Date.now() + 1000;
  t.match(await compactionPass({ ...gw.deps, clock: clockAhead(due) }, meta()), { selected: 1, acted: 1 });
  await gw.settled();
  const repo = gw.core.gitStore.quarantinePath(snap.marketplaceId);
  await t.rejects(gitIn(repo, 'cat-file', '-e', snap.sha), 'git cat-file -e: the content is gone');

  t.ok(await gw.core.pool.exists(sql.unsafe`select 1 from snapshots where id = ${snap.id}`), 'the withdrawn row stays');
  const content = [
    'content',
    'content-diff',
    'capabilities',
    'diff',
    'files',
    'file?path=.claude-plugin/marketplace.json',
    'tree',
    'licenses',
    'name-collisions',
  ];
  for (const read of content) {
    const problem = await expectProblem(
      t,
      await root.get(`/api/v1/snapshots/${snap.id}/${read}`),
      409,
      'snapshot-purged',
      read,
    );
    t.match(problem.detail, new RegExp(`^snapshot ${snap.id} was purged at `), `${read}: the detail says why`);
  }
  for (const read of ['vetting', 'four-eyes', 'release-age', 'fetchers', 'provenance'])
    await expectJson(t, await root.get(`/api/v1/snapshots/${snap.id}/${read}`), 200, `${read}: a record read`);
  await expectProblem(
    t,
    await root.post(`/api/v1/snapshots/${snap.id}/vetting/rerun`),
    409,
    'snapshot-purged',
    'rerun',
  );
});
