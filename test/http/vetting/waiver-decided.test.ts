// A waiver is refused (409) on a snapshot no decision can follow: one rejected at ingest (its manifest is
// not valid JSON) and one a reviewer rejected. A held snapshot still takes one. Nothing is recorded for a
// refused waiver.
import t from 'tap';
import { devSession } from '../../support/api.ts';
import { inMs, day } from '../../support/assert.ts';
import { startTestGateway } from '../../support/gateway.ts';
import { cleanMarketplace, plantedMarketplace } from '../../support/planted.ts';
import { serveUpstream } from '../../support/upstream.ts';

const env = { GATEWAY_DEV_INSECURE_AUTH: 'true', GATEWAY_ROLES_ADMINS: 'root' };

t.test('POST waivers answers 409 snapshot-already-decided on a rejected snapshot; a held one takes it', async (t) => {
  const gw = await startTestGateway(t, env);
  const root = devSession(gw, 'root');
  const waiver = (ruleId: string) => ({
    ruleId,
    scope: 'SNAPSHOT',
    justification: 'reviewed: a test fixture',
    expiresAt: inMs(30 * day),
  });

  // Rejected at ingest: the manifest is not valid JSON.
  const broken = await serveUpstream(t, cleanMarketplace({ '.claude-plugin/marketplace.json': '{"name": "acme",' }));
  t.equal((await root.post('/api/v1/marketplaces', { name: 'broken', url: broken.url })).status, 201);
  const rejected = (await root.post('/api/v1/marketplaces/broken/ingest')).body;
  t.match(rejected, { state: 'rejected', violation: /is not valid JSON/, decidedBy: null }, 'captured as rejected');
  const refused = await root.post(`/api/v1/snapshots/${rejected.id}/waivers`, waiver('manifest-invalid'));
  t.equal(refused.status, 409, refused.text);
  t.match(refused.headers.get('content-type'), /^application\/problem\+json/);
  t.match(refused.body, {
    type: /\/problems\/snapshot-already-decided$/,
    status: 409,
    detail: /is rejected: no waiver can change that decision.*ingest again/,
  });
  t.same((await root.get('/api/v1/marketplaces/broken/waivers')).body, [], 'nothing recorded');

  // Rejected by a reviewer after vetting blocked it; before the decision a waiver is taken.
  const planted = await serveUpstream(t, plantedMarketplace());
  t.equal((await root.post('/api/v1/marketplaces', { name: 'acme', url: planted.url })).status, 201);
  const held = (await root.post('/api/v1/marketplaces/acme/ingest')).body;
  t.equal(held.state, 'held');
  const report = (await root.get(`/api/v1/snapshots/${held.id}/vetting`)).body;
  t.equal(report.outcome, 'BLOCKED');
  const [first, second] = report.uncovered as { ruleId: string }[];
  t.equal((await root.post(`/api/v1/snapshots/${held.id}/waivers`, waiver(first!.ruleId))).status, 201, 'held: taken');
  const why = 'curl piped to a shell in the setup hook';
  const decided = await root.post(`/api/v1/snapshots/${held.id}/reject?reason=${encodeURIComponent(` ${why} `)}`);
  t.equal(decided.status, 200, 'then rejected, with a reason');
  t.match(decided.body, { state: 'rejected', decidedBy: 'root', decidedAt: /^\d{4}-/, decisionReason: why });
  const listed = (await root.get('/api/v1/marketplaces')).body as { snapshots: { id: number }[] }[];
  t.match(
    listed.flatMap((m) => m.snapshots).find((s) => s.id === held.id),
    { decisionReason: why },
    'the reason is read back with the snapshot',
  );
  t.notOk('decisionReason' in rejected, 'a snapshot rejected at ingest has none: its reason is the violation');
  const late = await root.post(`/api/v1/snapshots/${held.id}/waivers`, waiver(second!.ruleId));
  t.equal(late.status, 409, late.text);
  t.match(late.body.type, /\/problems\/snapshot-already-decided$/);
  t.equal((await root.get('/api/v1/marketplaces/acme/waivers')).body.length, 1, 'only the first waiver exists');
  const after = (await root.get(`/api/v1/snapshots/${held.id}/vetting`)).body;
  t.equal(after.outcome, 'BLOCKED', 'the rejected snapshot’s outcome is not turned into a clear one');
});
