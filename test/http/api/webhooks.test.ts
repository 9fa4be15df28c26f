import t from 'tap';
import { sql } from '../../../src/adapters/postgres/pool.ts';
import { devSession } from '../../support/api.ts';
import { assertNothingChanged, eventually, expectJson, ledger, machine, tokenRow } from '../../support/assert.ts';
import { startTestGateway } from '../../support/gateway.ts';

const env = { GATEWAY_DEV_INSECURE_AUTH: 'true', GATEWAY_ROLES_ADMINS: 'root,hook-bot' };
const receiver = 'http://127.0.0.1:9/hooks';

t.test('webhook subscribers: create, list, delete, event kinds, every refusal with nothing changed', async (t) => {
  const gw = await startTestGateway(t, env);
  const root = devSession(gw, 'root');
  const nobody = devSession(gw, 'nobody');
  const body = { url: receiver, events: ['marketplace.snapshot.revoked'], description: 'revocations' };

  // Admin only
  for (const [call, what] of [
    [() => nobody.post('/api/v1/webhooks', body), 'create'],
    [() => nobody.get('/api/v1/webhooks'), 'list'],
    [() => nobody.get('/api/v1/webhooks/events'), 'event kinds'],
    [() => nobody.delete('/api/v1/webhooks/1'), 'delete'],
  ] as const) {
    t.equal((await assertNothingChanged(t, gw, call, `a non-admin's ${what}`)).status, 403, `${what} is admin only`);
  }

  // 400 for a URL outside gateway.allowed-url-schemes or carrying credentials, query secrets aside;
  // 422 for an unknown event kind or an empty list
  for (const [bad, status, why] of [
    [{ ...body, url: 'ftp://127.0.0.1/hooks' }, 400, 'a scheme outside gateway.allowed-url-schemes'],
    [{ ...body, url: 'http://user:pw@127.0.0.1/hooks' }, 400, 'credentials in the URL'],
    [{ ...body, url: 'not a url' }, 400, 'an unparsable URL'],
    [{ ...body, events: [] }, 422, 'an empty event list'],
    [{ ...body, events: ['marketplace.snapshot.revoked', 'no.such.kind'] }, 422, 'an unknown event kind'],
    [{ ...body, events: ['audit.batch'] }, 422, 'audit.batch is for sinks only'],
  ] as const) {
    const answer = await assertNothingChanged(t, gw, () => root.post('/api/v1/webhooks', bad), why);
    t.equal(answer.status, status, why);
    if (status === 400) t.match(answer.body, { type: /\/problems\/trust-boundary$/ });
  }

  const created = await root.post('/api/v1/webhooks', body);
  t.equal(created.status, 201, 'a valid webhook is created: 201');
  t.match(created.body, {
    id: Number,
    url: receiver,
    events: ['marketplace.snapshot.revoked'],
    description: 'revocations',
    enabled: true,
    createdAt: /^\d{4}-/,
    createdBy: 'root',
    secret: /^whsec_[A-Za-z0-9+/]+=*$/,
  });
  const secret = created.body.secret as string;
  t.ok(Buffer.from(secret.slice('whsec_'.length), 'base64').length >= 24, 'whsec_<base64 of 24+ random bytes>');
  const stored = await gw.core.pool.anyFirst(sql.unsafe`select sealed_secret from webhook_subscribers`);
  t.equal(stored.length, 1);
  t.notMatch(String(stored[0]), secret.slice('whsec_'.length), 'stored sealed, not in clear');
  t.match(await ledger(gw, 'webhook-subscriber-created'), [{ principal: 'root', detail: new RegExp(receiver) }]);

  // A query secret is not userinfo: a URL may carry one.
  const withQuery = await root.post('/api/v1/webhooks', {
    url: 'https://example.test/in?token=abc',
    events: ['catalog.rebuilt', 'marketplace.registered'],
  });
  t.equal(withQuery.status, 201, 'a secret in the query is allowed');
  t.equal(withQuery.body.description, null, 'description is optional');

  const listed = await root.get('/api/v1/webhooks');
  t.equal(listed.status, 200);
  t.equal(listed.body.length, 2);
  t.notOk(listed.text.includes('secret'), 'GET never answers the secret');
  t.notOk(listed.text.includes(secret), 'not even its value');

  const kinds = await root.get('/api/v1/webhooks/events');
  t.equal(kinds.status, 200);
  const names = (kinds.body as { kind: string; description: string }[]).map((k) => k.kind);
  for (const kind of [
    'marketplace.snapshot.revoked',
    'marketplace.snapshot.soft_deleted',
    'marketplace.snapshot.restored',
    'marketplace.snapshot.captured',
    'marketplace.snapshot.approved',
    'marketplace.snapshot.rejected',
    'marketplace.registered',
    'marketplace.removed',
    'marketplace.ingest_failed',
    'catalog.rebuilt',
  ]) {
    t.ok(names.includes(kind), `the event kinds list ${kind}`);
  }
  t.notOk(names.includes('audit.batch'), 'audit.batch is for sinks only: not listed, since subscribing to it is a 422');
  t.ok(
    (kinds.body as { description: string }[]).every((k) => k.description.length > 0),
    'each with a description',
  );
  // The OpenAPI document's top-level webhooks object describes every kind and the headers.
  const doc = (await root.get('/v3/api-docs')).body as {
    webhooks: Record<string, { post: { parameters: { name: string }[]; requestBody: unknown } }>;
  };
  t.strictSame(
    Object.keys(doc.webhooks).sort(),
    [...names, 'audit.batch'].sort(),
    "one entry per event kind, the sinks' audit.batch included",
  );
  t.strictSame(
    doc.webhooks['marketplace.snapshot.revoked']!.post.parameters.map((p) => p.name),
    ['webhook-id', 'webhook-timestamp', 'webhook-signature'],
  );
  t.match(doc.webhooks['marketplace.snapshot.revoked']!.post.requestBody, {
    content: { 'application/json': { schema: { required: ['type', 'timestamp', 'data'] } } },
  });

  const missing = await assertNothingChanged(t, gw, () => root.delete('/api/v1/webhooks/999'), 'deleting nothing');
  t.equal(missing.status, 404, 'deleting an unknown webhook: 404');
  t.equal((await root.delete(`/api/v1/webhooks/${created.body.id}`)).status, 204, 'deleting the webhook: 204');
  t.equal((await root.delete(`/api/v1/webhooks/${created.body.id}`)).status, 404, 'gone');
  t.strictSame(
    ((await root.get('/api/v1/webhooks')).body as { id: number }[]).map((s) => s.id),
    [withQuery.body.id],
  );
  t.match(await ledger(gw, 'webhook-subscriber-deleted'), [{ principal: 'root', detail: new RegExp(receiver) }]);
});

t.test('machine credentials: webhooks:read lists, webhooks:write creates (spec, scope table)', async (t) => {
  const gw = await startTestGateway(t, env);
  const root = devSession(gw, 'root');
  const credential = async (apiScopes: string[]) =>
    (
      await root.post('/api/v1/tokens/machine', {
        principal: 'hook-bot',
        name: apiScopes.join(' ') || 'none',
        apiScopes,
        expiresAt: new Date(Date.now() + 86_400_000).toISOString(),
      })
    ).body as { id: number; token: string };
  const reader = await credential(['webhooks:read']);
  const writer = await credential(['webhooks:write']);
  const asReader = machine(gw, reader.token);
  const asWriter = machine(gw, writer.token);

  await expectJson(t, await asReader.get('/api/v1/webhooks'), 200, 'webhooks:read: GET /api/v1/webhooks');
  await expectJson(t, await asReader.get('/api/v1/webhooks/events'), 200, 'webhooks:read: GET /events');
  await eventually(async () => (await tokenRow(gw, reader.id))?.last_used_at);
  const refused = await assertNothingChanged(
    t,
    gw,
    () => asReader.post('/api/v1/webhooks', { url: receiver, events: ['catalog.rebuilt'] }),
    'a reader creating',
  );
  t.equal(refused.status, 403, 'webhooks:read does not create');
  const made = await expectJson<{ id: number; createdBy: string }>(
    t,
    await asWriter.post('/api/v1/webhooks', { url: receiver, events: ['catalog.rebuilt'] }),
    201,
  );
  t.equal(made.createdBy, 'hook-bot', 'the acting machine principal');
  t.equal((await asWriter.delete(`/api/v1/webhooks/${made.id}`)).status, 204, 'webhooks:write deletes');
});
