import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import t from 'tap';
import { devSession } from '../../support/api.ts';
import { eventually, inMs, settle, sleep } from '../../support/assert.ts';
import { startOnConfig, startTestGateway, testConfig, type TestGateway } from '../../support/gateway.ts';
import { cleanMarketplace, plantedToken } from '../../support/planted.ts';
import { receiver, type Received } from '../../support/receiver.ts';
import { serveUpstream } from '../../support/upstream.ts';

// Small retry settings so a whole budget passes in well under a second.
const env = {
  GATEWAY_DEV_INSECURE_AUTH: 'true',
  GATEWAY_ROLES_ADMINS: 'root',
  GATEWAY_WEBHOOKS_POLL_INTERVAL: '50ms',
  GATEWAY_WEBHOOKS_BASE_BACKOFF: '50ms',
  GATEWAY_WEBHOOKS_MAX_BACKOFF: '200ms',
  GATEWAY_WEBHOOKS_MAX_ATTEMPTS: '3',
  GATEWAY_WEBHOOKS_TIMEOUT: '2s',
};

type Delivery = { id: number; subscriberId: number; sinkId: number | null; state: string; attempts: number };

async function subscribe(gw: TestGateway, url: string, events: string[]) {
  const created = await devSession(gw, 'root').post('/api/v1/webhooks', { url, events });
  return created.body as { id: number; secret: string };
}

const deliveriesOf = async (gw: TestGateway, query = '') =>
  (await devSession(gw, 'root').get(`/api/v1/webhooks/deliveries${query}`)).body as {
    deliveries: Delivery[];
    nextBefore: number | null;
  };

/** Verified with the standardwebhooks package, as a receiver would; answers the payload. */
const verified = (secret: string, message: Received) =>
  new Webhook(secret).verify(message.body, message.headers as Record<string, string>) as {
    type: string;
    timestamp: string;
    data: Record<string, unknown>;
  };

t.test(
  'marketplace.snapshot.revoked for a re-vet revocation (signed, retried with the same webhook-id after a 500) ' +
    'and for each withdrawal of a removal',
  async (t) => {
    const gw = await startTestGateway(t, { ...env, GATEWAY_VETTING_REVET_MODE: 'ENFORCE' });
    const root = devSession(gw, 'root');
    const hook = await receiver(t, (n) => (n === 1 ? 500 : 204));
    const subscriber = await subscribe(gw, hook.url, ['marketplace.snapshot.revoked']);

    // The re-vet setup of test/http/vetting/revet.test.ts: approved under a waiver, revoked once it goes.
    const upstream = await serveUpstream(
      t,
      cleanMarketplace({ 'plugins/tidy/notes.txt': `token for the demo:\n${plantedToken}\n` }),
    );
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
    t.equal((await root.post(`/api/v1/snapshots/${snapshot.id}/approve`)).status, 200);
    await root.delete(`/api/v1/waivers/${waiver.id}`);
    t.match((await root.post(`/api/v1/snapshots/${snapshot.id}/revet`)).body, { revoked: true });

    await eventually(async () => hook.received.length >= 2);
    const [first, second] = hook.received as [Received, Received];
    t.equal(first.headers['webhook-id'], second.headers['webhook-id'], 'the same webhook-id after a 500');
    t.equal(first.headers['content-type'], 'application/json');
    const payload = verified(subscriber.secret, second);
    t.match(payload, {
      type: 'marketplace.snapshot.revoked',
      timestamp: /^\d{4}-/,
      data: { snapshotId: snapshot.id, marketplace: 'tidy', administrative: false },
    });
    t.throws(() => new Webhook(subscriber.secret).verify(`${second.body} `, second.headers as Record<string, string>));
    const afterRevet = await eventually(async () => {
      const page = await deliveriesOf(gw);
      return page.deliveries[0]?.state === 'delivered' ? page : null;
    });
    t.match(afterRevet.deliveries, [
      {
        id: Number(first.headers['webhook-id']),
        subscriberId: subscriber.id,
        sinkId: null,
        event: 'marketplace.snapshot.revoked',
        state: 'delivered',
        attempts: 2,
        nextAttemptAt: null,
        lastStatus: 204,
        createdAt: /^\d{4}-/,
        updatedAt: /^\d{4}-/,
      },
    ]);

    // The removal setup of test/http/git/lifecycle.test.ts: two approved snapshots, both withdrawn.
    const acme = await serveUpstream(t, cleanMarketplace(), 'acme');
    await root.post('/api/v1/marketplaces', { name: 'acme', url: acme.url });
    const one = (await root.post('/api/v1/marketplaces/acme/ingest')).body;
    t.equal((await root.post(`/api/v1/snapshots/${one.id}/approve`)).status, 200);
    await acme.commit({ 'plugins/tidy/commands/tidy.md': '---\ndescription: tidy up\n---\nTidy it all.\n' });
    const two = (await root.post('/api/v1/marketplaces/acme/ingest')).body;
    t.equal((await root.post(`/api/v1/snapshots/${two.id}/approve`)).status, 200);
    const removed = await root.delete('/api/v1/marketplaces/acme', { reason: 'retired upstream' });
    t.equal(removed.body.withdrawnSnapshotIds.length, 2, 'two withdrawals');

    await eventually(async () => hook.received.length >= 4);
    const withdrawals = hook.received.slice(2).map((message) => verified(subscriber.secret, message));
    t.strictSame(
      withdrawals.map((p) => [p.type, p.data.snapshotId, p.data.administrative]).sort(),
      [
        ['marketplace.snapshot.revoked', one.id, true],
        ['marketplace.snapshot.revoked', two.id, true],
      ].sort(),
      'one delivery per withdrawal on marketplace removal',
    );
    const ids = new Set(hook.received.map((m) => m.headers['webhook-id']));
    t.equal(ids.size, 3, 'each delivery its own webhook-id');
    const page = await deliveriesOf(gw, '?limit=2');
    t.equal(page.deliveries.length, 2, 'limit');
    t.ok(page.deliveries[0]!.id > page.deliveries[1]!.id, 'newest first');
    const rest = await deliveriesOf(gw, `?limit=2&before=${page.nextBefore}`);
    t.strictSame(
      rest.deliveries.map((d) => d.id),
      [afterRevet.deliveries[0]!.id],
      'nextBefore pages on',
    );
    t.equal(rest.nextBefore, null, 'the last page');
  },
);

t.test('a receiver down for the whole budget leaves the delivery failed after max-attempts', async (t) => {
  const gw = await startTestGateway(t, env);
  const down = await receiver(t);
  const closed = createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  const port = (closed.address() as AddressInfo).port;
  await new Promise<void>((resolve) => closed.close(() => resolve()));
  const subscriber = await subscribe(gw, `http://127.0.0.1:${port}/gone`, ['marketplace.registered']);
  const other = await subscribe(gw, down.url, ['catalog.rebuilt']);
  t.equal((await devSession(gw, 'root').post('/api/v1/marketplaces', { name: 'pub', origin: 'hosted' })).status, 201);

  const failed = await eventually(async () => {
    const page = await deliveriesOf(gw, `?subscriber=${subscriber.id}`);
    return page.deliveries[0]?.state === 'failed' ? page.deliveries[0] : null;
  });
  t.match(
    failed,
    { attempts: 3, lastStatus: null, lastError: /\S/, nextAttemptAt: null },
    'max-attempts 3, then failed',
  );
  t.strictSame((await deliveriesOf(gw, `?subscriber=${other.id}`)).deliveries, [], 'not subscribed: no row');
  t.strictSame((await deliveriesOf(gw, '?state=pending')).deliveries, [], 'nothing left pending');
});

t.test('with gateway.webhooks.enabled false rows pile up as pending and go out when it is turned on', async (t) => {
  const config = await testConfig(t, { ...env, GATEWAY_WEBHOOKS_ENABLED: 'false' });
  const hook = await receiver(t);
  let gw = await startOnConfig(config);
  t.teardown(() => gw.close());
  const subscriber = await subscribe(gw, hook.url, ['marketplace.registered']);
  const root = devSession(gw, 'root');
  for (const name of ['one', 'two']) await root.post('/api/v1/marketplaces', { name, origin: 'hosted' });
  await settle(gw);
  const pending = await eventually(async () => {
    const page = await deliveriesOf(gw, '?state=pending');
    return page.deliveries.length === 2 ? page : null;
  });
  t.ok(
    pending.deliveries.every((d) => d.attempts === 0),
    'spec: "false pauses delivery, not emission"',
  );
  await sleep(300); // six poll intervals: a dispatcher would have sent them by now
  t.equal(hook.received.length, 0, 'nothing sent while paused');
  await gw.close();

  gw = await startOnConfig({ ...config, webhooks: { ...config.webhooks, enabled: true } });
  await eventually(async () => hook.received.length >= 2);
  const names = hook.received.map((m) => verified(subscriber.secret, m).data.name).sort();
  t.strictSame(names, ['one', 'two'], 'both go out once dispatch is on');
  await eventually(async () => (await deliveriesOf(gw, '?state=delivered')).deliveries.length === 2);
});
