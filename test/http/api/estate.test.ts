import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { Webhook } from 'standardwebhooks';
import t, { type Test } from 'tap';
import { sql } from '../../../src/adapters/postgres/pool.ts';
import { startGateway } from '../../../src/gateway.ts';
import { devSession } from '../../support/api.ts';
import { assertNothingChanged, eventually, ledger, machine, settle, tokenRow } from '../../support/assert.ts';
import { startTestGateway, testConfig, type TestGateway } from '../../support/gateway.ts';
import { receiver } from '../../support/receiver.ts';
import { marketplaceFiles, serveUpstream } from '../../support/upstream.ts';

type Entry = { kind: string; name: string; action: string; detail: string | null };
type Report = {
  ranAt: string;
  trigger: string;
  entries: Entry[];
  created: number;
  updated: number;
  unchanged: number;
  failed: number;
};

/** A loopback port nothing listens on: an upstream that is down. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** A gateway whose whole log (every level) is kept, to be searched for secrets. */
async function loggedGateway(t: Test, env: Record<string, string>): Promise<TestGateway & { log: string[] }> {
  const log: string[] = [];
  const logger = pino({ level: 'trace' }, { write: (line: string) => log.push(line) });
  const gateway = await startGateway(await testConfig(t, env), logger);
  t.teardown(() => gateway.close());
  return {
    ...gateway,
    log,
    fetch: (path, init) => fetch(`${gateway.url}${path}`, init),
    settled: async () => gateway.waiter.waitFor(await gateway.core.store.head()),
  };
}

/** The live marketplaces by name, as GET /api/v1/marketplaces lists them. */
const liveMarketplaces = async (gw: TestGateway) =>
  new Map(
    ((await devSession(gw, 'root').get('/api/v1/marketplaces')).body as { name: string; syncMode: string }[]).map(
      (m) => [m.name, m],
    ),
  );

const line = (r: Report, kind: string, name: string) => r.entries.find((e) => e.kind === kind && e.name === name);

/** The types of the events appended after `head`, delivery housekeeping left out. */
async function eventsSince(gw: TestGateway, head: bigint): Promise<string[]> {
  const events = await gw.core.store.readAll(head, 10_000);
  return events
    .map((e) => e.type)
    .filter((type) => type !== 'webhook-delivery-attempted' && type !== 'audit-batch-offered');
}

t.test(
  'the declared estate: applied at startup, again through the API, additive, a bad file applies nothing, no secret anywhere',
  async (t) => {
    const upstream = await serveUpstream(t, marketplaceFiles('acme', ['hello']));
    const downUrl = `http://127.0.0.1:${await closedPort()}/down.git`;
    const hook = await receiver(t);
    const sink = await receiver(t);
    const webhookSecret = `whsec_${randomBytes(24).toString('base64')}`;
    const sinkSecret = `whsec_${randomBytes(24).toString('base64')}`;
    process.env['ESTATE_TEST_WEBHOOK_SECRET'] = webhookSecret;
    // Not t.testdir(): the gateway's data directory is the test's fixture, made afresh when the gateway starts.
    const dir = mkdtempSync(join(tmpdir(), 'gw-estate-'));
    t.teardown(() => rmSync(dir, { recursive: true, force: true }));
    const sinkSecretFile = join(dir, 'siem-secret');
    writeFileSync(sinkSecretFile, `${sinkSecret}\n`);
    const file = join(dir, 'estate.yaml');
    const estate = [
      'marketplaces:',
      '  - name: acme',
      `    url: ${upstream.url}`,
      '    sync:',
      '      mode: scheduled',
      '  - name: down',
      `    url: ${downUrl}`,
      'grants:',
      '  - principal: release-bot',
      '    role: approver',
      '    marketplace: acme',
      'webhooks:',
      `  - url: ${hook.url}`,
      '    events: [marketplace.snapshot.revoked]',
      '    secret: env:ESTATE_TEST_WEBHOOK_SECRET',
      'audit-sinks:',
      '  - name: siem',
      `    url: ${sink.url}`,
      `    secret: file:${sinkSecretFile}`,
      '',
    ];
    writeFileSync(file, estate.join('\n'));

    const gw = await loggedGateway(t, {
      GATEWAY_DEV_INSECURE_AUTH: 'true',
      GATEWAY_ROLES_ADMINS: 'root',
      GATEWAY_ESTATE_FILE: file,
      GATEWAY_AUDIT_EXPORT_POLL_INTERVAL: '50ms',
      GATEWAY_AUDIT_EXPORT_LAG: '0s',
    });
    const root = devSession(gw, 'root');
    const reports: string[] = [];

    // Reconciliation at startup (trigger startup, on the leader).
    const startup = await eventually(async () => {
      const answer = await root.get('/api/v1/estate');
      return answer.status === 200 ? (answer.body as Report) : null;
    }, 20_000);
    reports.push(JSON.stringify(startup));
    t.equal(startup.trigger, 'startup');
    t.same(
      startup.entries.map((e) => [e.kind, e.name, e.action]),
      [
        ['marketplace', 'acme', 'created'],
        ['marketplace', 'down', 'created'],
        ['grant', 'release-bot as approver of acme', 'created'],
        ['webhook', hook.url, 'created'],
        ['audit-sink', 'siem', 'created'],
      ],
      'every declared item is created, in file order by kind',
    );
    t.same([startup.created, startup.updated, startup.unchanged, startup.failed], [5, 0, 0, 0]);
    t.match(line(startup, 'marketplace', 'acme')?.detail, /sync mode scheduled \(was on-demand\)/);
    // marketplace-upstream-unreachable: estate registered a marketplace whose upstream could not be read.
    t.match(line(startup, 'marketplace', 'down')?.detail, /registered; its upstream could not be read/);

    const live = await liveMarketplaces(gw);
    t.equal(live.get('acme')?.syncMode, 'scheduled', 'the declared sync mode is in force');
    t.ok(live.has('down'), 'the marketplace whose upstream is down is registered');

    // Applied changes reuse the API event names with actor config-reconciler.
    const entries = await ledger(gw);
    for (const event of [
      'marketplace-registered',
      'sync-mode-changed',
      'role-granted',
      'webhook-subscriber-created',
      'audit-sink-created',
    ]) {
      const rows = entries.filter((e) => e.event === event);
      t.ok(rows.length > 0, `${event} is on the ledger`);
      t.ok(
        rows.every((e) => e.principal === 'config-reconciler' && e.actor_type === 'system'),
        `${event} by config-reconciler`,
      );
    }
    const unreachable = entries.filter((e) => e.event === 'marketplace-upstream-unreachable');
    t.same(
      unreachable.map((e) => [e.marketplace, e.principal, e.actor_type]),
      [['down', 'config-reconciler', 'system']],
    );
    t.same(
      entries.filter((e) => e.event === 'estate-reconcile-triggered').map((e) => [e.principal, e.detail]),
      [['config-reconciler', 'trigger=startup; created=5 updated=0 unchanged=0 failed=0']],
    );

    // A webhook or sink declared with a secret reference is created with that secret.
    const sealed = async (table: 'webhook_targets' | 'audit_sinks') =>
      gw.deps.secrets.open(
        (await gw.core.pool.oneFirst(
          sql.unsafe`select sealed_secret from ${sql.identifier([table])} limit 1`,
        )) as string,
      );
    t.equal(
      await sealed('webhook_targets'),
      webhookSecret,
      'the subscriber signs with the secret env:ESTATE_TEST_WEBHOOK_SECRET holds',
    );
    t.equal(await sealed('audit_sinks'), sinkSecret, 'the sink signs with the secret its file holds');
    const batch = await eventually(async () => sink.received[0], 10_000);
    t.ok(
      new Webhook(sinkSecret).verify(batch.body, batch.headers as Record<string, string>),
      'a batch verifies with it',
    );

    // Second run through the API: everything unchanged, nothing applied again.
    let head = await settle(gw);
    const again = await root.post('/api/v1/estate/reconcile');
    t.equal(again.status, 200);
    reports.push(again.text);
    const second = again.body as Report;
    t.equal(second.trigger, 'api');
    t.ok(
      second.entries.every((e) => e.action === 'unchanged' && e.detail === null),
      'a second run reports everything unchanged',
    );
    t.same([second.created, second.updated, second.unchanged, second.failed], [0, 0, 5, 0]);
    t.same(await eventsSince(gw, head), ['estate-reconcile-triggered'], 'the second run changed nothing');
    t.same((await root.get('/api/v1/estate')).body, second, 'GET answers the last report');
    t.same(
      (await ledger(gw, 'estate-reconcile-triggered')).at(-1)?.principal,
      'root',
      'the run is recorded as the admin who asked for it',
    );

    // A removed entry in the file deletes nothing; a changed sync mode is an update.
    writeFileSync(
      file,
      ['marketplaces:', '  - name: acme', `    url: ${upstream.url}`, '    sync:', '      mode: on-demand', ''].join(
        '\n',
      ),
    );
    head = await settle(gw);
    const trimmed = (await root.post('/api/v1/estate/reconcile')).body as Report;
    reports.push(JSON.stringify(trimmed));
    t.same(trimmed.entries, [
      { kind: 'marketplace', name: 'acme', action: 'updated', detail: 'sync mode on-demand (was scheduled)' },
    ]);
    t.same(
      await eventsSince(gw, head),
      ['sync-mode-changed', 'estate-reconcile-triggered'],
      'nothing removed, revoked or deleted',
    );
    t.ok((await liveMarketplaces(gw)).has('down'), 'the marketplace left out of the file stays');
    t.equal(((await root.get('/api/v1/webhooks')).body as unknown[]).length, 1, 'the subscriber stays');
    t.equal(((await root.get('/api/v1/audit/sinks')).body as unknown[]).length, 1, 'the sink stays');
    t.ok(
      ((await root.get('/api/v1/roles')).body as { principal: string }[]).some((g) => g.principal === 'release-bot'),
      'the grant stays',
    );

    // A failing item is a failed line naming the reference (never a value), and the rest still applies.
    writeFileSync(
      file,
      [
        'webhooks:',
        `  - url: ${hook.url.replace('/hook', '/other')}`,
        '    events: [marketplace.snapshot.revoked]',
        '    secret: env:ESTATE_TEST_UNSET_SECRET',
        `  - url: ${hook.url.replace('/hook', '/third')}`,
        '    events: [marketplace.snapshot.revoked]',
        '    secret: env:ESTATE_TEST_NOT_A_KEY',
        'audit-sinks:',
        '  - name: archive',
        `    url: ${sink.url}`,
        '',
      ].join('\n'),
    );
    process.env['ESTATE_TEST_NOT_A_KEY'] = 'plain-password-1234';
    const partly = (await root.post('/api/v1/estate/reconcile')).body as Report;
    reports.push(JSON.stringify(partly));
    t.same(
      partly.entries.map((e) => e.action),
      ['failed', 'failed', 'created'],
    );
    t.match(partly.entries[0]?.detail, /env:ESTATE_TEST_UNSET_SECRET: the variable is not set/);
    // Standard Webhooks receivers decode the key after whsec_: a declared secret of another form is refused.
    t.match(partly.entries[1]?.detail, /env:ESTATE_TEST_NOT_A_KEY: not a signing secret: whsec_/);
    t.notOk(JSON.stringify(partly).includes('plain-password-1234'), 'the value is not reported');
    t.same([partly.created, partly.failed], [1, 2]);

    // A bad file applies nothing and names the line.
    writeFileSync(
      file,
      ['marketplaces:', '  - name: fresh', `    url: ${upstream.url}`, '    colour: blue', ''].join('\n'),
    );
    head = await settle(gw);
    const bad = await root.post('/api/v1/estate/reconcile');
    t.equal(bad.status, 422);
    t.equal(bad.body.type.endsWith('/problems/estate-invalid'), true);
    t.match(
      bad.body.errors,
      [new RegExp(`^${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:4: `)],
      'the error names line 4',
    );
    t.same(await eventsSince(gw, head), ['estate-reconciliation-failed'], 'nothing applied');
    t.notOk((await liveMarketplaces(gw)).has('fresh'), 'the marketplace of the bad file is not registered');
    t.same((await root.get('/api/v1/estate')).body, partly, 'the last report stays the last run that applied');
    t.match((await ledger(gw, 'estate-reconciliation-failed'))[0]?.detail, /trigger=api; nothing applied: .*:4: /);

    // Estate report: auditor or admin; estate reconcile: admin.
    t.equal((await root.post('/api/v1/roles', { principal: 'watcher', role: 'auditor' })).status, 201);
    const nobody = devSession(gw, 'nobody');
    const watcher = devSession(gw, 'watcher');
    for (const [call, what] of [
      [() => nobody.get('/api/v1/estate'), 'the report without a role'],
      [() => nobody.post('/api/v1/estate/reconcile'), 'a reconcile without a role'],
      [() => watcher.post('/api/v1/estate/reconcile'), "an auditor's reconcile"],
    ] as const) {
      t.equal((await assertNothingChanged(t, gw, call, what)).status, 403, `${what} is refused`);
    }
    t.same((await watcher.get('/api/v1/estate')).body, partly, 'an auditor reads the report');
    // estate:read GET /api/v1/estate; estate:reconcile POST /api/v1/estate/reconcile: an admin's
    // machine credential holding only estate:read reads the report and cannot run a reconciliation.
    t.equal((await root.post('/api/v1/roles', { principal: 'estate-bot', role: 'admin' })).status, 201);
    const credential = await root.post('/api/v1/tokens/machine', {
      principal: 'estate-bot',
      name: 'estate reader',
      apiScopes: ['estate:read'],
      expiresAt: new Date(Date.now() + 86_400_000).toISOString(),
    });
    t.equal(credential.status, 201);
    const bot = machine(gw, (credential.body as { token: string }).token);
    t.same(await (await bot.get('/api/v1/estate')).json(), partly, 'estate:read reaches the report');
    await eventually(async () => (await tokenRow(gw, (credential.body as { id: number }).id))?.last_used_at);
    const scoped = await assertNothingChanged(
      t,
      gw,
      () => bot.post('/api/v1/estate/reconcile'),
      'a reconcile without estate:reconcile',
    );
    t.equal(scoped.status, 403, 'a reconcile without estate:reconcile is refused');

    // No secret in any report, ledger entry, log line or stored event.
    const stored = JSON.stringify((await gw.core.store.readAll(0n, 100_000)).map((e) => e.data));
    const ledgerText = JSON.stringify(await ledger(gw));
    for (const secret of [webhookSecret, sinkSecret]) {
      for (const [text, where] of [
        [reports.join('\n'), 'the reports'],
        [ledgerText, 'the ledger'],
        [gw.log.join(''), 'the log'],
        [stored, 'the event store'],
      ] as const) {
        t.notOk(text.includes(secret) || text.includes(secret.slice(6)), `no secret in ${where}`);
      }
    }
    t.ok(gw.log.length > 0, 'the log was captured');
  },
);

// decision 358: no estate file is nothing to apply, not an error.
t.test(
  'without gateway.estate.file: no report (404); the reconcile answers an empty report, nothing changed',
  async (t) => {
    const gw = await startTestGateway(t, { GATEWAY_DEV_INSECURE_AUTH: 'true', GATEWAY_ROLES_ADMINS: 'root' });
    const root = devSession(gw, 'root');
    // GET /api/v1/estate: ... 404 if none has run.
    t.equal((await assertNothingChanged(t, gw, () => root.get('/api/v1/estate'), 'the report')).status, 404);
    const empty = await assertNothingChanged(t, gw, () => root.post('/api/v1/estate/reconcile'), 'the reconcile');
    t.equal(empty.status, 200, empty.text);
    t.match(empty.body, {
      trigger: 'api',
      ranAt: String,
      entries: [],
      created: 0,
      updated: 0,
      unchanged: 0,
      failed: 0,
      configured: false,
    });
    t.equal((await root.get('/api/v1/estate')).status, 404, 'still no report: nothing ran');
    t.equal((await devSession(gw, 'nobody').post('/api/v1/estate/reconcile')).status, 403, 'admin only, as before');
  },
);
