import t from 'tap';
import { devSession } from '../../support/api.ts';
import { assertNothingChanged, day, inMs, ledger, machine } from '../../support/assert.ts';
import { startTestGateway } from '../../support/gateway.ts';
import { cleanMarketplace } from '../../support/planted.ts';
import { serveUpstream } from '../../support/upstream.ts';
import { loopbackScanner } from './scanner.ts';

const env = { GATEWAY_DEV_INSECURE_AUTH: 'true', GATEWAY_ROLES_ADMINS: 'root' };
type Verdict = { connector: string; state: string; reportUrl: string | null };
const httpVerdict = (report: { run: { verdicts: Verdict[] } }) =>
  report.run.verdicts.find((v) => v.connector === 'http');

t.test('rerun: a held snapshot whose external scanner answered PENDING turns CLEAR once it answers', async (t) => {
  const scanner = await loopbackScanner(t);
  const gw = await startTestGateway(t, { ...env, GATEWAY_VETTING_HTTP_URL: scanner.url });
  const root = devSession(gw, 'root');
  const upstream = await serveUpstream(t, cleanMarketplace());
  await root.post('/api/v1/marketplaces', { name: 'tidy', url: upstream.url });
  const snapshot = (await root.post('/api/v1/marketplaces/tidy/ingest')).body;
  const rerunPath = `/api/v1/snapshots/${snapshot.id}/vetting/rerun`;
  const pending = (await root.get(`/api/v1/snapshots/${snapshot.id}/vetting`)).body;
  t.match(pending, { outcome: 'BLOCKED', run: { trigger: 'ingestion' } });
  t.match(httpVerdict(pending), { state: 'PENDING' });
  t.equal((await root.post(`/api/v1/snapshots/${snapshot.id}/approve`)).status, 409, 'PENDING blocks the approval');

  const revet = await assertNothingChanged(
    t,
    gw,
    () => root.post(`/api/v1/snapshots/${snapshot.id}/revet`),
    're-vet of the held snapshot',
  );
  t.equal(revet.status, 409, 'a held snapshot is not re-vetted');
  t.equal(scanner.received.length, 1, 'and the scanner is not asked');

  scanner.answer = 'clean';
  const rerun = await root.post(rerunPath);
  t.equal(rerun.status, 200);
  t.match(rerun.body, {
    snapshotId: snapshot.id,
    outcome: 'CLEAR',
    recordedOutcome: 'CLEAR',
    uncovered: [],
    run: { trigger: 'ingestion', outcome: 'CLEAR' },
  });
  t.not(rerun.body.run.runId, pending.run.runId, 'a new run');
  t.match(httpVerdict(rerun.body), { state: 'PASS', reportUrl: 'https://scanner.example/reports/2' });
  t.match(scanner.received[1], { snapshotId: snapshot.id, sha: snapshot.sha });
  t.strictSame(
    (await root.get(`/api/v1/snapshots/${snapshot.id}/vetting`)).body,
    rerun.body,
    'the vetting report shows the new run',
  );
  t.match(await ledger(gw, 'vetting-completed'), [{}, { principal: 'root', detail: /trigger=ingestion/ }]);
  t.equal((await root.post(`/api/v1/snapshots/${snapshot.id}/approve`)).status, 200, 'CLEAR now: approvable');

  const onApproved = await assertNothingChanged(t, gw, () => root.post(rerunPath), 'rerun of an approved snapshot');
  t.equal(onApproved.status, 409);
  t.match(onApproved.body, {
    type: /\/problems\/conflict$/,
    detail: /is approved: re-vet it with POST \/api\/v1\/snapshots\/\d+\/revet/,
  });
  const revetted = (await root.post(`/api/v1/snapshots/${snapshot.id}/revet`)).body;
  t.match(revetted, { classification: 'CLEAR', outcome: 'CLEAR' }, 'the approved one is re-vetted');
});

t.test('rerun: approver of the marketplace or admin; a machine credential reaches it with vetting:run', async (t) => {
  const gw = await startTestGateway(t, env);
  const root = devSession(gw, 'root');
  const upstream = await serveUpstream(t, cleanMarketplace());
  await root.post('/api/v1/marketplaces', { name: 'tidy', url: upstream.url });
  const snapshot = (await root.post('/api/v1/marketplaces/tidy/ingest')).body;
  const path = `/api/v1/snapshots/${snapshot.id}/vetting/rerun`;

  const outsider = await assertNothingChanged(t, gw, () => devSession(gw, 'nobody').post(path), 'an outsider');
  t.equal(outsider.status, 403);
  t.equal((await root.post('/api/v1/snapshots/424242/vetting/rerun')).status, 404);
  const approver = (principal: string) =>
    root.post('/api/v1/roles', { principal, role: 'approver', marketplace: 'tidy' });
  t.equal((await approver('carol')).status, 201);
  const byCarol = (await devSession(gw, 'carol').post(path)).body;
  t.match(byCarol, { snapshotId: snapshot.id, outcome: 'CLEAR', run: { trigger: 'ingestion' } });
  t.match((await ledger(gw, 'vetting-completed')).at(-1), { principal: 'carol' });

  const provision = async (principal: string, apiScopes: string[]) =>
    (
      await root.post('/api/v1/tokens/machine', {
        principal,
        name: principal,
        apiScopes,
        expiresAt: inMs(day),
      })
    ).body.token as string;
  const runner = machine(gw, await provision('ci-bot', ['vetting:run']));
  const reader = machine(gw, await provision('read-bot', ['snapshots:read']));
  for (const principal of ['ci-bot', 'read-bot']) await approver(principal);
  t.equal((await reader.post(path)).status, 403, 'without vetting:run');
  t.equal((await runner.post(path)).status, 200, 'with vetting:run and the approver role');
  t.match((await ledger(gw, 'vetting-completed')).at(-1), { principal: 'ci-bot', actor_type: 'machine' });
});
