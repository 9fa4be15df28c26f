import { renameSync } from 'node:fs';
import t, { type Test } from 'tap';
import { devSession } from '../../support/api.ts';
import { inMs } from '../../support/assert.ts';
import { startTestGateway, type TestGateway } from '../../support/gateway.ts';
import { cleanMarketplace, plantedToken } from '../../support/planted.ts';
import { gitClient, serveUpstream } from '../../support/upstream.ts';
import { scrape, valueOf, type Exposition } from './exposition.ts';

// Metrics on /actuator/prometheus ...: HTTP requests by route and status (duration histogram);
// facade fetches by marketplace, protocol and outcome, bytes sent; ingest duration and outcome; vetting per
// connector; approvals, rejections, revocations; projection lag per projection; event store append latency.
// Every metric in docs/metrics.md is asserted to move in a test. Each step scrapes before and after
// the action that should move a metric, on a real gateway, a real upstream and the real git client.

// ENFORCE: a re-vet VIOLATION revokes (as test/http/api/webhooks-deliveries.test.ts does).
const env = { GATEWAY_DEV_INSECURE_AUTH: 'true', GATEWAY_ROLES_ADMINS: 'root', GATEWAY_VETTING_REVET_MODE: 'ENFORCE' };

type Labels = Record<string, string>;

/** Scrapes around `action`; `delta(name, labels)` is how far the summed samples moved. */
async function across<T>(gw: TestGateway, action: () => Promise<T>) {
  const before = await scrape(gw);
  const result = await action();
  const after = await scrape(gw);
  const delta = (name: string, labels: Labels = {}) => valueOf(after, name, labels) - valueOf(before, name, labels);
  return { result, before, after, delta };
}

const count = 'gateway_http_request_duration_seconds_count';
const facade = 'gateway_facade_fetches_total';

/** A v0 upload-pack request wanting `sha` (never advertised): git's own refusal, inside the protocol. */
function foreignWant(sha: string): Buffer {
  const want = `want ${sha}\n`;
  return Buffer.from(`${(want.length + 4).toString(16).padStart(4, '0')}${want}00000009done\n`);
}

t.test('every pipeline metric moves with the action behind it', async (t: Test) => {
  const gw = await startTestGateway(t, env);
  const root = devSession(gw, 'root');
  const upstream = await serveUpstream(t, cleanMarketplace({ 'plugins/tidy/notes.txt': `demo:\n${plantedToken}\n` }));

  const registered = await across(gw, () => root.post('/api/v1/marketplaces', { name: 'tidy', url: upstream.url }));
  t.equal(registered.result.status, 201);
  const route = { method: 'POST', route: '/api/v1/marketplaces', status: '201' };
  t.equal(registered.delta(count, route), 1, 'http: one POST /api/v1/marketplaces answered 201, by its route');
  t.equal(
    registered.delta('gateway_http_request_duration_seconds_bucket', { ...route, le: '+Inf' }),
    1,
    'http: in the +Inf bucket',
  );
  t.ok(registered.delta('gateway_http_request_duration_seconds_sum', route) > 0, 'http: its duration summed');
  t.ok(registered.delta('gateway_eventstore_append_duration_seconds_count', { outcome: 'ok' }) >= 1, 'append: ok');

  const ingested = await across(gw, () => root.post('/api/v1/marketplaces/tidy/ingest'));
  t.equal(ingested.result.status, 201, ingested.result.text);
  const snapshot = ingested.result.body as { id: number; sha: string };
  t.equal(
    ingested.delta('gateway_ingest_duration_seconds_count', { trigger: 'on-demand', outcome: 'captured' }),
    1,
    'ingest: one captured on demand',
  );
  const vetted = ingested.delta('gateway_vetting_connector_duration_seconds_count');
  t.ok(vetted >= 1, `vetting: ${vetted} connector runs at ingestion`);
  t.equal(
    ingested.delta('gateway_vetting_connector_duration_seconds_count', { verdict: 'FAIL' }),
    1,
    'vetting: the planted token fails one connector',
  );

  const again = await across(gw, () => root.post('/api/v1/marketplaces/tidy/ingest'));
  t.equal(
    again.delta('gateway_ingest_duration_seconds_count', { trigger: 'on-demand', outcome: 'unchanged' }),
    1,
    'ingest: the same commit again is unchanged',
  );

  const finding = (await root.get(`/api/v1/snapshots/${snapshot.id}/vetting`)).body.uncovered[0];
  const waiver = (
    await root.post(`/api/v1/snapshots/${snapshot.id}/waivers`, {
      ruleId: finding.ruleId,
      scope: 'SNAPSHOT',
      justification: 'demo token',
      expiresAt: inMs(3_600_000),
    })
  ).body;
  const approved = await across(gw, () => root.post(`/api/v1/snapshots/${snapshot.id}/approve`));
  t.equal(approved.result.status, 200, approved.result.text);
  t.equal(approved.delta('gateway_snapshot_decisions_total', { decision: 'approved' }), 1, 'decisions: approved');
  t.equal(approved.delta('gateway_snapshot_decisions_total'), 1, 'and nothing else');

  const token = (await root.post('/api/v1/tokens', { name: 'clone' })).body.token as string;
  const client = gitClient(t, token);
  for (const protocol of [2, 0] as const) {
    const cloned = await across(gw, () => client.clone(`${gw.url}/git/tidy.git`, { protocol }));
    t.ok(cloned.result.ok, cloned.result.stderr);
    const fetched = (phase: string) =>
      cloned.delta(facade, { marketplace: 'tidy', protocol: `v${protocol}`, phase, outcome: 'served' });
    t.ok(fetched('info-refs') >= 1, `facade: v${protocol} advertisement served`);
    t.equal(fetched('upload-pack'), 1, `facade: one v${protocol} fetch served`);
    if (protocol === 2) t.ok(fetched('ls-refs') >= 1, 'facade: a v2 ref list served');
    for (const phase of protocol === 2 ? ['info-refs', 'ls-refs', 'upload-pack'] : ['info-refs', 'upload-pack'])
      t.ok(cloned.delta('gateway_facade_bytes_sent_total', { marketplace: 'tidy', phase }) > 0, `bytes: ${phase}`);
    t.ok(
      cloned.delta(count, { method: 'POST', route: '/git/:repo/git-upload-pack', status: '200' }) >= 1,
      'http: the facade by its route pattern, the repository name not a label',
    );
  }

  const refused = await across(gw, () =>
    gw
      .fetch('/git/tidy.git/git-upload-pack', {
        method: 'POST',
        headers: {
          authorization: `Basic ${Buffer.from(`any:${token}`).toString('base64')}`,
          'content-type': 'application/x-git-upload-pack-request',
        },
        body: foreignWant('0'.repeat(40)),
      })
      .then((r) => r.text()),
  );
  t.match(refused.result, /not our ref/);
  t.equal(
    refused.delta(facade, { marketplace: 'tidy', protocol: 'v0', phase: 'upload-pack', outcome: 'refused' }),
    1,
    'facade: a want never advertised is refused',
  );

  const holdings = await across(gw, () =>
    gw.fetch('/status/v1/snapshots', {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`any:${token}`).toString('base64')}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify({ holdings: [{ marketplace: 'tidy', sha: snapshot.sha }] }),
    }),
  );
  t.equal(holdings.result.status, 200);
  t.equal(holdings.delta('gateway_holdings_answers_total', { state: 'approved' }), 1, 'holdings: one approved');

  await root.delete(`/api/v1/waivers/${waiver.id}`);
  const revoked = await across(gw, () => root.post(`/api/v1/snapshots/${snapshot.id}/revet`));
  t.match(revoked.result.body, { revoked: true });
  t.equal(revoked.delta('gateway_snapshot_decisions_total', { decision: 'revoked' }), 1, 'decisions: revoked');
  t.ok(revoked.delta('gateway_vetting_connector_duration_seconds_count') >= 1, 'vetting: the re-vet ran connectors');

  await upstream.commit({ 'plugins/tidy/more.txt': 'a second commit\n' }, 'second');
  const second = (await root.post('/api/v1/marketplaces/tidy/ingest')).body as { id: number };
  const rejected = await across(gw, () => root.post(`/api/v1/snapshots/${second.id}/reject`));
  t.equal(rejected.result.status, 200, rejected.result.text);
  t.equal(rejected.delta('gateway_snapshot_decisions_total', { decision: 'rejected' }), 1, 'decisions: rejected');

  renameSync(upstream.bare, `${upstream.bare}.gone`);
  const failed = await across(gw, () => root.post('/api/v1/marketplaces/tidy/ingest'));
  t.equal(failed.result.status, 502, 'the upstream is gone');
  t.equal(
    failed.delta('gateway_ingest_duration_seconds_count', { trigger: 'on-demand', outcome: 'failed' }),
    1,
    'ingest: failed',
  );
  t.equal(failed.delta(count, { method: 'POST', route: '/api/v1/marketplaces/:name/ingest', status: '502' }), 1);
});

t.test('projection lag per projection, and an append refused by its expected revision', async (t) => {
  const gw = await startTestGateway(t, { GATEWAY_DEV_INSECURE_AUTH: 'true' });
  await gw.settled();
  const names = gw.core.runner.projections.map((p) => p.name).sort();
  const lagOf = (e: Exposition) =>
    new Map(e.samples.filter((s) => s.name === 'gateway_projection_lag').map((s) => [s.labels.projection!, s.value]));
  const caughtUp = lagOf(await scrape(gw));
  t.strictSame([...caughtUp.keys()].sort(), names, 'one series per projection and reactor');
  t.ok(
    [...caughtUp.values()].every((lag) => lag === 0),
    'all caught up',
  );

  // The runner stopped (as on a leader that stalls), two events appended: every checkpoint is 2 behind the head.
  await gw.core.runner.stop();
  const event = {
    type: 'metrics-probe',
    data: {},
    metadata: { principal: 'test', actorType: 'system' as const, correlationId: 'metrics', at: inMs(0) },
  };
  const appended = await across(gw, async () => {
    await gw.core.store.append('metrics-probe-1', [event], 'no-stream');
    await gw.core.store.append('metrics-probe-1', [event], 0n);
  });
  const behind = lagOf(appended.after);
  t.strictSame([...behind.keys()].sort(), names);
  t.ok(
    [...behind.values()].every((lag) => lag === 2),
    `every projection is 2 behind: ${JSON.stringify([...behind])}`,
  );
  t.equal(appended.delta('gateway_eventstore_append_duration_seconds_count', { outcome: 'ok' }), 2);

  const conflict = await across(gw, () =>
    gw.core.store.append('metrics-probe-1', [event], 'no-stream').then(
      () => 'appended',
      (error: Error) => error.name,
    ),
  );
  t.equal(conflict.result, 'RevisionConflict');
  t.equal(conflict.delta('gateway_eventstore_append_duration_seconds_count', { outcome: 'conflict' }), 1);
  t.strictSame(lagOf(conflict.after), behind, 'a refused append moves no checkpoint and no head');
});
