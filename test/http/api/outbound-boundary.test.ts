import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { devSession } from '../../support/api.ts';
import { assertNothingChanged, eventually } from '../../support/assert.ts';
import { startTestGateway } from '../../support/gateway.ts';
import { serveMirrorForge } from '../../support/mirror-forge.ts';
import { receiver } from '../../support/receiver.ts';
import { marketplaceFiles, serveUpstream } from '../../support/upstream.ts';

// The outbound boundary (decisions 340-343). Loopback is reachable by default; here 127.0.0.1 alone is
// denied, so a server on 127.0.0.1 stands for a denied address (it counts what reaches it: nothing must)
// and a server on 127.0.0.2 for an allowed one. `localhost` resolves to 127.0.0.1: refused too, which
// shows the check is on the resolved address. The gateway's own database connection over loopback is no
// outbound request and goes on working.
const allowed = '127.0.0.2';
const byName = (url: string) => url.replace('//127.0.0.1:', '//localhost:');
const rule = 'gateway.outbound.deny-networks (127.0.0.1/32)';
const literalDenied = new RegExp(`127\\.0\\.0\\.1 is inside ${rule.replace(/[.()/]/g, '\\$&')}`);
const nameDenied = new RegExp(`localhost resolves to 127\\.0\\.0\\.1, inside ${rule.replace(/[.()/]/g, '\\$&')}`);

const forge = await serveMirrorForge(t, 'mirror', 'mirror-password');
await forge.create('acme');
const gw = await startTestGateway(t, {
  GATEWAY_DEV_INSECURE_AUTH: 'true',
  GATEWAY_ROLES_ADMINS: 'root',
  GATEWAY_OUTBOUND_DENY_NETWORKS: '127.0.0.1/32,169.254.0.0/16',
  GATEWAY_INGEST_EXTERNAL_HOSTS: `127.0.0.1,${allowed},localhost`,
  GATEWAY_WEBHOOKS_POLL_INTERVAL: '50ms',
  GATEWAY_WEBHOOKS_BASE_BACKOFF: '50ms',
  GATEWAY_WEBHOOKS_MAX_BACKOFF: '100ms',
  GATEWAY_AUDIT_EXPORT_POLL_INTERVAL: '50ms',
  GATEWAY_AUDIT_EXPORT_LAG: '0s',
  GATEWAY_MIRROR_URL: byName(forge.template),
});
const root = devSession(gw, 'root');

type Delivery = { subscriberId: number | null; sinkId: number | null; attempts: number; lastError: string | null };
const deliveries = async () =>
  ((await root.get('/api/v1/webhooks/deliveries')).body as { deliveries: Delivery[] }).deliveries;

/** Registers `name` on an upstream at an allowed address (what the other surfaces need an event from). */
async function allowedMarketplace(name: string) {
  const upstream = await serveUpstream(t, marketplaceFiles(name, ['alpha']), name, allowed);
  const answer = await root.post('/api/v1/marketplaces', { name, url: upstream.url });
  if (answer.status !== 201) throw new Error(`registering ${name}: ${answer.text}`);
  return upstream;
}

t.test('registration: an upstream at, or resolving to, a denied address answers 400 naming the rule', async (t) => {
  const target = await serveUpstream(t, marketplaceFiles('acme', ['alpha']), 'target');
  const cases: Array<[string, string, RegExp]> = [
    ['an IP-literal host', target.url, literalDenied],
    ['a host name that resolves to a denied address', byName(target.url), nameDenied],
    ['an IPv4-mapped IPv6 host', target.url.replace('//127.0.0.1:', '//[::ffff:127.0.0.1]:'), literalDenied],
    [
      'the cloud metadata address',
      'http://169.254.169.254/latest/meta-data/iam.git',
      /169\.254\.169\.254 is inside gateway\.outbound\.deny-networks \(169\.254\.0\.0\/16\)/,
    ],
  ];
  for (const [what, url, detail] of cases) {
    const answer = await assertNothingChanged(
      t,
      gw,
      () => root.post('/api/v1/marketplaces', { name: 'acme', url }),
      what,
    );
    t.equal(answer.status, 400, what);
    t.match(
      answer.body,
      {
        type: /\/problems\/trust-boundary$/,
        detail: new RegExp(`^the upstream url is outside the outbound boundary: ${detail.source}`),
        rule: 'gateway.outbound.deny-networks',
        nextStep: /gateway\.outbound\.deny-networks/,
      },
      what,
    );
  }
  t.equal((await root.get('/api/v1/marketplaces/acme')).status, 404, 'nothing registered');
  t.equal(target.hits(), 0, 'the denied upstream received no request');

  // A redirect cannot leave the boundary: git follows it through the gate, which refuses the new host.
  const redirector = createServer((req, res) => {
    res.writeHead(302, { location: `${target.url.replace(/\/target\.git$/, '')}${req.url}` });
    res.end();
  });
  await new Promise<void>((resolve) => redirector.listen(0, allowed, resolve));
  t.teardown(() => new Promise<void>((resolve) => redirector.close(() => resolve())));
  const redirecting = `http://${allowed}:${(redirector.address() as AddressInfo).port}/target.git`;
  const answer = await root.post('/api/v1/marketplaces', { name: 'redirected', url: redirecting });
  t.equal(answer.status, 502, 'the upstream read fails');
  t.match(answer.body, { type: /\/problems\/upstream-unreadable$/, rootCause: literalDenied });
  t.equal(target.hits(), 0, 'the redirect target received no request');

  const control = await allowedMarketplace('acme');
  t.ok(control.hits() > 0, 'an upstream at an allowed address registers (and the database on loopback works)');
});

t.test(
  'external plugin sources: a denied address and a host off gateway.ingest.external-hosts withhold the plugin',
  async (t) => {
    const plugin = (name: string) => ({
      '.claude-plugin/plugin.json': JSON.stringify({ name }),
      'commands/x.md': 'X.\n',
    });
    const good = await serveUpstream(t, plugin('good'), 'good', allowed);
    const bad = await serveUpstream(t, plugin('bad'), 'bad');
    const far = await serveUpstream(t, plugin('far'), 'far', '127.0.0.3');
    const upstream = await serveUpstream(
      t,
      {
        '.claude-plugin/marketplace.json': JSON.stringify({
          name: 'mixed',
          owner: { name: 'Upstream' },
          plugins: [
            { name: 'local', source: './plugins/local' },
            { name: 'good', source: { source: 'url', url: good.url } },
            { name: 'bad', source: { source: 'url', url: `${bad.url}/latest/meta-data` } },
            { name: 'named', source: { source: 'url', url: byName(bad.url) } },
            { name: 'far', source: { source: 'url', url: far.url } },
          ],
        }),
        'plugins/local/.claude-plugin/plugin.json': '{"name":"local"}',
      },
      'mixed',
      allowed,
    );
    t.equal((await root.post('/api/v1/marketplaces', { name: 'mixed', url: upstream.url })).status, 201);
    const snapshot = await root.post('/api/v1/marketplaces/mixed/ingest');
    t.equal(snapshot.status, 201, 'the ingest does not fail: the plugins are withheld');
    t.equal(snapshot.body.state, 'held', snapshot.text);
    t.match(snapshot.body.unresolved, [
      {
        plugin: 'bad',
        reason: new RegExp(`^external plugin source of 'bad' outside the outbound boundary: ${literalDenied.source}`),
        nextStep: /gateway\.outbound\.deny-networks/,
      },
      {
        plugin: 'named',
        reason: new RegExp(`^external plugin source of 'named' outside the outbound boundary: ${nameDenied.source}`),
      },
      {
        plugin: 'far',
        reason: "external plugin source host '127.0.0.3' is not in gateway.ingest.external-hosts",
        nextStep: /gateway\.ingest\.external-hosts/,
      },
    ]);
    t.equal(snapshot.body.unresolved.length, 3, 'the allowed source is resolved');
    t.equal(bad.hits(), 0, 'the denied source received no request');
    t.equal(far.hits(), 0, 'the off-list source received no request');
    t.ok(good.hits() > 0, 'the allowed source was fetched');
  },
);

t.test('webhooks: a literal denied URL is refused at creation; a delivery is refused at connect time', async (t) => {
  for (const url of ['http://127.0.0.1:9/hook', 'http://[::ffff:169.254.169.254]/hook']) {
    const answer = await assertNothingChanged(t, gw, () =>
      root.post('/api/v1/webhooks', { url, events: ['marketplace.registered'] }),
    );
    t.equal(answer.status, 400, url);
    t.match(answer.body, { detail: /^the webhook url is outside the outbound boundary: .* is inside gateway/ }, url);
  }
  const hook = await receiver(t);
  const control = await receiver(t, () => 204, allowed);
  const refused = await root.post('/api/v1/webhooks', { url: byName(hook.url), events: ['marketplace.registered'] });
  t.equal(refused.status, 201, 'a host name is resolved when a delivery connects, not at creation');
  await root.post('/api/v1/webhooks', { url: control.url, events: ['marketplace.registered'] });
  await allowedMarketplace('hooked');
  await eventually(async () => control.received.length >= 1);
  await eventually(async () =>
    (await deliveries()).some((d) => d.subscriberId === refused.body.id && d.lastError !== null),
  );
  const failed = (await deliveries()).find((d) => d.subscriberId === refused.body.id)!;
  t.ok(failed.attempts >= 1, 'the delivery was attempted');
  t.match(failed.lastError, new RegExp(`^refused at the outbound boundary: ${nameDenied.source}`), 'the reason');
  t.equal(hook.received.length, 0, 'the receiver on the denied address received nothing');
});

t.test(
  'audit sinks: a literal denied URL is refused at creation; a batch push is refused at connect time',
  async (t) => {
    const answer = await assertNothingChanged(t, gw, () =>
      root.post('/api/v1/audit/sinks', { name: 'near', url: 'http://127.0.0.1:9/sink' }),
    );
    t.equal(answer.status, 400);
    t.match(answer.body, {
      detail: new RegExp(`^the sink url is outside the outbound boundary: ${literalDenied.source}`),
    });
    const sink = await receiver(t);
    const created = await root.post('/api/v1/audit/sinks', { name: 'siem', url: byName(sink.url) });
    t.equal(created.status, 201);
    await eventually(async () =>
      (await deliveries()).some((d) => d.sinkId === created.body.id && d.lastError !== null),
    );
    const failed = (await deliveries()).find((d) => d.sinkId === created.body.id)!;
    t.match(failed.lastError, new RegExp(`^refused at the outbound boundary: ${nameDenied.source}`));
    t.equal(sink.received.length, 0, 'the sink on the denied address received nothing');
  },
);

t.test('the mirror: its host resolves to a denied address, so nothing is read or pushed', async (t) => {
  await allowedMarketplace('mirrored');
  const snapshot = await root.post('/api/v1/marketplaces/mirrored/ingest');
  t.equal((await root.post(`/api/v1/snapshots/${snapshot.body.id}/approve`)).status, 200);
  const reports = (await root.post('/api/v1/mirror/reconcile')).body as Array<{ marketplace: string; error: string }>;
  const report = reports.find((r) => r.marketplace === 'mirrored');
  t.match(report, {
    reachable: false,
    lastAttemptOutcome: 'failed',
    error: new RegExp(`refused at the outbound boundary: ${nameDenied.source}`),
  });
  t.equal(forge.hits(), 0, 'the forge received no request');
});
