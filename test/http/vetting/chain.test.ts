import { createServer } from 'node:http';
import t from 'tap';
import { devSession } from '../../support/api.ts';
import { assertNothingChanged, ledger } from '../../support/assert.ts';
import { startTestGateway } from '../../support/gateway.ts';
import { cleanMarketplace, plantedMarketplace } from '../../support/planted.ts';
import { serveUpstream } from '../../support/upstream.ts';
import { loopbackScanner } from './scanner.ts';

const env = { GATEWAY_DEV_INSECURE_AUTH: 'true', GATEWAY_ROLES_ADMINS: 'root' };
type Verdict = {
  connector: string;
  state: string;
  detail: string | null;
  reportUrl: string | null;
  findings: { id: string }[];
};

t.test(
  'chain settings: toggles globally and per marketplace, mode and order, admin only, each change on the ledger',
  async (t) => {
    const gw = await startTestGateway(t, env);
    const root = devSession(gw, 'root');
    const upstream = await serveUpstream(t, plantedMarketplace());
    await root.post('/api/v1/marketplaces', { name: 'acme', url: upstream.url });
    const other = await serveUpstream(t, plantedMarketplace(), 'other');
    await root.post('/api/v1/marketplaces', { name: 'other', url: other.url });
    const alice = devSession(gw, 'alice');

    for (const [method, path, body] of [
      ['get', '/api/v1/vetting/chain-settings', undefined],
      ['get', '/api/v1/vetting/vetter-toggles', undefined],
      ['get', '/api/v1/marketplaces/acme/vetting-chain', undefined],
      ['get', '/api/v1/marketplaces/acme/vetting-chain-settings', undefined],
      ['put', '/api/v1/vetting/vetters/secrets/toggle', { enabled: false, reason: 'x' }],
      ['put', '/api/v1/vetting/chain-mode', { mode: 'stop-on-failure', reason: 'x' }],
      ['put', '/api/v1/vetting/chain-order', { order: ['license'], reason: 'x' }],
    ] as const) {
      const answer = await assertNothingChanged(
        t,
        gw,
        () => (method === 'get' ? alice.get(path) : alice.put(path, body)),
        `${method} ${path}`,
      );
      t.equal(answer.status, 403, `${method} ${path} is admin only`);
    }

    const defaults = (await root.get('/api/v1/vetting/chain-settings')).body;
    t.match(defaults, { mode: 'run-all', order: ['manifest', 'secrets', 'hooks', 'mcp', 'instructions', 'license'] });

    // Per marketplace: secrets off for acme only.
    const toggled = await root.put('/api/v1/vetting/vetters/secrets/toggle', {
      enabled: false,
      reason: 'noisy on acme',
      marketplace: 'acme',
    });
    t.equal(toggled.status, 200);
    t.match(
      toggled.body.find((c: { name: string }) => c.name === 'secrets'),
      { enabled: false, source: 'marketplace' },
    );
    t.match(await ledger(gw, 'vetter-toggled'), [
      {
        principal: 'root',
        marketplace: 'acme',
        detail: 'vetter=secrets scope=marketplace:acme state=disabled; reason: noisy on acme',
      },
    ]);
    t.match(
      (await root.get('/api/v1/marketplaces/other/vetting-chain')).body.find(
        (c: { name: string }) => c.name === 'secrets',
      ),
      { enabled: true, source: 'global' },
    );
    const acmeRun = (
      await root.get(`/api/v1/snapshots/${(await root.post('/api/v1/marketplaces/acme/ingest')).body.id}/vetting`)
    ).body.run;
    t.notOk(
      (acmeRun.verdicts as Verdict[]).some((v) => v.connector === 'secrets'),
      'a disabled vetter does not run',
    );
    t.match((await root.get('/api/v1/marketplaces/acme/vetting-chain-settings')).body, {
      marketplace: 'acme',
      mode: 'run-all',
      toggles: [
        {
          vetter: 'secrets',
          scope: 'marketplace',
          marketplace: 'acme',
          enabled: false,
          reason: 'noisy on acme',
          changedBy: 'root',
        },
      ],
    });

    // Globally: license off everywhere.
    await root.put('/api/v1/vetting/vetters/license/toggle', { enabled: false, reason: 'licenses reviewed by legal' });
    t.match(await ledger(gw, 'vetter-toggled'), [
      {},
      { marketplace: '-', detail: 'vetter=license scope=global state=disabled; reason: licenses reviewed by legal' },
    ]);
    t.match((await root.get('/api/v1/vetting/vetter-toggles')).body, [
      { vetter: 'license', scope: 'global', enabled: false },
      { vetter: 'secrets', scope: 'marketplace' },
    ]);

    const refusals = [
      [() => root.put('/api/v1/vetting/vetters/nope/toggle', { enabled: false, reason: 'x' }), 404, 'vetter-not-found'],
      [
        () => root.put('/api/v1/vetting/vetters/secrets/toggle', { enabled: false, reason: '  ' }),
        422,
        'invalid-request',
      ],
      [
        () => root.put('/api/v1/vetting/vetters/secrets/toggle', { enabled: false, reason: 'x', marketplace: 'nope' }),
        404,
        'marketplace-not-found',
      ],
      [
        () => root.put('/api/v1/vetting/chain-order', { order: ['license', 'manifest'], reason: 'x' }),
        422,
        'invalid-chain-order',
      ],
      [
        () =>
          root.put('/api/v1/vetting/chain-order', {
            order: ['license', 'instructions', 'mcp', 'hooks', 'secrets', 'manifest', 'manifest'],
            reason: 'x',
          }),
        422,
        'invalid-chain-order',
      ],
      [
        () =>
          root.put('/api/v1/vetting/chain-order', {
            order: ['license', 'instructions', 'mcp', 'hooks', 'secrets', 'bogus'],
            reason: 'x',
          }),
        422,
        'invalid-chain-order',
      ],
      [() => root.put('/api/v1/vetting/chain-mode', { mode: 'sometimes', reason: 'x' }), 422, 'invalid-request'],
    ] as const;
    for (const [call, status, code] of refusals) {
      const answer = await assertNothingChanged(t, gw, call, code);
      t.equal(answer.status, status, code);
      t.match(answer.body.type, new RegExp(`/problems/${code}$`));
    }

    const reordered = await root.put('/api/v1/vetting/chain-order', {
      order: ['license', 'instructions', 'mcp', 'hooks', 'secrets', 'manifest'],
      reason: 'cheapest last',
    });
    t.match(reordered.body, { order: ['license', 'instructions', 'mcp', 'hooks', 'secrets', 'manifest'] });
    t.match(await ledger(gw, 'vetting-chain-order-changed'), [
      {
        detail:
          'vetter=* scope=global state=order:license,instructions,mcp,hooks,secrets,manifest; reason: cheapest last',
      },
    ]);
    const moded = await root.put('/api/v1/vetting/chain-mode', { mode: 'stop-on-failure', reason: 'fail fast' });
    t.match(moded.body, { mode: 'stop-on-failure' });
    t.match(await ledger(gw, 'vetting-chain-mode-changed'), [
      { detail: 'vetter=* scope=global state=mode:stop-on-failure; reason: fail fast' },
    ]);

    // other: license is off globally, so instructions runs first and fails; the chain stops there.
    const otherRun = (
      await root.get(`/api/v1/snapshots/${(await root.post('/api/v1/marketplaces/other/ingest')).body.id}/vetting`)
    ).body;
    t.strictSame(
      (otherRun.run.verdicts as Verdict[]).map((v) => [v.connector, v.state]),
      [['instructions', 'FAIL']],
      'stop after the first failure',
    );
    t.equal(otherRun.outcome, 'BLOCKED');
  },
);

t.test('the http connector: PENDING until the external scanner answers, then its verdict and reportUrl', async (t) => {
  const scanner = await loopbackScanner(t);
  const { received } = scanner;
  const gw = await startTestGateway(t, { ...env, GATEWAY_VETTING_HTTP_URL: scanner.url });
  const root = devSession(gw, 'root');
  const upstream = await serveUpstream(t, cleanMarketplace());
  await root.post('/api/v1/marketplaces', { name: 'tidy', url: upstream.url });
  const snapshot = (await root.post('/api/v1/marketplaces/tidy/ingest')).body;
  const pending = (await root.get(`/api/v1/snapshots/${snapshot.id}/vetting`)).body;
  const http = (pending.run.verdicts as Verdict[]).find((v) => v.connector === 'http')!;
  t.match(http, { state: 'PENDING', reportUrl: 'https://scanner.example/reports/1' });
  t.equal(pending.outcome, 'BLOCKED', 'PENDING blocks');
  t.match(received[0], { snapshotId: snapshot.id, sha: snapshot.sha });
  t.ok(
    received[0]!.files.some((f) => f.path === 'plugins/tidy/skills/format/SKILL.md'),
    'the files are sent',
  );

  // A held snapshot is vetted again with the rerun, not re-vetted (spec: re-vet of a non-approved snapshot is 409).
  const still = (await root.post(`/api/v1/snapshots/${snapshot.id}/vetting/rerun`)).body;
  t.match(still, { snapshotId: snapshot.id, outcome: 'BLOCKED', run: { trigger: 'ingestion' } });
  t.match(
    (still.run.verdicts as Verdict[]).find((v) => v.connector === 'http'),
    { state: 'PENDING' },
  );
  t.equal(received.length, 2, 'the scanner is asked again');

  scanner.answer = 'findings';
  const answered = (await root.post(`/api/v1/snapshots/${snapshot.id}/vetting/rerun`)).body;
  t.match(answered, {
    outcome: 'BLOCKED',
    uncovered: [{ connector: 'http', ruleId: 'ext-malware', severity: 'CRITICAL' }],
  });
  t.match(
    (answered.run.verdicts as Verdict[]).find((v) => v.connector === 'http'),
    { state: 'FAIL', reportUrl: 'https://scanner.example/reports/2', detail: 'scanned' },
  );
  t.strictSame(
    answered,
    (await root.get(`/api/v1/snapshots/${snapshot.id}/vetting`)).body,
    'the answer is the vetting report',
  );
  const verdicts = await ledger(gw, 'vetting-verdict');
  t.equal(verdicts.length, 21, 'a rerun records every verdict, as the ingestion did');
  t.ok(
    verdicts.some((v) => /http FAIL \(was PENDING\)/.test(v.detail ?? '')),
    'the changed verdict names what it was',
  );
  const classified = [...(await ledger(gw, 'revet-inconclusive')), ...(await ledger(gw, 'revet-violation'))];
  t.equal(classified.length, 0, 'no re-vet classification');
});

t.test('a connector past gateway.vetting.timeout records ERROR, which blocks', async (t) => {
  const scanner = createServer(() => {
    /* never answers */
  });
  await new Promise<void>((resolve) => scanner.listen(0, '127.0.0.1', resolve));
  t.teardown(() => {
    scanner.closeAllConnections();
    return new Promise<void>((resolve) => scanner.close(() => resolve()));
  });
  const port = (scanner.address() as { port: number }).port;
  const gw = await startTestGateway(t, {
    ...env,
    GATEWAY_VETTING_HTTP_URL: `http://127.0.0.1:${port}/scan`,
    GATEWAY_VETTING_TIMEOUT: '1s',
  });
  const root = devSession(gw, 'root');
  const upstream = await serveUpstream(t, cleanMarketplace());
  await root.post('/api/v1/marketplaces', { name: 'tidy', url: upstream.url });
  const snapshot = (await root.post('/api/v1/marketplaces/tidy/ingest')).body;
  const report = (await root.get(`/api/v1/snapshots/${snapshot.id}/vetting`)).body;
  t.match(
    (report.run.verdicts as Verdict[]).find((v) => v.connector === 'http'),
    { state: 'ERROR', detail: /timed out after 1000 ms/ },
  );
  t.equal(report.outcome, 'BLOCKED');
  t.equal((await root.post(`/api/v1/snapshots/${snapshot.id}/approve`)).status, 409);
});
