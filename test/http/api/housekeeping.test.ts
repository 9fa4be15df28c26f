import t, { type Test } from 'tap';
import { eventually, expectJson, ledger, session, type Client } from '../../support/assert.ts';
import { startTestGateway } from '../../support/gateway.ts';
import { marketplaceFiles, serveUpstream } from '../../support/upstream.ts';

// Housekeeping (gateway.housekeeping.enabled, on by default) schedules the compaction pass whatever
// gateway.retention.enabled says: the deletion criteria stay off by default, the purge of what is past its
// restore window does not. Short windows: restored for 1 s, a pass every second.

type Snapshot = { id: number; sha: string; purgeAfter?: string };

const env = {
  GATEWAY_DEV_INSECURE_AUTH: 'true',
  GATEWAY_ROLES_ADMINS: 'root',
  GATEWAY_RETENTION_RESTORE_WINDOW: '1s',
  GATEWAY_RETENTION_COMPACTION_INTERVAL: '1s',
};

/** A registered marketplace's first snapshot, held, then soft-deleted by hand. */
async function softDeleted(t: Test, root: Client): Promise<Snapshot> {
  const upstream = await serveUpstream(t, marketplaceFiles('acme', ['alpha']), 'acme');
  await expectJson(t, await root.post('/api/v1/marketplaces', { name: 'acme', url: upstream.url }), 201);
  const held = await expectJson<Snapshot>(t, await root.post('/api/v1/marketplaces/acme/ingest'), 201);
  const deleted = await expectJson<Snapshot>(t, await root.delete(`/api/v1/snapshots/${held.id}`), 200);
  t.ok(deleted.purgeAfter, 'soft-deleted, with a purgeAfter');
  return deleted;
}

t.test('on a default configuration a soft-deleted snapshot is purged once its restore window has passed', async (t) => {
  const gw = await startTestGateway(t, env);
  const root = session(gw, 'root');
  const deleted = await softDeleted(t, root);
  await eventually(
    async () => (await root.get(`/api/v1/snapshots/${deleted.id}/release-age`)).status === 404,
    20_000,
    200,
  );
  const purged = await ledger(gw, 'snapshot-purged');
  t.equal(purged.length, 1, 'one snapshot-purged on the ledger');
  t.equal(purged[0]?.principal, 'system', 'by the scheduled pass');
  t.equal((await root.get(`/api/v1/snapshots/${deleted.id}/release-age`)).status, 404, 'its row is gone');
  t.equal((await ledger(gw, 'retention-evaluated')).length, 0, 'the deletion criteria did not run (retention is off)');
  const metrics = await (await root.get('/actuator/prometheus')).text();
  t.match(
    metrics,
    /gateway_retention_passes_total\{kind="compaction",trigger="scheduled"\} [1-9]/,
    'the pass is counted',
  );
});

t.test('with gateway.housekeeping.enabled false nothing purges on its own; a pass on demand still does', async (t) => {
  const gw = await startTestGateway(t, { ...env, GATEWAY_HOUSEKEEPING_ENABLED: 'false' });
  const root = session(gw, 'root');
  const deleted = await softDeleted(t, root);
  await new Promise((resolve) => setTimeout(resolve, 4_000)); // the window and several intervals
  await expectJson(
    t,
    await root.get(`/api/v1/snapshots/${deleted.id}/release-age`),
    200,
    'its row stays, past its window',
  );
  t.equal((await ledger(gw, 'snapshot-purged')).length, 0, 'no purge recorded');
  const pass = await expectJson<{ acted: number }>(t, await root.post('/api/v1/retention/compact'), 200);
  t.equal(pass.acted, 1, 'the on-demand pass purges it');
  t.equal((await root.get(`/api/v1/snapshots/${deleted.id}/release-age`)).status, 404, 'and its row is gone');
});
