// Small refusals and leaks (decision 357): a sink cursor past the ledger's head is refused; the event kinds a
// subscriber is offered are the ones it may subscribe to; credentials in a query string reach neither the
// request log nor the ledger.
import { Writable } from 'node:stream';
import t from 'tap';
import { createLogger, startGateway } from '../../../src/gateway.ts';
import { devSession } from '../../support/api.ts';
import { assertNothingChanged } from '../../support/assert.ts';
import { startTestGateway, testConfig } from '../../support/gateway.ts';

const env = { GATEWAY_DEV_INSECURE_AUTH: 'true', GATEWAY_ROLES_ADMINS: 'root' };

t.test("a sink's cursor past the ledger's head: 422 naming the head, nothing changed", async (t) => {
  const gw = await startTestGateway(t, env);
  const root = devSession(gw, 'root');
  const created = await root.post('/api/v1/audit/sinks', { name: 'siem', url: 'http://127.0.0.1:9/sink' });
  t.equal(created.status, 201);
  const id = created.body.id as number;
  const head = (await root.get('/api/v1/audit?limit=1')).body.entries[0].id as number;

  const refused = await assertNothingChanged(
    t,
    gw,
    () => root.put(`/api/v1/audit/sinks/${id}/cursor`, { position: 999999 }),
    'a cursor past the head',
  );
  t.equal(refused.status, 422, refused.text);
  t.match(refused.body, {
    type: /\/problems\/invalid-request$/,
    detail: new RegExp(`position 999999 is past the ledger's head, entry ${head}`),
    ledgerHead: head,
  });
  const [sink] = (await root.get('/api/v1/audit/sinks')).body as Array<{ cursorPosition: number }>;
  t.equal(sink?.cursorPosition, 0, 'the cursor did not move');

  const atHead = await root.put(`/api/v1/audit/sinks/${id}/cursor`, { position: head });
  t.equal(atHead.status, 200, 'the head itself is a cursor');
  t.equal(atHead.body.cursorPosition, head);
});

t.test('GET /api/v1/webhooks/events lists only kinds a subscriber may subscribe to', async (t) => {
  const gw = await startTestGateway(t, env);
  const root = devSession(gw, 'root');
  const kinds = ((await root.get('/api/v1/webhooks/events')).body as Array<{ kind: string }>).map((k) => k.kind);
  t.ok(kinds.length > 0);
  t.notOk(kinds.includes('audit.batch'), 'audit.batch (sinks only) is not offered');
  const subscribed = await root.post('/api/v1/webhooks', { url: 'http://127.0.0.1:9/in', events: kinds });
  t.equal(subscribed.status, 201, `every kind listed is accepted: ${subscribed.text}`);
  const sinkOnly = await root.post('/api/v1/webhooks', { url: 'http://127.0.0.1:9/in', events: ['audit.batch'] });
  t.equal(sinkOnly.status, 422, 'as before, audit.batch is refused to a subscriber');
});

t.test("a webhook URL's query string is masked on the ledger", async (t) => {
  const gw = await startTestGateway(t, env);
  const root = devSession(gw, 'root');
  const url = 'http://127.0.0.1:9/in?token=s3cr3t-query-token&tenant=acme';
  const subscriber = await root.post('/api/v1/webhooks', { url, events: ['catalog.rebuilt'] });
  t.equal(subscriber.status, 201);
  t.equal((await root.delete(`/api/v1/webhooks/${subscriber.body.id}`)).status, 204);
  const sink = await root.post('/api/v1/audit/sinks', { name: 'siem', url: 'http://127.0.0.1:9/sink?sig=s3cr3t-sig' });
  t.equal(sink.status, 201);

  const ledger = await root.get('/api/v1/audit?limit=100');
  const details = (ledger.body.entries as Array<{ event: string; detail: string }>).map(
    (e) => `${e.event}: ${e.detail}`,
  );
  t.notMatch(ledger.text, /s3cr3t/, 'no query value on the ledger');
  t.ok(
    details.includes(
      `webhook-subscriber-created: webhook subscriber ${subscriber.body.id}: http://127.0.0.1:9/in?token=***&tenant=***`,
    ),
    details.join('\n'),
  );
  t.ok(details.some((d) => d.startsWith('webhook-subscriber-deleted:') && d.endsWith('/in?token=***&tenant=***')));
  t.ok(
    details.some((d) => d.endsWith(`'siem': http://127.0.0.1:9/sink?sig=***`)),
    'the sink URL too',
  );
  const exported = await root.get('/api/v1/audit/export?limit=1000');
  t.notMatch(exported.text, /s3cr3t/, 'nor in the export');
  t.match(
    (await root.get('/api/v1/audit/sinks')).body,
    [{ url: 'http://127.0.0.1:9/sink?sig=s3cr3t-sig' }],
    'the sink listing keeps the URL as given: it is where batches go',
  );
});

t.test('credentials in a query string are redacted in the request log', async (t) => {
  let logged = '';
  const sink = new Writable({
    write(chunk, _encoding, done) {
      logged += chunk.toString();
      done();
    },
  });
  const config = await testConfig(t, { GATEWAY_LOG_LEVEL: 'info' });
  const gw = await startGateway(config, createLogger(config, sink));
  t.teardown(() => gw.close());
  const paths = [
    '/login/oauth2/code/idp?code=c0de-AAAA&state=st4te-BBBB&iss=http%3A%2F%2Fidp.example',
    '/api/v1/audit?limit=5&token=t0ken-CCCC&access_token=t0ken-DDDD',
    '/api/v1/tokens?client_secret=s3cret-EEEE&password=passw0rd-FFFF&id_token=t0ken-GGGG',
    '/status/v1/holdings?refresh_token=t0ken-HHHH&signature=s1g-IIII',
  ];
  for (const path of paths) await (await fetch(`${gw.url}${path}`, { redirect: 'manual' })).body?.cancel();
  await new Promise((resolve) => setTimeout(resolve, 100));
  for (const path of paths) t.match(logged, path.split('?')[0]!, `${path.split('?')[0]} was logged`);
  t.notMatch(logged, /AAAA|BBBB|CCCC|DDDD|EEEE|FFFF|GGGG|HHHH|IIII/, 'no credential value in the log');
  t.match(logged, '/login/oauth2/code/idp?code=[redacted]&state=[redacted]&iss=http%3A%2F%2Fidp.example');
  t.match(logged, '/api/v1/audit?limit=5&token=[redacted]&access_token=[redacted]', 'other parameters are kept');
});
