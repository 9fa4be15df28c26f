import t from 'tap';
import type { Clock } from '../../../src/adapters/system/clock.ts';
import { devSession } from '../../support/api.ts';
import { day, eventually } from '../../support/assert.ts';
import { startTestGateway, type TestGateway } from '../../support/gateway.ts';
import { receiver } from '../../support/receiver.ts';
import { marketplaceFiles, serveUpstream } from '../../support/upstream.ts';
import { scrape, valueOf } from './exposition.ts';

// Webhook and sink backlog and outcomes; retention passes. Every metric in docs/metrics.md is asserted to
// move in a test. Backlogs are gauges read at scrape from the shared database;
// outcomes are counted by the leader's dispatcher; passes by the retention and compaction use cases.

const admin = { GATEWAY_DEV_INSECURE_AUTH: 'true', GATEWAY_ROLES_ADMINS: 'root' };
const attempts = 'gateway_webhook_delivery_attempts_total';

/** A gauge's value now (summed over the series matching `labels`). */
const gauge = async (gw: TestGateway, name: string, labels: Record<string, string> = {}) =>
  valueOf(await scrape(gw), name, labels);

t.test('backlogs: pending webhook deliveries and ledger entries an audit sink has not received', async (t) => {
  // Dispatch disabled: deliveries are recorded, not sent, so what is pending stays pending.
  const gw = await startTestGateway(t, { ...admin, GATEWAY_WEBHOOKS_ENABLED: 'false' });
  const root = devSession(gw, 'root');
  t.equal(await gauge(gw, 'gateway_webhook_backlog'), 0, 'nothing pending at first');
  t.equal((await scrape(gw)).samples.filter((s) => s.name === 'gateway_audit_sink_backlog_entries').length, 0);

  t.equal(
    (await root.post('/api/v1/webhooks', { url: 'http://127.0.0.1:9/x', events: ['marketplace.registered'] })).status,
    201,
  );
  t.equal((await root.post('/api/v1/audit/sinks', { name: 'siem', url: 'http://127.0.0.1:9/sink' })).status, 201);
  const upstream = await serveUpstream(t, marketplaceFiles('acme', ['alpha']));
  for (const name of ['acme', 'beta'])
    t.equal((await root.post('/api/v1/marketplaces', { name, url: upstream.url })).status, 201);

  await eventually(async () => (await gauge(gw, 'gateway_webhook_backlog')) === 2);
  t.pass('two registrations: two deliveries pending');
  // The ledger may still grow (the push offers batches): compared until one scrape and the API agree.
  const behind = async () => ((await root.get('/api/v1/audit/sinks')).body as Array<{ behind: number }>)[0]!.behind;
  const agreed = await eventually(async () => {
    const [api, scraped] = [await behind(), await gauge(gw, 'gateway_audit_sink_backlog_entries', { sink: 'siem' })];
    return api > 0 && scraped === api && api;
  });
  t.ok(agreed > 0, `the sink's backlog (${agreed}) is what the API calls behind`);
});

t.test('delivery outcomes: delivered, retrying, failed; audit batches delivered', async (t) => {
  const gw = await startTestGateway(t, {
    ...admin,
    GATEWAY_WEBHOOKS_POLL_INTERVAL: '50ms',
    GATEWAY_WEBHOOKS_BASE_BACKOFF: '50ms',
    GATEWAY_WEBHOOKS_MAX_BACKOFF: '100ms',
    GATEWAY_WEBHOOKS_MAX_ATTEMPTS: '2',
    GATEWAY_AUDIT_EXPORT_POLL_INTERVAL: '50ms',
    GATEWAY_AUDIT_EXPORT_LAG: '0s',
  });
  const root = devSession(gw, 'root');
  const before = await scrape(gw);
  const moved = async (labels: Record<string, string>) =>
    valueOf(await scrape(gw), attempts, labels) - valueOf(before, attempts, labels);
  const good = await receiver(t);
  const bad = await receiver(t, () => 500);
  for (const hook of [good, bad])
    t.equal((await root.post('/api/v1/webhooks', { url: hook.url, events: ['marketplace.registered'] })).status, 201);
  const sinkReceiver = await receiver(t);
  t.equal((await root.post('/api/v1/audit/sinks', { name: 'siem', url: sinkReceiver.url })).status, 201);
  const upstream = await serveUpstream(t, marketplaceFiles('acme', ['alpha']));
  t.equal((await root.post('/api/v1/marketplaces', { name: 'acme', url: upstream.url })).status, 201);

  await eventually(async () => (await moved({ kind: 'webhook', outcome: 'failed' })) === 1, 10_000);
  t.equal(await moved({ kind: 'webhook', outcome: 'delivered' }), 1, 'the good receiver: delivered at once');
  t.equal(await moved({ kind: 'webhook', outcome: 'retrying' }), 1, 'the bad one: retried once (2 attempts at most)');
  t.equal(bad.received.length, 2);
  await eventually(async () => (await moved({ kind: 'audit-batch', outcome: 'delivered' })) >= 1, 10_000);
  t.ok(sinkReceiver.received.length >= 1, 'the sink received a batch');
  await eventually(async () => (await gauge(gw, 'gateway_webhook_backlog')) === 0);
  t.pass('nothing left pending');
});

/** The gateway's clock, `offset` ahead of the wall clock (as test/http/api/retention-evaluation.test.ts moves it). */
function movableClock() {
  let offset = 0;
  const now = () => new Date(Date.now() + offset);
  const clock: Clock = { now, instant: () => now().toISOString() };
  return { clock, moveTo: (ms: number) => void (offset = ms) };
}

t.test('retention passes: an evaluation soft-deletes, a compaction purges', async (t) => {
  const time = movableClock();
  const gw = await startTestGateway(t, { ...admin, GATEWAY_WEBHOOKS_ENABLED: 'false' }, { clock: time.clock });
  const root = devSession(gw, 'root');
  const upstream = await serveUpstream(t, marketplaceFiles('acme', ['alpha']));
  t.equal((await root.post('/api/v1/marketplaces', { name: 'acme', url: upstream.url })).status, 201);
  t.equal((await root.post('/api/v1/marketplaces/acme/ingest')).status, 201);
  const passes = 'gateway_retention_passes_total';
  const snapshots = 'gateway_retention_snapshots_total';
  const before = await scrape(gw);
  const moved = async (name: string, labels: Record<string, string>) =>
    valueOf(await scrape(gw), name, labels) - valueOf(before, name, labels);

  // held-too-long selects held snapshots older than held-max-age (90 days by default).
  time.moveTo(91 * day);
  t.strictSame((await root.post('/api/v1/retention/evaluate')).body, { selected: 1, acted: 1 });
  t.equal(await moved(passes, { kind: 'evaluation', trigger: 'on-demand' }), 1, 'one evaluation pass');
  t.equal(await moved(snapshots, { action: 'soft-deleted' }), 1, 'one snapshot soft-deleted');
  t.equal(await moved(snapshots, { action: 'purged' }), 0);

  // Purged on a compaction pass once purgeAfter (the restore window, 14 days) elapsed.
  time.moveTo(106 * day);
  t.match((await root.post('/api/v1/retention/compact')).body, { selected: 1, acted: 1 });
  t.equal(await moved(passes, { kind: 'compaction', trigger: 'on-demand' }), 1, 'one compaction pass');
  t.equal(await moved(snapshots, { action: 'purged' }), 1, 'one snapshot purged');
});
