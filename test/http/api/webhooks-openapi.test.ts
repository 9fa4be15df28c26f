import { rmSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { Webhook } from 'standardwebhooks';
import t from 'tap';
import { devSession } from '../../support/api.ts';
import { eventually } from '../../support/assert.ts';
import { startTestGateway } from '../../support/gateway.ts';
import { cleanMarketplace } from '../../support/planted.ts';
import { receiver, type Received } from '../../support/receiver.ts';
import { serveUpstream } from '../../support/upstream.ts';

// The document's top-level webhooks object describes every event kind's body and the
// signature headers; it describes each outbound delivery, so receivers rely on the same additive promise as
// API clients (docs/api.md, Versioning). Real deliveries, checked against the schemas
// of the document the gateway serves.

const env = {
  GATEWAY_DEV_INSECURE_AUTH: 'true',
  GATEWAY_ROLES_ADMINS: 'root',
  GATEWAY_WEBHOOKS_POLL_INTERVAL: '50ms',
  GATEWAY_WEBHOOKS_BASE_BACKOFF: '50ms',
  GATEWAY_WEBHOOKS_MAX_BACKOFF: '100ms',
  GATEWAY_AUDIT_EXPORT_POLL_INTERVAL: '50ms',
  GATEWAY_AUDIT_EXPORT_LAG: '0s',
  GATEWAY_AUDIT_EXPORT_BATCH_SIZE: '5',
};

type Schema = Record<string, unknown>;
type Doc = {
  webhooks: Record<string, { post: { requestBody: { content: { 'application/json': { schema: Schema } } } } }>;
};
type Payload = { type: string; timestamp: string; data: Record<string, any> };

/**
 * The schema with every declared object closed: a receiver must accept new properties (the additive promise),
 * but this test also wants to know that nothing is sent the document does not describe.
 */
function closed(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(closed);
  if (typeof schema !== 'object' || schema === null) return schema;
  const copy = Object.fromEntries(Object.entries(schema).map(([k, v]) => [k, closed(v)]));
  return 'properties' in copy && !('additionalProperties' in copy) ? { ...copy, additionalProperties: false } : copy;
}

t.test('every delivery received validates against the webhooks object of the served OpenAPI document', async (t) => {
  const gw = await startTestGateway(t, env);
  const root = devSession(gw, 'root');
  const doc = (await root.get('/v3/api-docs')).body as Doc;
  const ajv = new Ajv2020({ strict: true, allErrors: true });
  addFormats.default(ajv);
  const bodySchema = (kind: string) => doc.webhooks[kind]!.post.requestBody.content['application/json'].schema;
  const validate = (kind: string, payload: unknown, close: boolean) => {
    const check = ajv.compile(close ? (closed(bodySchema(kind)) as Schema) : bodySchema(kind));
    return check(payload) ? null : ajv.errorsText(check.errors);
  };

  const hook = await receiver(t);
  const sink = await receiver(t);
  const subscribable = ((await root.get('/api/v1/webhooks/events')).body as { kind: string }[])
    .map((k) => k.kind)
    .filter((kind) => kind !== 'audit.batch');
  const subscriber = (await root.post('/api/v1/webhooks', { url: hook.url, events: subscribable })).body;
  const siem = (await root.post('/api/v1/audit/sinks', { name: 'siem', url: sink.url })).body;

  // What a lifecycle sends: registrations (upstream and hosted), captures, an approval (and the catalog
  // rebuilt), a rejection, a failed ingest, a removal withdrawing the approved snapshot.
  const upstream = await serveUpstream(t, cleanMarketplace(), 'acme');
  t.equal((await root.post('/api/v1/marketplaces', { name: 'acme', url: upstream.url })).status, 201);
  t.equal((await root.post('/api/v1/marketplaces', { name: 'pub', origin: 'hosted' })).status, 201);
  const first = (await root.post('/api/v1/marketplaces/acme/ingest')).body;
  t.equal((await root.post(`/api/v1/snapshots/${first.id}/approve`)).status, 200);
  await upstream.commit({ 'plugins/tidy/commands/tidy.md': '---\ndescription: tidy up\n---\nTidy it all.\n' });
  const second = (await root.post('/api/v1/marketplaces/acme/ingest')).body;
  t.equal((await root.post(`/api/v1/snapshots/${second.id}/reject`)).status, 200);
  // marketplace.snapshot.soft_deleted and .restored deliveries.
  t.equal((await root.delete(`/api/v1/snapshots/${second.id}`)).status, 200, 'soft-deleted by hand');
  t.equal((await root.post(`/api/v1/snapshots/${second.id}/restore`)).status, 200, 'restored');
  rmSync(upstream.bare, { recursive: true, force: true }); // the upstream repository goes away
  t.equal((await root.post('/api/v1/marketplaces/acme/ingest')).status, 502, 'a failed ingest');
  t.equal((await root.delete('/api/v1/marketplaces/acme', { reason: 'retired upstream' })).status, 200);

  const expected = [
    'marketplace.registered',
    'marketplace.snapshot.captured',
    'marketplace.snapshot.approved',
    'marketplace.snapshot.rejected',
    'marketplace.snapshot.soft_deleted',
    'marketplace.snapshot.restored',
    'marketplace.ingest_failed',
    'marketplace.removed',
    'marketplace.snapshot.revoked',
    'catalog.rebuilt',
  ];
  const kindsOf = (received: Received[]) => new Set(received.map((m) => (JSON.parse(m.body) as Payload).type));
  await eventually(async () => expected.every((kind) => kindsOf(hook.received).has(kind)));
  const ledgerHead = (await root.get('/api/v1/audit/sinks')).body[0].ledgerHead as number;
  const batches = await eventually(async () => {
    const all = sink.received.map((m) => new Webhook(siem.secret).verify(m.body, m.headers as never) as Payload);
    return all.some((b) => b.data.to >= ledgerHead) ? all : null;
  });

  const events = hook.received.map((m) => new Webhook(subscriber.secret).verify(m.body, m.headers as never) as Payload);
  for (const [what, payloads] of [
    ['subscriber', events],
    ['sink', batches],
  ] as const) {
    for (const payload of payloads) {
      t.equal(validate(payload.type, payload, false), null, `${what}: ${payload.type} matches its schema`);
      t.equal(validate(payload.type, payload, true), null, `${what}: ${payload.type} sends nothing undescribed`);
    }
  }
  t.ok(batches.length >= 2, 'batch-size 5: the ledger took several audit.batch deliveries');
  t.ok(
    batches.some((b) => b.data.entries.some((e: { marketplace_id: unknown }) => e.marketplace_id === null)),
    'an entry concerning no marketplace (marketplace_id null) among them',
  );

  // The schemas are precise: a missing, a mistyped or an unknown property is refused.
  const approved = events.find((p) => p.type === 'marketplace.snapshot.approved')!;
  const { sha: _sha, ...withoutSha } = approved.data;
  t.match(validate(approved.type, { ...approved, data: withoutSha }, false), /sha/, 'a missing property');
  t.match(validate(approved.type, { ...approved, data: { ...approved.data, snapshotId: '1' } }, false), /integer/);
  t.match(validate(approved.type, { ...approved, data: { ...approved.data, extra: 1 } }, true), /additional/);
  const batch = batches[0]!;
  const entry = { ...batch.data.entries[0], ts: 'yesterday' };
  t.match(validate('audit.batch', { ...batch, data: { ...batch.data, entries: [entry] } }, false), /date-time/);
  t.match(validate('catalog.rebuilt', approved, false), /const|type/, 'one kind is not another');
});

t.test('the webhooks object documents each kind with its required data and the signature headers', async (t) => {
  const gw = await startTestGateway(t, env);
  const doc = (await devSession(gw, 'root').get('/v3/api-docs')).body as Doc;
  const data = (kind: string) =>
    doc.webhooks[kind]!.post.requestBody.content['application/json'].schema.properties as Record<string, Schema>;
  t.match(data('marketplace.snapshot.revoked').data, {
    type: 'object',
    required: [
      'snapshotId',
      'marketplaceId',
      'marketplace',
      'sha',
      'reason',
      'administrative',
      'revokedAt',
      'revokedBy',
    ],
    properties: { administrative: { type: 'boolean', description: /removal/ } },
  });
  t.match(data('audit.batch').data, {
    required: ['sink', 'from', 'to', 'entries'],
    properties: {
      entries: {
        type: 'array',
        items: {
          required: [
            'id',
            'ts',
            'source',
            'principal',
            'actor_type',
            'marketplace',
            'marketplace_id',
            'event',
            'ref',
            'sha',
            'detail',
            'token_id',
          ],
          properties: { token_id: { anyOf: [{ type: 'integer' }, { type: 'null' }] } },
        },
      },
    },
  });
  for (const [kind, item] of Object.entries(doc.webhooks)) {
    const described = data(kind).data as { description?: string; properties: Record<string, { description?: string }> };
    const props = Object.entries(described.properties);
    t.ok(
      props.length > 0 || /not sent yet/.test(described.description ?? ''),
      `${kind}: its data is described, or said not to be sent yet`,
    );
    t.ok(
      props.every(([, p]) => (p.description ?? '').length > 0),
      `${kind}: a description for each property`,
    );
    t.strictSame(
      (item.post as unknown as { parameters: { name: string }[] }).parameters.map((p) => p.name),
      ['webhook-id', 'webhook-timestamp', 'webhook-signature'],
    );
  }
});
