import { Webhook } from 'standardwebhooks';
import t from 'tap';
import { devSession } from '../../support/api.ts';
import { assertNothingChanged, eventually, ledger } from '../../support/assert.ts';
import { startTestGateway, type TestGateway } from '../../support/gateway.ts';
import { receiver, type Received } from '../../support/receiver.ts';
import { faultHarness, sessionClient } from '../../faults/support.ts';

// A small batch size so a short ledger takes several batches; a fast schedule and retry.
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
};

type Sink = { id: number; name: string; cursorPosition: number; ledgerHead: number; behind: number; enabled: boolean };
type ExportEntry = { id: number; event: string; principal: string; actor_type: string };
type Batch = { type: string; data: { sink: string; from: number; to: number; entries: ExportEntry[] } };

const sinks = async (gw: TestGateway) => (await devSession(gw, 'root').get('/api/v1/audit/sinks')).body as Sink[];

/** Every batch verified with the standardwebhooks package, as a receiver would. */
const batches = (secret: string, received: Received[]) =>
  received.map((m) => new Webhook(secret).verify(m.body, m.headers as Record<string, string>) as Batch);

/** The entries of every batch in arrival order, de-duplicated on the entry id (the de-duplication key). */
function deduplicated(all: Batch[]): ExportEntry[] {
  const seen = new Set<number>();
  return all.flatMap((b) => b.data.entries).filter((e) => !seen.has(e.id) && seen.add(e.id));
}

t.test('audit sinks: create, list, cursor, delete, every refusal with nothing changed', async (t) => {
  const gw = await startTestGateway(t, env);
  const root = devSession(gw, 'root');
  const nobody = devSession(gw, 'nobody');
  t.equal((await root.post('/api/v1/roles', { principal: 'watcher', role: 'auditor' })).status, 201);
  const body = { name: 'siem', url: 'http://127.0.0.1:9/sink' };

  // Audit sink create, delete, cursor reset are admin acts; the listing is auditor or admin.
  for (const [call, what] of [
    [() => nobody.post('/api/v1/audit/sinks', body), 'create'],
    [() => nobody.get('/api/v1/audit/sinks'), 'list'],
    [() => devSession(gw, 'watcher').post('/api/v1/audit/sinks', body), "an auditor's create"],
    [() => nobody.put('/api/v1/audit/sinks/1/cursor', { position: 0 }), 'cursor'],
    [() => nobody.delete('/api/v1/audit/sinks/1'), 'delete'],
  ] as const) {
    t.equal((await assertNothingChanged(t, gw, call, what)).status, 403, `${what} is refused`);
  }

  // 400 disallowed scheme; ... 422 bad name; a URL with credentials is refused as well.
  for (const [bad, status, why] of [
    [{ ...body, url: 'ftp://127.0.0.1/sink' }, 400, 'a scheme outside gateway.allowed-url-schemes'],
    [{ ...body, url: 'http://user:pw@127.0.0.1/sink' }, 400, 'credentials in the URL'],
    [{ ...body, name: 'Siem' }, 422, 'a name outside ^[a-z0-9][a-z0-9_-]*$'],
    [{ ...body, name: '-siem' }, 422, 'a name starting with a dash'],
  ] as const) {
    const answer = await assertNothingChanged(t, gw, () => root.post('/api/v1/audit/sinks', bad), why);
    t.equal(answer.status, status, why);
  }

  // 201 with show-once signing secret
  const created = await root.post('/api/v1/audit/sinks', body);
  t.equal(created.status, 201);
  t.match(created.body, {
    name: 'siem',
    url: body.url,
    enabled: true,
    cursorPosition: 0,
    secret: /^whsec_[A-Za-z0-9+/=]+$/,
  });
  const id = created.body.id as number;

  const taken = await assertNothingChanged(t, gw, () => root.post('/api/v1/audit/sinks', body), 'a name taken');
  t.equal(taken.status, 409, 'spec: 409 name taken');

  // List with cursorPosition, ledgerHead, behind; secrets never returned
  const listed = await devSession(gw, 'watcher').get('/api/v1/audit/sinks');
  t.equal(listed.status, 200, 'an auditor lists the sinks');
  const [sink] = listed.body as Sink[];
  t.match(sink, { id, name: 'siem', enabled: true, cursorPosition: Number, ledgerHead: Number, behind: Number });
  t.notOk(JSON.stringify(listed.body).includes('whsec_'), 'no secret in the listing');
  t.notOk(JSON.stringify(listed.body).includes(created.body.secret), 'not the secret itself');
  t.ok(sink!.ledgerHead >= 1 && sink!.behind >= 1, 'the sink creation itself is behind the cursor');

  for (const [call, what] of [
    [() => root.put('/api/v1/audit/sinks/999/cursor', { position: 0 }), 'the cursor of an unknown sink'],
    [() => root.delete('/api/v1/audit/sinks/999'), 'deleting an unknown sink'],
  ] as const) {
    t.equal((await assertNothingChanged(t, gw, call, what)).status, 404, `${what}: 404`);
  }

  // Creation and deletion (and cursor changes) are recorded with the acting admin.
  const reset = await root.put(`/api/v1/audit/sinks/${id}/cursor`, { position: 0 });
  t.equal(reset.status, 200, 'spec: 200 with the sink');
  t.match(reset.body, { id, cursorPosition: 0 });
  t.equal((await root.delete(`/api/v1/audit/sinks/${id}`)).status, 204);
  t.strictSame(await sinks(gw), [], 'the sink is gone');
  for (const event of ['audit-sink-created', 'audit-sink-cursor-set', 'audit-sink-deleted']) {
    t.match(
      await ledger(gw, event),
      [{ principal: 'root', actor_type: 'human', detail: /audit sink \d+ 'siem'/ }],
      event,
    );
  }
  t.notOk(JSON.stringify(await ledger(gw)).includes('whsec_'), 'no secret on the ledger');
});

t.test('a sink receives every ledger entry in order across batches; a 500 is retried, the cursor waits', async (t) => {
  const gw = await startTestGateway(t, env);
  const root = devSession(gw, 'root');
  // Ledger entries to push: webhook subscribers nobody sends to (each creation is one entry).
  for (let i = 0; i < 7; i += 1) {
    await root.post('/api/v1/webhooks', { url: 'http://127.0.0.1:9/x', events: ['catalog.rebuilt'] });
  }
  let failing = true;
  const hook = await receiver(t, () => (failing ? 500 : 204));
  const created = (await root.post('/api/v1/audit/sinks', { name: 'siem', url: hook.url })).body;

  // The cursor advances only when that delivery is delivered
  await eventually(async () => hook.received.length >= 3, 10_000);
  const [sinkWhileFailing] = await sinks(gw);
  t.equal(sinkWhileFailing!.cursorPosition, 0, 'the cursor does not move while the receiver answers 500');
  const ids = new Set(hook.received.map((m) => m.headers['webhook-id']));
  t.equal(ids.size, 1, 'every retry carries the same webhook-id');
  t.equal(new Set(hook.received.map((m) => m.body)).size, 1, 'and the same body');
  failing = false;

  const entries = await ledger(gw);
  const head = Number(entries.at(-1)!.id);
  await eventually(async () => (await sinks(gw))[0]!.cursorPosition === head, 10_000);
  const [sink] = await sinks(gw);
  t.match(sink, { cursorPosition: head, ledgerHead: head, behind: 0 });

  const all = batches(created.secret, hook.received);
  t.ok(
    all.every((b) => b.type === 'audit.batch' && b.data.sink === 'siem'),
    'every body is an audit.batch',
  );
  t.ok(
    all.every((b) => b.data.entries.length <= 3),
    'gateway.audit-export.batch-size bounds each batch',
  );
  const received = deduplicated(all);
  t.strictSame(
    received.map((e) => e.id),
    entries.map((e) => Number(e.id)),
    'every ledger entry, in ledger order, none missing',
  );
  const byDelivery = new Map(hook.received.map((m, i) => [m.headers['webhook-id'], all[i]!] as const));
  const delivered = [...byDelivery.values()];
  for (const [i, b] of delivered.entries()) {
    if (i > 0) t.equal(b.data.from, delivered[i - 1]!.data.to, 'each batch starts after the one before');
    t.equal(b.data.to, b.data.entries.at(-1)!.id, 'to is the last entry of the batch');
  }
  // Entries in the export's form.
  const exported = (await root.get('/api/v1/audit/export?after=0')).text as string;
  t.strictSame(
    received,
    exported
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as ExportEntry),
    'the export form',
  );
  // Byte for byte: a batch's entries are the export's lines of its span, joined.
  const lines = new Map(
    exported
      .trim()
      .split('\n')
      .map((line) => [(JSON.parse(line) as ExportEntry).id, line] as const),
  );
  t.ok(
    hook.received.every((m, i) => {
      const ids = all[i]!.data.entries.map((e) => e.id);
      return m.body.includes(`"entries":[${ids.map((id) => lines.get(id)).join(',')}]`);
    }),
    "each batch body holds the export's bytes of its entries",
  );

  // Listed with the webhook deliveries, sinkId set.
  const deliveries = (await root.get(`/api/v1/webhooks/deliveries?sink=${created.id}`)).body.deliveries as unknown[];
  t.ok(deliveries.length >= 3, 'several batches');
  t.match(deliveries[deliveries.length - 1], {
    sinkId: created.id,
    subscriberId: null,
    event: 'audit.batch',
    state: 'delivered',
    attempts: Number,
  });
  t.ok((deliveries.at(-1) as { attempts: number }).attempts >= 3, 'the first batch took its retries');

  // A replay (PUT cursor) re-sends from the new position.
  const before = hook.received.length;
  const replayFrom = Number(entries[3]!.id);
  t.equal((await root.put(`/api/v1/audit/sinks/${created.id}/cursor`, { position: replayFrom })).status, 200);
  const newHead = Number((await ledger(gw)).at(-1)!.id);
  await eventually(async () => (await sinks(gw))[0]!.cursorPosition === newHead, 10_000);
  const replayed = deduplicated(batches(created.secret, hook.received.slice(before)));
  t.strictSame(
    replayed.map((e) => e.id),
    (await ledger(gw)).map((e) => Number(e.id)).filter((id) => id > replayFrom),
    'the replay re-sends every entry after the new position, in order',
  );
});

t.test('killed with SIGKILL mid-push and restarted, the sink still gets every entry in order', async (t) => {
  // After the gateway is killed with SIGKILL mid-push and restarted (duplicates allowed,
  // de-duplicated on entry id). `gateway serve` as a child process on a data directory of its own.
  const harness = faultHarness(t, env);
  let gateway = await harness.start();
  const root = sessionClient(() => gateway.url);
  for (let i = 0; i < 7; i += 1) {
    await root.post('/api/v1/webhooks', { url: 'http://127.0.0.1:9/x', events: ['catalog.rebuilt'] });
  }
  let killed: Promise<unknown> | null = null;
  const hook = await receiver(t, () => {
    // The second batch arrives: the gateway dies before it learns of the answer.
    if (hook.received.length === 2 && !killed) {
      gateway.child.kill('SIGKILL');
      killed = gateway.exited;
    }
    return 204;
  });
  const created = (await root.post('/api/v1/audit/sinks', { name: 'siem', url: hook.url })).body;
  await eventually(async () => killed !== null, 30_000);
  await killed;
  gateway = await harness.start();

  const caughtUp = async () => {
    const [sink] = (await root.get('/api/v1/audit/sinks')).body as Sink[];
    return sink!.behind === 0 && sink!.cursorPosition === sink!.ledgerHead && sink;
  };
  const sink = await eventually(caughtUp, 30_000);
  const exported = (await root.get('/api/v1/audit/export?after=0')).text.trim().split('\n');
  const ids = exported.map((line) => (JSON.parse(line) as ExportEntry).id);
  t.equal(ids.at(-1), sink.ledgerHead, 'the export reaches the ledger head');
  t.strictSame(
    deduplicated(batches(created.secret, hook.received)).map((e) => e.id),
    ids,
    'every entry in ledger order, none missing',
  );
  t.ok(hook.received.length >= 3, 'several batches, the one cut off sent again');
});
