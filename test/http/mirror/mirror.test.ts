// The read-only forge mirror and its drift report (docs/mirror.md), tested against a real
// `git http-backend` with receive-pack enabled behind HTTP Basic authentication (test/support/mirror-forge.ts).
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import pino from 'pino';
import t, { type Test } from 'tap';
import { startGateway } from '../../../src/gateway.ts';
import {
  assertNothingChanged,
  eventually,
  expectJson,
  ledger,
  machine,
  session,
  settle,
  tokenRow,
  type Client,
} from '../../support/assert.ts';
import { testConfig, type TestGateway } from '../../support/gateway.ts';
import { serveMirrorForge, type MirrorForge } from '../../support/mirror-forge.ts';
import { marketplaceFiles, serveUpstream } from '../../support/upstream.ts';
import { approveMarketplace } from '../catalog/support.ts';

type Drift = {
  enabled: boolean;
  marketplace: string | null;
  url: string | null;
  reachable: boolean;
  inSync: boolean;
  servedTip: string | null;
  mirrorTip: string | null;
  missingOnMirror: string[];
  staleOnMirror: string[];
  pendingUpdates: number;
  lastAttemptAt: string | null;
  lastAttemptOutcome: 'ok' | 'failed' | 'none';
  error: string | null;
};

const user = 'mirror-bot';
const password = 'pw-mirror-4f1c9a7e0b2d';
const env = { GATEWAY_DEV_INSECURE_AUTH: 'true', GATEWAY_ROLES_ADMINS: 'root' };

/** A gateway whose log is kept (to look for the secret in it), closed at the end of the test. */
async function loggedGateway(t: Test, extra: Record<string, string>): Promise<{ gw: TestGateway; log: () => string }> {
  const config = await testConfig(t, { ...env, GATEWAY_LOG_LEVEL: 'debug', ...extra });
  let text = '';
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      text += chunk.toString();
      done();
    },
  });
  const gateway = await startGateway(config, pino({ level: 'debug' }, sink));
  t.teardown(() => gateway.close());
  const gw: TestGateway = {
    ...gateway,
    fetch: (path, init) => fetch(`${gateway.url}${path}`, init),
    settled: async () => gateway.waiter.waitFor(await gateway.core.store.head()),
  };
  return { gw, log: () => text };
}

const reconcile = async (t: Test, root: Client): Promise<Drift[]> =>
  expectJson<Drift[]>(t, await root.post('/api/v1/mirror/reconcile'), 200, 'POST /api/v1/mirror/reconcile');
const drift = async (t: Test, root: Client): Promise<Drift[]> =>
  expectJson<Drift[]>(t, await root.get('/api/v1/mirror/drift'), 200, 'GET /api/v1/mirror/drift');
const of = (reports: Drift[], name: string): Drift => {
  const report = reports.find((r) => r.marketplace === name);
  if (!report) throw new Error(`no drift report for ${name} in ${JSON.stringify(reports)}`);
  return report;
};

/** What the facade serves for a marketplace, as the mirror compares it: refs/heads/main and refs/snapshots/*. */
async function servedRefs(gw: TestGateway, marketplaceId: number): Promise<Map<string, string>> {
  const refs = await gw.core.gitStore.refs(gw.core.gitStore.publishedPath(marketplaceId));
  return new Map([...refs].filter(([ref]) => ref === 'refs/heads/main' || ref.startsWith('refs/snapshots/')));
}

/** The revoking event as re-vetting appends it (ENFORCE), as in the catalog tests. */
async function revoke(gw: TestGateway, s: { id: number; marketplaceId: number; sha: string; name: string }) {
  const at = new Date().toISOString();
  await gw.core.store.append(
    `marketplace-${s.marketplaceId}`,
    [
      {
        type: 'snapshot-revoked',
        data: {
          snapshotId: s.id,
          marketplaceId: s.marketplaceId,
          marketplace: s.name,
          sha: s.sha,
          reason: 'secret found',
          administrative: false,
          revokedAt: at,
          revokedBy: 'revet-policy',
        },
        metadata: { principal: 'revet-policy', actorType: 'system', correlationId: 'revet', at },
      },
    ],
    'any',
  );
  await gw.settled();
}

const sorted = (refs: Map<string, string>) => [...refs].sort(([a], [b]) => (a < b ? -1 : 1));

async function mirroredGateway(t: Test, forge: MirrorForge) {
  process.env.GW_TEST_MIRROR_CREDENTIALS = `${user}:${password}`;
  t.teardown(() => {
    delete process.env.GW_TEST_MIRROR_CREDENTIALS;
  });
  return loggedGateway(t, {
    GATEWAY_MIRROR_URL: forge.template,
    GATEWAY_MIRROR_CREDENTIALS: 'env:GW_TEST_MIRROR_CREDENTIALS',
  });
}

t.test('no mirror configured: 200 with enabled false and the rest null, empty or false; 403 for others', async (t) => {
  const { gw } = await loggedGateway(t, {});
  const root = session(gw, 'root');
  const disabled = {
    enabled: false,
    marketplace: null,
    url: null,
    reachable: false,
    inSync: false,
    servedTip: null,
    mirrorTip: null,
    missingOnMirror: [],
    staleOnMirror: [],
    pendingUpdates: 0,
    lastAttemptAt: null,
    lastAttemptOutcome: 'none',
    error: null,
  };
  t.strictSame(
    await drift(t, root),
    [disabled],
    'spec: 200 for an administrator whether or not a mirror is configured',
  );
  t.strictSame(await reconcile(t, root), [disabled]);
  await assertNothingChanged(t, gw, async () => {
    t.equal((await session(gw, 'alice').get('/api/v1/mirror/drift')).status, 403, 'not an admin: 403');
    t.equal((await session(gw, 'alice').post('/api/v1/mirror/reconcile')).status, 403);
  });
});

t.test(
  'approve → the mirror holds what the facade serves; revoke → the ref leaves; down → unreachable and pending, then in sync; the secret appears nowhere',
  async (t) => {
    const forge = await serveMirrorForge(t, user, password);
    for (const name of ['acme', 'catalog']) await forge.create(name);
    const { gw, log } = await mirroredGateway(t, forge);
    const root = session(gw, 'root');
    const answers: string[] = [];
    const keep = (reports: Drift[]) => {
      answers.push(JSON.stringify(reports));
      return reports;
    };

    t.strictSame(keep(await drift(t, root)), [], 'nothing served, nothing followed: no report');

    const upstream = await serveUpstream(t, marketplaceFiles('acme', ['alpha']), 'acme-up');
    const registered = await expectJson<{ id: number }>(
      t,
      await root.post('/api/v1/marketplaces', { name: 'acme', url: upstream.url }),
      201,
    );
    const ingest = async () =>
      expectJson<{ id: number; sha: string }>(t, await root.post('/api/v1/marketplaces/acme/ingest'), 201, 'ingest');
    const first = await ingest();
    await expectJson(t, await root.post(`/api/v1/snapshots/${first.id}/approve`), 200, 'approve');

    let reports = keep(await reconcile(t, root));
    t.strictSame(
      reports.map((r) => r.marketplace),
      ['acme', 'catalog'],
      'one report per mirrored name: the marketplace and the catalog, in name order',
    );
    const acme = of(reports, 'acme');
    t.match(acme, {
      enabled: true,
      url: forge.template.replace('{name}', 'acme'),
      reachable: true,
      inSync: true,
      servedTip: first.sha,
      mirrorTip: first.sha,
      missingOnMirror: [],
      staleOnMirror: [],
      pendingUpdates: 0,
      lastAttemptOutcome: 'ok',
      error: null,
    });
    t.ok(acme.lastAttemptAt, 'the push is the last attempt');
    t.strictSame(
      sorted(await forge.refs('acme')),
      sorted(await servedRefs(gw, registered.id)),
      "approve → the mirror's refs equal the facade's",
    );
    t.equal(
      (await forge.refs('catalog')).get('refs/heads/main'),
      (await gw.core.catalog!.revision())?.sha,
      'the catalog is mirrored too',
    );
    t.equal(of(reports, 'catalog').inSync, true);

    // A second approval, then the first is revoked: its snapshot ref leaves the mirror.
    await upstream.commit({ 'README.md': 'second\n' });
    const second = await ingest();
    await expectJson(t, await root.post(`/api/v1/snapshots/${second.id}/approve`), 200, 'approve the second');
    await revoke(gw, { id: first.id, marketplaceId: registered.id, sha: first.sha, name: 'acme' });
    reports = keep(await reconcile(t, root));
    t.equal(of(reports, 'acme').inSync, true);
    const mirrored = await forge.refs('acme');
    t.notOk(mirrored.has(`refs/snapshots/${first.sha}`), 'revoke → the ref leaves the mirror');
    t.equal(mirrored.get(`refs/snapshots/${second.sha}`), second.sha);
    t.equal(mirrored.get('refs/heads/main'), second.sha);
    t.strictSame(sorted(mirrored), sorted(await servedRefs(gw, registered.id)));

    // The mirror goes down; a change of what is served cannot reach it.
    await forge.down();
    await upstream.commit({ 'README.md': 'third\n' });
    const third = await ingest();
    await expectJson(t, await root.post(`/api/v1/snapshots/${third.id}/approve`), 200, 'approve the third');
    reports = keep(await reconcile(t, root));
    const down = of(reports, 'acme');
    t.equal(down.reachable, false, 'the mirror down: reachable false');
    t.equal(down.inSync, false, 'inSync is false whenever reachable is false');
    t.ok(down.pendingUpdates > 0, 'pendingUpdates above zero');
    t.equal(down.lastAttemptOutcome, 'failed');
    t.match(down.error, /unreachable/);
    t.equal(down.servedTip, third.sha);
    t.equal(down.mirrorTip, null);
    t.equal(
      (await gw.fetch('/git/acme.git/info/refs?service=git-upload-pack')).status,
      401,
      'the facade answers as ever',
    );

    // Back: the duty's retry brings it in sync without a request.
    await forge.up();
    // In sync, and the last attempt recorded is the one that succeeded (one begun while it was down may end later).
    await eventually(
      async () => {
        const report = of(keep(await drift(t, root)), 'acme');
        return report.inSync && report.lastAttemptOutcome === 'ok';
      },
      15_000,
      200,
    );
    reports = keep(await drift(t, root));
    t.match(of(reports, 'acme'), {
      reachable: true,
      inSync: true,
      pendingUpdates: 0,
      lastAttemptOutcome: 'ok',
      error: null,
    });
    t.strictSame(sorted(await forge.refs('acme')), sorted(await servedRefs(gw, registered.id)), 'in sync once back');
    t.equal((await forge.refs('acme')).get('refs/heads/main'), third.sha);

    // No log line, report or ledger entry carries a credential.
    const ledgerText = JSON.stringify(await ledger(gw));
    const encoded = Buffer.from(`${user}:${password}`).toString('base64');
    for (const [where, text] of [
      ['the log', log()],
      ['the reports', answers.join('\n')],
      ['the ledger', ledgerText],
    ] as const) {
      t.notOk(text.includes(password), `the password is not in ${where}`);
      t.notOk(text.includes(encoded), `the Basic credentials are not in ${where}`);
    }
    t.ok(log().length > 0 && answers.length > 0, 'there was output to search');
    t.ok(forge.refused() === 0, 'every request to the forge carried the credentials');
  },
);

t.test('a damaged published repository: refused, nothing pushed or deleted, recorded on the ledger', async (t) => {
  const forge = await serveMirrorForge(t, user, password);
  for (const name of ['acme', 'beta', 'catalog']) await forge.create(name);
  const { gw } = await mirroredGateway(t, forge);
  const root = session(gw, 'root');
  const acme = await approveMarketplace(t, root, 'acme', marketplaceFiles('acme', ['alpha']));
  const beta = await approveMarketplace(t, root, 'beta', marketplaceFiles('beta', ['gamma']));
  let reports = await reconcile(t, root);
  t.ok(
    reports.every((r) => r.inSync),
    'in sync before the damage',
  );
  const before = await forge.refs('beta');
  t.equal(before.get('refs/heads/main'), beta.sha);
  // Every catalog build the approvals scheduled has run: a later one would read the damaged repository (and the
  // catalog's reconciliation would be refused too). Waited for longer than settle's default: on a loaded machine a
  // build can outlast it.
  await settle(gw, 30_000);

  rmSync(join(gw.core.gitStore.publishedPath(beta.marketplaceId), 'objects'), { recursive: true, force: true });
  const hitsBefore = forge.hits();
  reports = await reconcile(t, root);
  const refused = of(reports, 'beta');
  t.match(refused.error, /^refused: /, 'spec: an error beginning refused:');
  t.equal(refused.lastAttemptOutcome, 'failed');
  t.equal(refused.inSync, false);
  t.ok(refused.pendingUpdates > 0);
  t.strictSame(sorted(await forge.refs('beta')), sorted(before), 'nothing pushed or deleted on the mirror');
  t.equal(of(reports, 'acme').inSync, true, 'the other marketplace is unaffected');
  t.equal(acme.sha, of(reports, 'acme').servedTip);
  t.ok(forge.hits() >= hitsBefore, 'the forge was still asked about the others');
  const entries = await ledger(gw, 'mirror-reconciliation-refused');
  t.equal(entries.length, 1, 'mirror-reconciliation-refused on the ledger');
  t.match(entries[0], { marketplace: 'beta', actor_type: 'system', detail: /nothing pushed or deleted: / });

  // A second request refuses again, with nothing changed on the mirror.
  reports = await reconcile(t, root);
  t.match(of(reports, 'beta').error, /^refused: /);
  t.strictSame(sorted(await forge.refs('beta')), sorted(before));
});

t.test('403 for a non-admin and for a machine credential of every scope, with nothing changed', async (t) => {
  const forge = await serveMirrorForge(t, user, password);
  const { gw } = await mirroredGateway(t, forge);
  const root = session(gw, 'root');
  const credential = await expectJson<{ id: number; token: string }>(
    t,
    await root.post('/api/v1/tokens/machine', {
      principal: 'ops-bot',
      name: 'ops bot',
      apiScopes: ['marketplaces:read', 'catalog:rebuild', 'estate:reconcile', 'audit:read'],
      expiresAt: new Date(Date.now() + 86_400_000).toISOString(),
    }),
    201,
  );
  await expectJson(
    t,
    await root.post('/api/v1/roles', { principal: 'ops-bot', role: 'admin' }),
    201,
    'even an admin machine',
  );
  // The credential's first use is recorded (token-used); the refusals below must record nothing.
  t.equal((await machine(gw, credential.token).get('/api/v1/marketplaces')).status, 200, 'the credential works');
  // lastUsedAt is written off the request path: settled before the refusals' "nothing changed" snapshot.
  await eventually(async () => (await tokenRow(gw, credential.id))?.last_used_at != null);
  const hits = forge.hits();
  for (const [who, client] of [
    ['alice (no role)', session(gw, 'alice')],
    ['a machine credential', machine(gw, credential.token)],
  ] as const) {
    await assertNothingChanged(
      t,
      gw,
      async () => {
        t.equal((await client.get('/api/v1/mirror/drift')).status, 403, `${who}: GET drift 403`);
        t.equal((await client.post('/api/v1/mirror/reconcile')).status, 403, `${who}: POST reconcile 403`);
      },
      who,
    );
  }
  t.equal(forge.hits(), hits, 'the mirror was not contacted');
});
