import { Webhook } from 'standardwebhooks';
import t from 'tap';
import { devSession } from '../../support/api.ts';
import { assertNothingChanged, eventually, ledger, sleep } from '../../support/assert.ts';
import { startTestGateway, type TestGateway } from '../../support/gateway.ts';
import { receiver, type Received } from '../../support/receiver.ts';

type Sink = { id: number; enabled: boolean; batchSize: number | null; cursorPosition: number; behind: number };
type Batch = { data: { from: number; to: number; entries: Array<{ id: number }> } };

const base = {
  GATEWAY_DEV_INSECURE_AUTH: 'true',
  GATEWAY_ROLES_ADMINS: 'root',
  GATEWAY_AUDIT_EXPORT_LAG: '0s',
};

const sinks = async (gw: TestGateway) => (await devSession(gw, 'root').get('/api/v1/audit/sinks')).body as Sink[];
const batches = (secret: string, received: Received[]) =>
  received.map((m) => new Webhook(secret).verify(m.body, m.headers as Record<string, string>) as Batch);

/** Ledger entries to push: webhook subscribers nobody sends to (each creation is one entry). */
async function entries(gw: TestGateway, count: number): Promise<void> {
  for (let i = 0; i < count; i += 1) {
    await devSession(gw, 'root').post('/api/v1/webhooks', { url: 'http://127.0.0.1:9/x', events: ['catalog.rebuilt'] });
  }
}

t.test('a sink switched off is offered nothing; its own batch size, clamped to max-page-size', async (t) => {
  // gateway.audit-export.batch-size | 500 | per-sink override clamped to max-page-size.
  const gw = await startTestGateway(t, {
    ...base,
    GATEWAY_AUDIT_EXPORT_POLL_INTERVAL: '50ms',
    GATEWAY_AUDIT_EXPORT_BATCH_SIZE: '5',
    GATEWAY_AUDIT_EXPORT_DEFAULT_PAGE_SIZE: '4',
    GATEWAY_AUDIT_EXPORT_MAX_PAGE_SIZE: '4',
    GATEWAY_WEBHOOKS_POLL_INTERVAL: '50ms',
  });
  const root = devSession(gw, 'root');
  await entries(gw, 6);
  const hook = await receiver(t);
  const body = { name: 'siem', url: hook.url, enabled: false, batchSize: 2 };
  const created = (await root.post('/api/v1/audit/sinks', body)).body;
  t.match(created, { enabled: false, batchSize: 2, cursorPosition: 0 }, 'created switched off, with its batch size');
  // Many offer passes (every 50 ms) go by: a sink switched off gets none of them.
  await sleep(1000);
  t.equal(hook.received.length, 0, 'nothing is sent to a sink switched off');
  t.match(await sinks(gw), [{ enabled: false, cursorPosition: 0 }]);

  const patched = await root.patch(`/api/v1/audit/sinks/${created.id}`, { enabled: true });
  t.equal(patched.status, 200);
  t.match(patched.body, { id: created.id, enabled: true, batchSize: 2 }, 'what is not given stays');
  const head = Number((await ledger(gw)).at(-1)!.id);
  await eventually(async () => (await sinks(gw))[0]!.cursorPosition >= head, 10_000);
  const first = batches(created.secret, hook.received);
  t.ok(first.length >= 3, 'several batches');
  t.ok(
    first.every((b) => b.data.entries.length <= 2),
    "the sink's own batch size bounds each batch, not the setting's 5",
  );

  const clamped = await root.patch(`/api/v1/audit/sinks/${created.id}`, { batchSize: 100 });
  t.match(clamped.body, { batchSize: 4 }, 'clamped to gateway.audit-export.max-page-size');
  const reset = await root.patch(`/api/v1/audit/sinks/${created.id}`, { batchSize: null });
  t.match(reset.body, { batchSize: null }, 'null: the setting again');
  t.match(
    await ledger(gw, 'audit-sink-updated'),
    [
      { principal: 'root', detail: /'siem': enabled, batch size 2$/ },
      { principal: 'root', detail: /'siem': enabled, batch size 4$/ },
      { principal: 'root', detail: /'siem': enabled, batch size gateway.audit-export.batch-size$/ },
    ],
    'each change on the ledger with the acting admin',
  );

  for (const [call, status, what] of [
    [() => root.patch('/api/v1/audit/sinks/999', { enabled: false }), 404, 'an unknown sink'],
    [() => devSession(gw, 'nobody').patch(`/api/v1/audit/sinks/${created.id}`, {}), 403, 'not an admin'],
    [() => root.patch(`/api/v1/audit/sinks/${created.id}`, { batchSize: 0 }), 422, 'a batch size of 0'],
    [() => root.patch(`/api/v1/audit/sinks/${created.id}`, { url: 'http://x/' }), 422, 'an unknown field'],
  ] as const) {
    t.equal((await assertNothingChanged(t, gw, call, what)).status, status, `${what}: ${status}`);
  }
});

t.test('the push and the dispatcher wake each other: a sink catches up without waiting for intervals', async (t) => {
  // The dispatcher's own interval is an hour, the push's 3 s: only the wakes (a batch offered is sent at
  // once, a batch delivered makes room for the next at once) get seven batches out within the wait below.
  const gw = await startTestGateway(t, {
    ...base,
    GATEWAY_AUDIT_EXPORT_POLL_INTERVAL: '3s',
    GATEWAY_AUDIT_EXPORT_BATCH_SIZE: '2',
    GATEWAY_WEBHOOKS_POLL_INTERVAL: '1h',
  });
  await entries(gw, 12);
  const hook = await receiver(t);
  const created = (await devSession(gw, 'root').post('/api/v1/audit/sinks', { name: 'siem', url: hook.url })).body;
  const head = Number((await ledger(gw)).at(-1)!.id);
  t.ok(head >= 13, 'at least seven batches to send');
  await eventually(async () => (await sinks(gw))[0]!.cursorPosition >= head, 15_000);
  t.ok(batches(created.secret, hook.received).length >= 7, 'every batch went out');
});

t.test('what delivering did is recorded as events, and none of it reaches the ledger', async (t) => {
  // A reactor "records what it did as events"; the delivery rows follow from them.
  const gw = await startTestGateway(t, {
    ...base,
    GATEWAY_AUDIT_EXPORT_POLL_INTERVAL: '50ms',
    GATEWAY_WEBHOOKS_POLL_INTERVAL: '50ms',
  });
  const hook = await receiver(t);
  const created = (await devSession(gw, 'root').post('/api/v1/audit/sinks', { name: 'siem', url: hook.url })).body;
  await eventually(async () => (await sinks(gw))[0]!.behind === 0 && hook.received.length > 0, 10_000);
  const events = await gw.core.store.readAll(0n, 10_000);
  const offered = events.filter((e) => e.type === 'audit-batch-offered');
  const attempted = events.filter((e) => e.type === 'webhook-delivery-attempted');
  t.match(offered[0]?.data, { sinkId: created.id, name: 'siem', from: 0, to: Number, count: Number });
  const deliveryId = Number(hook.received[0]!.headers['webhook-id']);
  t.match(
    attempted.find((e) => (e.data as { deliveryId: number }).deliveryId === deliveryId)?.data,
    { attempt: 1, outcome: 'delivered', status: 204, error: null, nextAttemptAt: null },
    'the 2xx recorded as the delivery outcome',
  );
  const events2 = (await ledger(gw)).map((e) => e.event);
  t.notOk(
    events2.some((e) => e === 'audit-batch-offered' || e === 'webhook-delivery-attempted'),
    'no ledger entry for delivering (a sink would feed itself)',
  );
});
