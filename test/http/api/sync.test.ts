import { createHmac } from 'node:crypto';
import t from 'tap';
import { sql } from '../../../src/adapters/postgres/pool.ts';
import { devSession } from '../../support/api.ts';
import { assertNothingChanged, eventually, ledger } from '../../support/assert.ts';
import { startTestGateway, type TestGateway } from '../../support/gateway.ts';
import { marketplaceFiles, serveUpstream } from '../../support/upstream.ts';

const env = { GATEWAY_DEV_INSECURE_AUTH: 'true', GATEWAY_ROLES_ADMINS: 'root' };
const sign = (secret: string, body: string | Buffer) =>
  `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;

type Snapshot = { id: number; sha: string; ingestedBy: string };
const snapshotsOf = async (gw: TestGateway, name: string): Promise<Snapshot[]> =>
  ((await devSession(gw, 'root').get('/api/v1/marketplaces')).body as { name: string; snapshots: Snapshot[] }[]).find(
    (m) => m.name === name,
  )?.snapshots ?? [];

t.test(
  'sync modes: admin only, 422 for anything else, a webhook secret issued once on entering and discarded on leaving',
  async (t) => {
    const gw = await startTestGateway(t, env);
    const root = devSession(gw, 'root');
    const upstream = await serveUpstream(t, marketplaceFiles('acme', ['alpha']));
    await root.post('/api/v1/marketplaces', { name: 'acme', url: upstream.url });

    t.equal(
      (
        await assertNothingChanged(t, gw, () =>
          devSession(gw, 'alice').put('/api/v1/marketplaces/acme/sync', { mode: 'webhook' }),
        )
      ).status,
      403,
    );
    t.equal(
      (await assertNothingChanged(t, gw, () => root.put('/api/v1/marketplaces/nope/sync', { mode: 'webhook' }))).status,
      404,
    );
    for (const mode of ['hourly', 'WEBHOOK', '', null]) {
      t.equal(
        (await assertNothingChanged(t, gw, () => root.put('/api/v1/marketplaces/acme/sync', { mode }))).status,
        422,
        `mode ${String(mode)}`,
      );
    }

    const entered = await root.put('/api/v1/marketplaces/acme/sync', { mode: 'webhook' });
    t.equal(entered.status, 200);
    t.match(entered.body, { name: 'acme', syncMode: 'webhook', webhookSecret: /^[0-9a-f]{64}$/ });
    const secret = entered.body.webhookSecret as string;
    const stored = (await gw.core.pool.oneFirst(
      sql.unsafe`select webhook_secret from marketplaces where name = 'acme'`,
    )) as string;
    t.notOk(stored.includes(secret), 'the secret is stored sealed');
    const events = await gw.core.store.readStream(`marketplace-${entered.body.id}`);
    t.notOk(JSON.stringify(events.events.map((e) => e.data)).includes(secret), 'the event carries no cleartext secret');
    t.match(await ledger(gw, 'sync-mode-changed'), [
      {
        principal: 'root',
        marketplace: 'acme',
        detail: 'mode=webhook (was on-demand); a new webhook secret was issued',
      },
    ]);
    t.notOk(JSON.stringify(await ledger(gw)).includes(secret));

    const again = await root.put('/api/v1/marketplaces/acme/sync', { mode: 'webhook' });
    t.equal(again.status, 200);
    t.notOk('webhookSecret' in again.body, 'the secret is returned once: the mode it has changes nothing');
    t.equal((await ledger(gw, 'sync-mode-changed')).length, 1);
    t.equal(
      (
        await gw.fetch('/hooks/acme', {
          method: 'POST',
          body: '{}',
          headers: { 'content-type': 'application/json', 'x-hub-signature-256': sign(secret, '{}') },
        })
      ).status,
      202,
      'the first secret still holds',
    );
    await eventually(async () => (await snapshotsOf(gw, 'acme')).length === 1, 10_000);

    const left = await root.put('/api/v1/marketplaces/acme/sync', { mode: 'scheduled' });
    t.match(left.body, { syncMode: 'scheduled' });
    t.notOk('webhookSecret' in left.body);
    t.match((await ledger(gw, 'sync-mode-changed')).at(-1), {
      detail: 'mode=scheduled (was webhook); the webhook secret was discarded',
    });
    t.equal(
      await gw.core.pool.oneFirst(sql.unsafe`select webhook_secret from marketplaces where name = 'acme'`),
      null,
      'leaving webhook mode discards the secret',
    );
    const stale = await gw.fetch('/hooks/acme', {
      method: 'POST',
      body: '{}',
      headers: { 'content-type': 'application/json', 'x-hub-signature-256': sign(secret, '{}') },
    });
    t.equal(stale.status, 404, 'not in webhook mode any more');

    const reentered = await root.put('/api/v1/marketplaces/acme/sync', { mode: 'webhook' });
    t.not(reentered.body.webhookSecret, secret, 'entering again issues a new secret');
  },
);

t.test(
  'inbound webhooks: signed as GitHub and Gitea sign them; 404 alike for every miss; 413 before any look-up',
  async (t) => {
    const gw = await startTestGateway(t, { ...env, GATEWAY_SYNC_MAX_WEBHOOK_BODY_BYTES: '4096' });
    const root = devSession(gw, 'root');
    const upstream = await serveUpstream(t, marketplaceFiles('acme', ['alpha']));
    await root.post('/api/v1/marketplaces', { name: 'acme', url: upstream.url });
    const other = await serveUpstream(t, marketplaceFiles('other', ['beta']), 'other');
    await root.post('/api/v1/marketplaces', { name: 'other', url: other.url });
    const secret = (await root.put('/api/v1/marketplaces/acme/sync', { mode: 'webhook' })).body.webhookSecret as string;

    const post = (name: string, body: string | Buffer, headers: Record<string, string>) =>
      gw.fetch(`/hooks/${name}`, { method: 'POST', body, headers });
    // GitHub: JSON push payload, X-GitHub-Event, X-Hub-Signature-256.
    const github = JSON.stringify({
      ref: 'refs/heads/main',
      after: 'x'.repeat(40),
      repository: { full_name: 'acme/acme' },
    });
    const misses: [string, () => Promise<Response>][] = [
      ['no signature', () => post('acme', github, { 'content-type': 'application/json', 'x-github-event': 'push' })],
      [
        'a wrong signature',
        () =>
          post('acme', github, {
            'content-type': 'application/json',
            'x-hub-signature-256': sign('not the secret', github),
          }),
      ],
      [
        'a signature of another body',
        () =>
          post('acme', github, {
            'content-type': 'application/json',
            'x-hub-signature-256': sign(secret, `${github} `),
          }),
      ],
      [
        'a malformed header',
        () => post('acme', github, { 'content-type': 'application/json', 'x-hub-signature-256': 'sha1=abc' }),
      ],
      [
        'a marketplace not in webhook mode',
        () =>
          post('other', github, { 'content-type': 'application/json', 'x-hub-signature-256': sign(secret, github) }),
      ],
      [
        'an unknown marketplace',
        () => post('nope', github, { 'content-type': 'application/json', 'x-hub-signature-256': sign(secret, github) }),
      ],
      [
        'an invalid name',
        () =>
          post('Bad..Name', github, {
            'content-type': 'application/json',
            'x-hub-signature-256': sign(secret, github),
          }),
      ],
    ];
    const bodies = new Set<string>();
    for (const [why, call] of misses) {
      const answer = await assertNothingChanged(t, gw, call, why);
      t.equal(answer.status, 404, why);
      const problem = (await answer.json()) as { detail: string; type: string };
      bodies.add(problem.type);
    }
    t.equal(bodies.size, 1, 'one answer for all of them');

    const oversize = 'x'.repeat(5000);
    for (const name of ['acme', 'nope']) {
      const answer = await assertNothingChanged(t, gw, () =>
        post(name, oversize, { 'content-type': 'application/json', 'x-hub-signature-256': sign(secret, oversize) }),
      );
      t.equal(answer.status, 413, `oversize for ${name}: 413 before the marketplace is looked up`);
    }

    const accepted = await post('acme', github, {
      'content-type': 'application/json',
      'x-github-event': 'push',
      'x-hub-signature-256': sign(secret, github),
    });
    t.equal(accepted.status, 202);
    t.strictSame(await accepted.json(), { queued: true, marketplace: 'acme' });
    const first = await eventually(async () => (await snapshotsOf(gw, 'acme'))[0], 10_000);
    t.match(first, { ingestedBy: 'webhook' }, 'ingested with principal webhook');
    t.match(await ledger(gw, 'ingest-succeeded'), [{ principal: 'webhook', marketplace: 'acme' }]);

    // Gitea: form-encoded payloads are signed the same way (the payload is ignored either way).
    const tip = await upstream.commit({ 'plugins/alpha/NEW.md': 'new\n' });
    const gitea = `payload=${encodeURIComponent(JSON.stringify({ ref: 'refs/heads/main', after: tip }))}`;
    const giteaAnswer = await post('acme', gitea, {
      'content-type': 'application/x-www-form-urlencoded',
      'x-gitea-event': 'push',
      'x-gitea-signature': createHmac('sha256', secret).update(gitea).digest('hex'),
      'x-hub-signature-256': sign(secret, gitea),
    });
    t.equal(giteaAnswer.status, 202);
    const second = await eventually(async () => (await snapshotsOf(gw, 'acme')).find((s) => s.sha === tip), 10_000);
    t.match(second, { ingestedBy: 'webhook' });
  },
);

t.test(
  'scheduled ingestion runs on gateway.sync.schedule for marketplaces in scheduled mode, as principal scheduler',
  async (t) => {
    const gw = await startTestGateway(t, { ...env, GATEWAY_SYNC_SCHEDULE: '* * * * * *' });
    const root = devSession(gw, 'root');
    const upstream = await serveUpstream(t, marketplaceFiles('acme', ['alpha']));
    await root.post('/api/v1/marketplaces', { name: 'acme', url: upstream.url });
    const manual = await serveUpstream(t, marketplaceFiles('manual', ['beta']), 'manual');
    await root.post('/api/v1/marketplaces', { name: 'manual', url: manual.url });
    await root.put('/api/v1/marketplaces/acme/sync', { mode: 'scheduled' });
    const first = await eventually(async () => (await snapshotsOf(gw, 'acme'))[0], 10_000);
    t.match(first, { ingestedBy: 'scheduler' });
    const tip = await upstream.commit({ 'plugins/alpha/NEW.md': 'new\n' });
    await eventually(async () => (await snapshotsOf(gw, 'acme')).some((s) => s.sha === tip), 10_000);
    t.match(await ledger(gw, 'ingest-succeeded'), [{ principal: 'scheduler', actor_type: 'system' }]);
    t.strictSame(await snapshotsOf(gw, 'manual'), [], 'an on-demand marketplace is not ingested by the schedule');
    await root.put('/api/v1/marketplaces/acme/sync', { mode: 'on-demand' });
  },
);
