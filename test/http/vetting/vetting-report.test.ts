import t from 'tap';
import { waiverSweep } from '../../../src/application/vetting/sweeps.duty.ts';
import { devSession } from '../../support/api.ts';
import { assertNothingChanged, eventually, inMs, ledger, sleep } from '../../support/assert.ts';
import { startTestGateway } from '../../support/gateway.ts';
import { cleanMarketplace, plantedMarketplace, plantedToken } from '../../support/planted.ts';
import { serveUpstream } from '../../support/upstream.ts';

type Finding = { id: string; severity: string; location: string; message: string };
type Verdict = { verdictId: number; connector: string; position: number; state: string; findings: Finding[] };

const env = {
  GATEWAY_DEV_INSECURE_AUTH: 'true',
  GATEWAY_ROLES_ADMINS: 'root',
  GATEWAY_VETTING_LICENSE_BAN: 'GPL-3.0-only',
};

t.test(
  'planted problems: every built-in connector reports its finding and the snapshot is BLOCKED; approve answers 409',
  async (t) => {
    const gw = await startTestGateway(t, env);
    const root = devSession(gw, 'root');
    const upstream = await serveUpstream(t, plantedMarketplace());
    await root.post('/api/v1/marketplaces', { name: 'acme', url: upstream.url });
    const snapshot = (await root.post('/api/v1/marketplaces/acme/ingest')).body;
    t.equal(snapshot.state, 'held');

    const report = await root.get(`/api/v1/snapshots/${snapshot.id}/vetting`);
    t.equal(report.status, 200);
    const body = report.body;
    t.equal(body.snapshotId, snapshot.id);
    t.equal(body.outcome, 'BLOCKED');
    t.equal(body.recordedOutcome, 'BLOCKED');
    t.match(body.run, {
      runId: Number,
      snapshotId: snapshot.id,
      trigger: 'ingestion',
      outcome: 'BLOCKED',
      startedAt: /^\d{4}-/,
      finishedAt: /^\d{4}-/,
    });
    const verdicts = body.run.verdicts as Verdict[];
    t.strictSame(
      verdicts.map((v) => v.connector),
      ['manifest', 'secrets', 'hooks', 'mcp', 'instructions', 'license'],
      'the default chain, in order',
    );
    t.strictSame(
      verdicts.map((v) => v.position),
      [0, 1, 2, 3, 4, 5],
      'positions from 0 in chain order',
    );
    t.strictSame(
      body.connectors.map((c: { name: string; order: number }) => [c.name, c.order]),
      [
        ['manifest', 0],
        ['secrets', 1],
        ['hooks', 2],
        ['mcp', 3],
        ['instructions', 4],
        ['license', 5],
      ],
    );
    t.ok(
      body.connectors.every((c: { description: string }) => c.description.length > 10),
      'every connector is described',
    );

    const of = (name: string) => verdicts.find((v) => v.connector === name)!;
    const blocking = (name: string) =>
      of(name).findings.filter((f) => f.severity === 'HIGH' || f.severity === 'CRITICAL');
    t.equal(of('secrets').state, 'FAIL');
    t.match(
      blocking('secrets'),
      [{ id: /^secrets-/, location: 'plugins/tools/config/deploy.env:2' }],
      'the credential, with its line',
    );
    t.notOk(JSON.stringify(body).includes(plantedToken), 'the secret appears nowhere in the report');
    t.notOk(JSON.stringify(body).includes(plantedToken.slice(4, 20)), 'not even in part');
    t.equal(of('hooks').state, 'FAIL');
    t.match(
      blocking('hooks'),
      [{ id: /^hooks-/, severity: 'CRITICAL', location: /^plugins\/tools\/hooks\/hooks\.json:\d+$/ }],
      'curl piped to a shell',
    );
    t.equal(of('mcp').state, 'FAIL');
    t.match(
      blocking('mcp'),
      [{ id: /^mcp-/, location: /^plugins\/tools\/\.mcp\.json:\d+$/ }],
      'npx -y of an unpinned package',
    );
    t.equal(of('instructions').state, 'FAIL');
    t.match(
      blocking('instructions'),
      [{ id: /^instructions-/, location: 'plugins/tools/skills/sneaky/SKILL.md:6', message: /U\+202E/ }],
      'hidden Unicode, on its line',
    );
    t.equal(of('license').state, 'FAIL');
    t.match(blocking('license'), [{ id: 'license-banned' }], 'the banned license');
    t.ok(body.uncovered.length >= 5, 'every blocking finding is uncovered');
    t.strictSame(body.suppressed, []);
    t.strictSame(body.waivers, []);

    // One vetting-verdict per connector and one vetting-completed per run.
    t.equal((await ledger(gw, 'vetting-verdict')).length, 6);
    t.match(await ledger(gw, 'vetting-completed'), [
      {
        principal: 'root',
        marketplace: 'acme',
        detail:
          /trigger=ingestion outcome=BLOCKED count=6 run=\d+ chain=manifest,secrets,hooks,mcp,instructions,license/,
      },
    ]);

    const refused = await assertNothingChanged(t, gw, () => root.post(`/api/v1/snapshots/${snapshot.id}/approve`));
    t.equal(refused.status, 409);
    t.match(refused.body, {
      type: /\/problems\/vetting-blocked$/,
      outcome: 'BLOCKED',
      uncovered: [{ connector: String, ruleId: String }],
    });
  },
);

t.test(
  'a clean marketplace is CLEAR and can be approved; a never-vetted snapshot reports BLOCKED with run null',
  async (t) => {
    const gw = await startTestGateway(t, env);
    const root = devSession(gw, 'root');
    const upstream = await serveUpstream(t, cleanMarketplace());
    await root.post('/api/v1/marketplaces', { name: 'tidy', url: upstream.url });
    const snapshot = (await root.post('/api/v1/marketplaces/tidy/ingest')).body;
    const report = (await root.get(`/api/v1/snapshots/${snapshot.id}/vetting`)).body;
    t.match(report, { outcome: 'CLEAR', recordedOutcome: 'CLEAR', uncovered: [], suppressed: [] });
    t.ok(
      (report.run.verdicts as Verdict[]).every((v) => v.state === 'PASS' || v.state === 'WARN'),
      'no connector blocks',
    );
    t.equal((await root.post(`/api/v1/snapshots/${snapshot.id}/approve`)).status, 200);

    // A snapshot captured without a run (as a vetting run that could not be made leaves it).
    const registered = (await root.get('/api/v1/marketplaces')).body[0];
    await gw.core.store.append(
      `marketplace-${registered.id}`,
      [
        {
          type: 'snapshot-captured',
          data: {
            marketplaceId: registered.id,
            marketplace: 'tidy',
            snapshotId: 999,
            sha: 'e'.repeat(40),
            upstreamSha: 'e'.repeat(40),
            state: 'held',
            violation: null,
            capturedAt: new Date().toISOString(),
            ingestedBy: 'root',
            trigger: 'on-demand',
            committedAt: null,
            description: null,
          },
          metadata: { principal: 'root', actorType: 'human', correlationId: 'x', at: new Date().toISOString() },
        },
      ],
      'any',
    );
    await gw.settled();
    t.match((await root.get('/api/v1/snapshots/999/vetting')).body, {
      snapshotId: 999,
      outcome: 'BLOCKED',
      recordedOutcome: 'BLOCKED',
      run: null,
    });
    t.equal((await root.get('/api/v1/snapshots/424242/vetting')).status, 404);
  },
);

t.test(
  'waivers: every 400 of the specification, SNAPSHOT and PATH scopes, CLEAR_WITH_WAIVERS, revocation and lapse',
  async (t) => {
    const gw = await startTestGateway(t, env);
    const root = devSession(gw, 'root');
    const upstream = await serveUpstream(t, plantedMarketplace());
    await root.post('/api/v1/marketplaces', { name: 'acme', url: upstream.url });
    const snapshot = (await root.post('/api/v1/marketplaces/acme/ingest')).body;
    const report = (await root.get(`/api/v1/snapshots/${snapshot.id}/vetting`)).body;
    const uncovered = report.uncovered as { connector: string; ruleId: string; location: string }[];
    const later = inMs(3_600_000);
    const waive = (body: Record<string, unknown>) => root.post(`/api/v1/snapshots/${snapshot.id}/waivers`, body);

    // 400: missing justification or expiry, past expiry, unusable scope.
    const first = uncovered[0]!;
    for (const [body, why] of [
      [{ ruleId: first.ruleId, scope: 'SNAPSHOT', expiresAt: later }, 'missing justification'],
      [{ ruleId: first.ruleId, scope: 'SNAPSHOT', justification: '   ', expiresAt: later }, 'blank justification'],
      [{ ruleId: first.ruleId, scope: 'SNAPSHOT', justification: 'ok' }, 'missing expiry'],
      [{ ruleId: first.ruleId, scope: 'SNAPSHOT', justification: 'ok', expiresAt: inMs(-60_000) }, 'past expiry'],
      [
        { ruleId: first.ruleId, scope: 'SNAPSHOT', justification: 'ok', expiresAt: 'next tuesday' },
        'unreadable expiry',
      ],
      [{ ruleId: first.ruleId, scope: 'FOREVER', justification: 'ok', expiresAt: later }, 'unusable scope'],
      [{ ruleId: first.ruleId, justification: 'ok', expiresAt: later }, 'missing scope'],
      [{ ruleId: first.ruleId, scope: 'PATH', justification: 'ok', expiresAt: later }, 'PATH without a path'],
      [
        { ruleId: first.ruleId, scope: 'PATH', path: 'plugins/../etc', justification: 'ok', expiresAt: later },
        'a path with ..',
      ],
      [{ scope: 'SNAPSHOT', justification: 'ok', expiresAt: later }, 'missing ruleId'],
    ] as const) {
      const answer = await assertNothingChanged(t, gw, () => waive(body), why);
      t.equal(answer.status, 400, why);
      t.match(answer.body, { type: /\/problems\/invalid-waiver$/ }, why);
    }
    t.equal(
      (
        await root.post('/api/v1/snapshots/424242/waivers', {
          ruleId: 'x',
          scope: 'SNAPSHOT',
          justification: 'ok',
          expiresAt: later,
        })
      ).status,
      404,
    );
    const outsider = devSession(gw, 'mallory');
    t.equal(
      (
        await assertNothingChanged(t, gw, () =>
          outsider.post(`/api/v1/snapshots/${snapshot.id}/waivers`, {
            ruleId: first.ruleId,
            scope: 'SNAPSHOT',
            justification: 'x',
            expiresAt: later,
          }),
        )
      ).status,
      403,
    );

    // Waive every blocking finding: the secret by PATH (its directory), the rest by SNAPSHOT.
    const created: { id: number; ruleId: string; scope: string; scopeValue: string }[] = [];
    for (const finding of uncovered) {
      const byPath = finding.connector === 'secrets';
      const answer = await waive({
        ruleId: finding.ruleId,
        justification: `reviewed ${finding.ruleId}`,
        expiresAt: later,
        ...(byPath
          ? { scope: 'PATH', path: 'plugins/tools/config' }
          : { scope: 'SNAPSHOT', path: 'ignored/for/snapshot' }),
      });
      t.equal(answer.status, 201, `waiver for ${finding.ruleId}`);
      t.match(answer.body, {
        id: Number,
        marketplace: 'acme',
        ruleId: finding.ruleId,
        scope: byPath ? 'PATH' : 'SNAPSHOT',
        scopeValue: byPath ? 'plugins/tools/config' : snapshot.sha,
        approvedBy: 'root',
        createdAt: /^\d{4}-/,
        expiresAt: later,
        revokedAt: null,
        revokedBy: null,
        active: true,
      });
      created.push(answer.body);
    }
    const waived = (await root.get(`/api/v1/snapshots/${snapshot.id}/vetting`)).body;
    t.equal(waived.outcome, 'CLEAR_WITH_WAIVERS', 'every blocking finding is covered');
    t.equal(waived.recordedOutcome, 'BLOCKED', 'recordedOutcome is never rewritten by a waiver');
    t.equal(waived.uncovered.length, 0);
    t.equal(waived.suppressed.length, uncovered.length);
    t.match(waived.suppressed[0], {
      connector: String,
      ruleId: String,
      location: String,
      waiverId: Number,
      approvedBy: 'root',
      expiresAt: later,
    });
    t.equal(waived.waivers.length, created.length, "the marketplace's waivers whose rule appears in this run");

    const listed = (await root.get('/api/v1/marketplaces/acme/waivers')).body as { id: number }[];
    t.strictSame(
      listed.map((w) => w.id),
      created.map((w) => w.id).reverse(),
      'newest first',
    );
    t.equal((await root.get('/api/v1/marketplaces/nope/waivers')).status, 404);

    // Revocation: row kept with active false; a second revocation is 404.
    const firstWaiver = created[0]!;
    const revoked = await root.delete(`/api/v1/waivers/${firstWaiver.id}`);
    t.equal(revoked.status, 200);
    t.match(revoked.body, { id: firstWaiver.id, active: false, revokedBy: 'root', revokedAt: /^\d{4}-/ });
    t.equal(
      (await assertNothingChanged(t, gw, () => root.delete(`/api/v1/waivers/${firstWaiver.id}`))).status,
      404,
      'already revoked',
    );
    t.equal((await root.delete('/api/v1/waivers/424242')).status, 404);
    t.equal(
      (await root.get(`/api/v1/snapshots/${snapshot.id}/vetting`)).body.outcome,
      'BLOCKED',
      'recomputed at once without the revoked waiver',
    );
    t.match(await ledger(gw, 'waiver-revoked'), [{ principal: 'root', marketplace: 'acme' }]);

    // Lapse: a waiver stops counting at expiresAt, and the sweep records the lapse once.
    const short = await waive({
      ruleId: firstWaiver.ruleId,
      scope: firstWaiver.scope,
      ...(firstWaiver.scope === 'PATH' ? { path: firstWaiver.scopeValue } : {}),
      justification: 'brief',
      expiresAt: inMs(1500),
    });
    t.equal(short.status, 201);
    t.equal((await root.get(`/api/v1/snapshots/${snapshot.id}/vetting`)).body.outcome, 'CLEAR_WITH_WAIVERS');
    await sleep(1600);
    t.equal(
      (await root.get(`/api/v1/snapshots/${snapshot.id}/vetting`)).body.outcome,
      'BLOCKED',
      'a lapsed waiver stops counting at expiresAt, before any sweep',
    );
    t.equal(await waiverSweep(gw.deps, 10), 1, 'the sweep records the lapse');
    t.equal(await waiverSweep(gw.deps, 10), 0, 'once');
    t.match(await ledger(gw, 'waiver-lapsed'), [
      { principal: 'waiver-sweep', marketplace: 'acme', detail: new RegExp(`waiver ${short.body.id}`) },
    ]);
    const afterLapse = (await root.get('/api/v1/marketplaces/acme/waivers')).body as { id: number; active: boolean }[];
    t.equal(
      afterLapse.find((w) => w.id === short.body.id)?.active,
      false,
      'a lapsed waiver stays readable with active false',
    );
  },
);

t.test('admin override of a BLOCKED outcome: admin only, with a reason, recorded on the approval', async (t) => {
  const gw = await startTestGateway(t, env);
  const root = devSession(gw, 'root');
  const upstream = await serveUpstream(t, plantedMarketplace());
  await root.post('/api/v1/marketplaces', { name: 'acme', url: upstream.url });
  const snapshot = (await root.post('/api/v1/marketplaces/acme/ingest')).body;
  await root.post('/api/v1/roles', { principal: 'alice', role: 'approver', marketplace: 'acme' });
  const alice = devSession(gw, 'alice');
  const byApprover = await assertNothingChanged(t, gw, () =>
    alice.post(`/api/v1/snapshots/${snapshot.id}/approve?overrideReason=${encodeURIComponent('trust me')}`),
  );
  t.equal(byApprover.status, 403, 'only an admin overrides');
  t.equal(
    (
      await assertNothingChanged(t, gw, () =>
        root.post(`/api/v1/snapshots/${snapshot.id}/approve?overrideReason=%20%20`),
      )
    ).status,
    409,
    'a blank reason is no override',
  );
  const approved = await root.post(
    `/api/v1/snapshots/${snapshot.id}/approve?overrideReason=${encodeURIComponent('accepted risk: ticket SEC-12')}`,
  );
  t.equal(approved.status, 200);
  t.equal(approved.body.state, 'approved');
  const entry = await eventually(async () => (await ledger(gw, 'snapshot-approved'))[0]);
  t.match(entry, { principal: 'root', detail: /override: accepted risk: ticket SEC-12/ });
});
