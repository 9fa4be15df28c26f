import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import t, { type Test } from 'tap';
import { devSession } from '../../support/api.ts';
import { eventually, ledger, sleep } from '../../support/assert.ts';
import { startTestGateway, type TestGateway } from '../../support/gateway.ts';

// A sink's next batches are offered while the one before is on its way: at most eight batches pending, sent in
// order, the cursor moving over delivered batches only.

const env = {
  GATEWAY_DEV_INSECURE_AUTH: 'true',
  GATEWAY_ROLES_ADMINS: 'root',
  GATEWAY_AUDIT_EXPORT_POLL_INTERVAL: '50ms',
  GATEWAY_AUDIT_EXPORT_LAG: '0s',
  GATEWAY_AUDIT_EXPORT_BATCH_SIZE: '3',
  GATEWAY_WEBHOOKS_POLL_INTERVAL: '50ms',
  GATEWAY_WEBHOOKS_BASE_BACKOFF: '50ms',
  GATEWAY_WEBHOOKS_MAX_BACKOFF: '100ms',
  GATEWAY_WEBHOOKS_MAX_ATTEMPTS: '1000',
  GATEWAY_WEBHOOKS_TIMEOUT: '20s',
};

type Sink = { id: number; cursorPosition: number; ledgerHead: number };
type Delivery = { id: number; state: string; attempts: number; lastError: string | null };
type Batch = { data: { from: number; to: number; entries: Array<{ id: number }> } };
type Arrival = { id: string; body: string; headers: Record<string, string>; batch: Batch; status: number };

const sinks = async (gw: TestGateway) => (await devSession(gw, 'root').get('/api/v1/audit/sinks')).body as Sink[];
const deliveries = async (gw: TestGateway, sink: number) =>
  (await devSession(gw, 'root').get(`/api/v1/webhooks/deliveries?sink=${sink}`)).body.deliveries as Delivery[];

/** Ledger entries to push: webhook subscribers nobody sends to (each creation is one entry). */
async function entries(gw: TestGateway, count: number): Promise<void> {
  for (let i = 0; i < count; i += 1) {
    await devSession(gw, 'root').post('/api/v1/webhooks', { url: 'http://127.0.0.1:9/x', events: ['catalog.rebuilt'] });
  }
}

/**
 * A loopback sink whose nth request is answered with the status `answer(n)` resolves to (it may hold its answer);
 * `arrivals` keeps each batch in arrival order, with the answer given.
 */
async function sinkReceiver(t: Test, answer: (n: number) => Promise<number>) {
  const state = { arrivals: [] as Arrival[], requests: 0 };
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      state.requests += 1;
      const n = state.requests;
      const body = Buffer.concat(chunks).toString('utf8');
      const headers = request.headers as Record<string, string>;
      void answer(n).then((status) => {
        state.arrivals.push({ id: headers['webhook-id']!, body, headers, batch: JSON.parse(body) as Batch, status });
        response.statusCode = status;
        response.end();
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/sink`, state };
}

/** The entries of the accepted batches in arrival order, de-duplicated on the entry id. */
const acceptedEntries = (arrivals: Arrival[]) => {
  const seen = new Set<number>();
  return arrivals
    .filter((a) => a.status < 300)
    .flatMap((a) => a.batch.data.entries.map((e) => e.id))
    .filter((id) => !seen.has(id) && seen.add(id));
};

/** Every batch signed under the sink's secret, checked as a receiver would. */
const verified = (secret: string, arrivals: Arrival[]) => {
  for (const a of arrivals) new Webhook(secret).verify(a.body, a.headers);
};

const ledgerIds = async (gw: TestGateway) => (await ledger(gw)).map((e) => Number(e.id));

t.test('the next batch is offered while the first is unanswered; the cursor waits for the first', async (t) => {
  const gw = await startTestGateway(t, env);
  // At least ten batches of three: more than a sink may hold offered.
  await entries(gw, 28);
  let release: () => void = () => {};
  const held = new Promise<void>((resolve) => (release = resolve));
  const hook = await sinkReceiver(t, async (n) => {
    if (n === 1) await held;
    return 204;
  });
  const created = (await devSession(gw, 'root').post('/api/v1/audit/sinks', { name: 'siem', url: hook.url })).body;

  await eventually(async () => hook.state.requests === 1, 10_000);
  const offered = await eventually(async () => {
    const listed = await deliveries(gw, created.id as number);
    return listed.length === 8 && listed;
  }, 10_000);
  t.match(
    offered,
    Array.from({ length: 8 }, () => ({ state: 'pending' })),
    'eight batches offered: one on its way, seven ready',
  );
  // Many offer and dispatch passes (every 50 ms) go by: nothing more is offered, nothing else is sent.
  await sleep(600);
  t.equal((await deliveries(gw, created.id as number)).length, 8, 'never more than eight batches offered');
  t.equal(hook.state.requests, 1, 'the batch behind is not sent while the first is unanswered');
  t.equal((await sinks(gw))[0]!.cursorPosition, 0, "the cursor stays at the first batch's start");

  release();
  const ids = await ledgerIds(gw);
  await eventually(async () => (await sinks(gw))[0]!.cursorPosition === ids.at(-1), 10_000);
  const froms = hook.state.arrivals.map((a) => a.batch.data.from);
  t.equal(froms[0], 0, 'the held batch is the first');
  for (const [i, a] of hook.state.arrivals.entries()) {
    if (i > 0) t.equal(a.batch.data.from, hook.state.arrivals[i - 1]!.batch.data.to, 'each batch after the one before');
  }
  t.strictSame(acceptedEntries(hook.state.arrivals), ids, 'every ledger entry, in order, none missing');
  t.doesNotThrow(() => verified(created.secret as string, hook.state.arrivals), 'every batch signed');
});

t.test('a batch retried holds the one behind it; entries arrive in order, none skipped', async (t) => {
  const gw = await startTestGateway(t, env);
  await entries(gw, 10);
  const hook = await sinkReceiver(t, async (n) => (n <= 4 ? 500 : 204));
  const created = (await devSession(gw, 'root').post('/api/v1/audit/sinks', { name: 'siem', url: hook.url })).body;

  const ids = await ledgerIds(gw);
  await eventually(async () => (await sinks(gw))[0]!.cursorPosition === ids.at(-1), 15_000);
  const [first, ...rest] = hook.state.arrivals;
  const retried = hook.state.arrivals.slice(0, 5);
  t.ok(
    retried.every((a) => a.id === first!.id),
    'the first batch is sent again until accepted, nothing else meanwhile',
  );
  t.strictSame(
    retried.map((a) => a.status),
    [500, 500, 500, 500, 204],
  );
  // The first attempt sends the body prepared when the batch was offered; the retries build it again.
  t.ok(
    retried.every((a) => a.body === first!.body),
    'every attempt of the batch sends the same bytes',
  );
  t.equal(first!.batch.data.from, 0);
  const accepted = hook.state.arrivals.filter((a) => a.status < 300);
  for (const [i, a] of accepted.entries()) {
    if (i > 0) t.equal(a.batch.data.from, accepted[i - 1]!.batch.data.to, 'no batch overtakes the one before');
  }
  t.ok(rest.length >= 3, 'the batches behind follow');
  t.strictSame(acceptedEntries(hook.state.arrivals), ids, 'every ledger entry, in order, none skipped');
  const listed = await deliveries(gw, created.id as number);
  t.ok(
    listed.every((d) => d.state === 'delivered'),
    'every batch delivered',
  );
  t.equal(listed.at(-1)!.attempts, 5, 'the first batch took its retries');
  t.doesNotThrow(() => verified(created.secret as string, hook.state.arrivals), 'every batch signed');
});

t.test('a batch failed for good fails the one behind it; the next offer starts again at the cursor', async (t) => {
  const gw = await startTestGateway(t, { ...env, GATEWAY_WEBHOOKS_MAX_ATTEMPTS: '2' });
  await entries(gw, 7);
  const hook = await sinkReceiver(t, async (n) => (n <= 2 ? 500 : 204));
  const created = (await devSession(gw, 'root').post('/api/v1/audit/sinks', { name: 'siem', url: hook.url })).body;

  const ids = await ledgerIds(gw);
  await eventually(async () => (await sinks(gw))[0]!.cursorPosition === ids.at(-1), 15_000);
  const oldest = (await deliveries(gw, created.id as number)).reverse();
  t.match(
    oldest.slice(0, 2),
    [
      { state: 'failed', attempts: 2 },
      { state: 'failed', attempts: 0, lastError: 'earlier-batch-failed' },
    ],
    'the first batch failed for good, the batch behind it with it',
  );
  const accepted = hook.state.arrivals.filter((a) => a.status < 300);
  t.equal(accepted[0]!.batch.data.from, 0, 'offered again from the unchanged cursor');
  t.strictSame(acceptedEntries(hook.state.arrivals), ids, 'every ledger entry, in order, none skipped');
  t.doesNotThrow(() => verified(created.secret as string, hook.state.arrivals), 'every batch signed');
});
