import t, { type Test } from 'tap';
import { revetSweep } from '../../../src/application/vetting/sweeps.duty.ts';
import { devSession } from '../../support/api.ts';
import { assertNothingChanged, inMs, ledger } from '../../support/assert.ts';
import { startTestGateway } from '../../support/gateway.ts';
import { cleanMarketplace, plantedToken } from '../../support/planted.ts';
import { gitClient, serveUpstream } from '../../support/upstream.ts';

const env = { GATEWAY_DEV_INSECURE_AUTH: 'true', GATEWAY_ROLES_ADMINS: 'root' };
// Clean but for one credential: approvable only under a waiver.
const withSecret = () => cleanMarketplace({ 'plugins/tidy/notes.txt': `token for the demo:\n${plantedToken}\n` });

async function approvedUnderWaiver(t: Test, mode: 'WARN' | 'ENFORCE') {
  const gw = await startTestGateway(t, { ...env, GATEWAY_VETTING_REVET_MODE: mode });
  const root = devSession(gw, 'root');
  const upstream = await serveUpstream(t, withSecret());
  await root.post('/api/v1/marketplaces', { name: 'tidy', url: upstream.url });
  const snapshot = (await root.post('/api/v1/marketplaces/tidy/ingest')).body;
  const finding = (await root.get(`/api/v1/snapshots/${snapshot.id}/vetting`)).body.uncovered[0];
  const waiver = (
    await root.post(`/api/v1/snapshots/${snapshot.id}/waivers`, {
      ruleId: finding.ruleId,
      scope: 'SNAPSHOT',
      justification: 'demo token',
      expiresAt: inMs(3_600_000),
    })
  ).body;
  t.equal((await root.post(`/api/v1/snapshots/${snapshot.id}/approve`)).status, 200, 'approved while the waiver holds');
  const token = (await root.post('/api/v1/tokens', { name: 'clone' })).body.token;
  const client = gitClient(t, token);
  t.ok((await client.clone(`${gw.url}/git/tidy`)).ok, 'served');
  return { gw, root, snapshot, waiver, finding, client };
}

t.test(
  're-vet: CLEAR while the waiver holds; VIOLATION in ENFORCE revokes and the real client can no longer fetch the sha',
  async (t) => {
    const { gw, root, snapshot, waiver, finding, client } = await approvedUnderWaiver(t, 'ENFORCE');
    const clear = await root.post(`/api/v1/snapshots/${snapshot.id}/revet`);
    t.equal(clear.status, 200);
    t.match(clear.body, {
      snapshotId: snapshot.id,
      marketplace: 'tidy',
      sha: snapshot.sha,
      runId: Number,
      classification: 'CLEAR',
      outcome: 'CLEAR_WITH_WAIVERS',
      revoked: false,
      mode: 'ENFORCE',
      uncovered: [],
    });
    t.match(await ledger(gw, 'revet-clear'), [{ principal: 'root', detail: /trigger=revet-manual/ }]);
    t.equal(
      (await ledger(gw, 'vetting-verdict')).length,
      6,
      'on re-vet, vetting-verdict only where a verdict changed (none did)',
    );
    t.equal((await ledger(gw, 'vetting-completed')).length, 2, 'vetting-completed once per run');

    await root.delete(`/api/v1/waivers/${waiver.id}`);
    const violation = await root.post(`/api/v1/snapshots/${snapshot.id}/revet`);
    t.match(violation.body, {
      classification: 'VIOLATION',
      outcome: 'BLOCKED',
      revoked: true,
      mode: 'ENFORCE',
      uncovered: [
        {
          connector: 'secrets',
          ruleId: finding.ruleId,
          location: 'plugins/tidy/notes.txt:2',
          severity: /HIGH|CRITICAL/,
          message: String,
        },
      ],
      affected: [{ principal: 'root', fetches: Number, lastFetch: /^\d{4}-/ }],
    });
    t.ok(violation.body.affected[0].fetches >= 1, 'the clone above is counted');
    t.match(await ledger(gw, 'revet-violation'), [{ detail: /revoked=true/ }]);
    t.match(await ledger(gw, 'revet-violation-affected'), [{ detail: /received by root/ }]);
    t.match(await ledger(gw, 'snapshot-revoked'), [{ principal: 'root', detail: /re-vet violation/ }]);
    t.match(await ledger(gw, 'snapshot-unpublished'), [
      { marketplace: 'tidy', detail: `snapshot ${snapshot.id}: refs removed from publication` },
    ]);
    const listed = (await root.get('/api/v1/marketplaces')).body[0];
    t.equal(listed.snapshots[0].state, 'revoked');
    t.equal(listed.servedSha, null);

    t.notOk((await client.clone(`${gw.url}/git/tidy`)).ok, 'nothing is served any more');
    const dir = `${client.home}/fresh`;
    await client.run(['init', '--quiet', dir]);
    const fetched = await client.run(['-c', 'protocol.version=2', 'fetch', `${gw.url}/git/tidy`, snapshot.sha], dir);
    t.notOk(fetched.ok, 'the real client asking for the revoked sha is refused');

    const again = await assertNothingChanged(
      t,
      gw,
      () => root.post(`/api/v1/snapshots/${snapshot.id}/revet`),
      're-vet of a revoked snapshot',
    );
    t.equal(again.status, 409);
    t.match(again.body, { type: /\/problems\/snapshot-not-approved$/, detail: /is revoked.*\/vetting\/rerun/ });
  },
);

t.test('spec: a re-vet of a snapshot that is not approved answers 409 and records nothing', async (t) => {
  const gw = await startTestGateway(t, env);
  const root = devSession(gw, 'root');
  const upstream = await serveUpstream(t, withSecret());
  await root.post('/api/v1/marketplaces', { name: 'tidy', url: upstream.url });
  const held = (await root.post('/api/v1/marketplaces/tidy/ingest')).body;
  const runs = async () => (await ledger(gw, 'vetting-completed')).length;
  t.equal(await runs(), 1, 'vetted once, at ingestion');

  const revetHeld = () => root.post(`/api/v1/snapshots/${held.id}/revet`);
  const onHeld = await assertNothingChanged(t, gw, revetHeld, 're-vet of a held snapshot');
  t.equal(onHeld.status, 409);
  t.match(onHeld.body, { type: /\/problems\/snapshot-not-approved$/, detail: /is held/ });
  const report = (await root.get(`/api/v1/snapshots/${held.id}/vetting`)).body;
  t.match(report.run, { trigger: 'ingestion' }, 'the latest run is still the ingestion');
  const none = await assertNothingChanged(
    t,
    gw,
    () => root.post('/api/v1/marketplaces/tidy/revet'),
    'marketplace re-vet with nothing approved',
  );
  t.strictSame(none.body, { marketplace: 'tidy', results: [] }, 'the marketplace re-vet takes approved snapshots only');

  t.equal((await root.post(`/api/v1/snapshots/${held.id}/reject`)).status, 200);
  const onRejected = await assertNothingChanged(t, gw, revetHeld, 're-vet of a rejected snapshot');
  t.equal(onRejected.status, 409);
  t.match(onRejected.body, { type: /\/problems\/snapshot-not-approved$/, detail: /is rejected/ });
  t.equal(await runs(), 1, 'no run was made');

  const nobody = devSession(gw, 'nobody');
  const outsider = await assertNothingChanged(
    t,
    gw,
    () => nobody.post(`/api/v1/snapshots/${held.id}/revet`),
    'outsider',
  );
  t.equal(outsider.status, 403, 'standing is checked before the state');
});

t.test(
  're-vet in WARN mode records the violation and revokes nothing; the scheduled sweep runs as revet-policy',
  async (t) => {
    const { gw, root, snapshot, waiver } = await approvedUnderWaiver(t, 'WARN');
    await root.delete(`/api/v1/waivers/${waiver.id}`);
    const warned = (await root.post('/api/v1/marketplaces/tidy/revet')).body;
    t.match(warned, {
      marketplace: 'tidy',
      results: [{ snapshotId: snapshot.id, classification: 'VIOLATION', revoked: false, mode: 'WARN' }],
    });
    t.equal((await root.get('/api/v1/marketplaces')).body[0].snapshots[0].state, 'approved', 'WARN never revokes');
    t.match(await ledger(gw, 'revet-violation'), [{ detail: /mode=WARN .*revoked=false/ }]);

    const summary = await revetSweep(gw.deps);
    t.match(summary, { snapshots: 1, violations: 1, revoked: 0, failed: 0 });
    const scheduled = (await ledger(gw, 'revet-violation')).at(-1)!;
    t.match(scheduled, { principal: 'revet-policy', actor_type: 'system', detail: /trigger=revet-scheduled/ });
    t.match((await root.get(`/api/v1/snapshots/${snapshot.id}/vetting`)).body.run, { trigger: 'revet-scheduled' });
    t.equal((await root.post('/api/v1/marketplaces/nope/revet')).status, 404);
    t.equal((await root.post('/api/v1/snapshots/424242/revet')).status, 404);
    t.equal((await devSession(gw, 'nobody').post(`/api/v1/snapshots/${snapshot.id}/revet`)).status, 403);
  },
);
