import t from 'tap';
import { devSession } from '../../support/api.ts';
import { assertNothingChanged, day, inMs, ledger, machine } from '../../support/assert.ts';
import { startTestGateway } from '../../support/gateway.ts';
import { cleanMarketplace, harmlessHook } from '../../support/planted.ts';
import { serveUpstream } from '../../support/upstream.ts';

const env = { GATEWAY_DEV_INSECURE_AUTH: 'true', GATEWAY_ROLES_ADMINS: 'root' };
const hookRule = 'snapshot.plugins.exists(p, size(p.hooks) > 0)';

type Verdict = { id: number; marketplace: string; sha: string; state: string; decision: string; outcome: unknown };

// POST /api/v1/policy/dry-run {expression} evaluates a rule against every served snapshot and
// every held one without recording anything, and answers which it would deny and why.
t.test('a dry run answers, per served and held snapshot, what a rule would deny, and records nothing', async (t) => {
  const gw = await startTestGateway(t, env);
  const root = devSession(gw, 'root');
  const hooky = await serveUpstream(t, cleanMarketplace(harmlessHook), 'hooky');
  const tidy = await serveUpstream(t, cleanMarketplace(), 'tidy');
  await root.post('/api/v1/marketplaces', { name: 'hooky', url: hooky.url });
  await root.post('/api/v1/marketplaces', { name: 'tidy', url: tidy.url });
  const servedHooky = (await root.post('/api/v1/marketplaces/hooky/ingest')).body;
  t.equal((await root.post(`/api/v1/snapshots/${servedHooky.id}/approve`)).status, 200, 'hooky served');
  await hooky.commit({ 'plugins/tidy/commands/more.md': '---\ndescription: more\n---\nMore.\n' });
  const heldHooky = (await root.post('/api/v1/marketplaces/hooky/ingest')).body;
  const heldTidy = (await root.post('/api/v1/marketplaces/tidy/ingest')).body;
  await tidy.commit({ 'plugins/tidy/commands/other.md': '---\ndescription: o\n---\nO.\n' });
  const rejectedTidy = (await root.post('/api/v1/marketplaces/tidy/ingest')).body;
  t.equal((await root.post(`/api/v1/snapshots/${rejectedTidy.id}/reject`)).status, 200);
  await root.post('/api/v1/roles', { principal: 'audrey', role: 'auditor' });

  const dryRun = (expression: string, who = root, extra = {}) =>
    assertNothingChanged(t, gw, () => who.post('/api/v1/policy/dry-run', { expression, ...extra }), 'the dry run');
  const answer = await dryRun(hookRule);
  t.equal(answer.status, 200);
  t.match(answer.body, { expression: hookRule, at: /^\d{4}-/, total: 3, evaluated: 3, truncated: false });
  t.strictSame(
    (answer.body.snapshots as Verdict[]).map((s) => [s.id, s.marketplace, s.sha, s.state, s.decision, s.outcome]),
    [
      [servedHooky.id, 'hooky', servedHooky.sha, 'approved', 'deny', 'matched'],
      [heldTidy.id, 'tidy', heldTidy.sha, 'held', 'allow', null],
      [heldHooky.id, 'hooky', heldHooky.sha, 'held', 'deny', 'matched'],
    ],
    'served first, then held, newest first; the rejected snapshot is neither served nor held',
  );
  t.match(answer.body, { denied: 2, allowed: 1 });

  // "an evaluation error counts as a denial like enforcement does"
  const erring = (await dryRun('1 / (size(snapshot.plugins) - 1) == 1')).body;
  t.match(erring, { denied: 3, allowed: 0 });
  t.match(erring.snapshots[0], { decision: 'deny', outcome: 'error', error: /divi|zero/i });

  const byMarketplace = (await dryRun('marketplace.name == "tidy"', devSession(gw, 'audrey'))).body;
  t.strictSame(
    (byMarketplace.snapshots as Verdict[]).filter((s) => s.decision === 'deny').map((s) => s.id),
    [heldTidy.id],
    'an auditor may dry-run too',
  );
  const limited = (await dryRun('false', root, { limit: 1 })).body;
  t.match(limited, { total: 3, evaluated: 1, truncated: true, denied: 0, allowed: 1 });
  t.equal(limited.snapshots[0].id, servedHooky.id, 'a limit keeps the served snapshots first');

  // "A compile error answers 422 invalid-expression like rule creation."
  const broken = await dryRun('size(snapshot.plugins)');
  t.equal(broken.status, 422);
  t.match(broken.body, { type: /\/problems\/invalid-expression$/, detail: /bool/ });
  t.equal((await dryRun('snapshot.plugins.exists(p,')).status, 422, 'a syntax error');

  t.equal((await dryRun('true', devSession(gw, 'nobody'))).status, 403, 'neither auditor nor admin');
  t.equal((await ledger(gw)).filter((e) => e.event.startsWith('policy')).length, 0, 'no policy entry');

  // The allowlist is closed: an endpoint is unreachable by machine until named.
  const credential = await root.post('/api/v1/tokens/machine', {
    principal: 'ci-bot',
    name: 'ci',
    apiScopes: ['policy:read', 'policy:write'],
    expiresAt: inMs(30 * day),
  });
  t.equal(credential.status, 201);
  await root.post('/api/v1/roles', { principal: 'ci-bot', role: 'admin' });
  const bot = machine(gw, credential.body.token);
  t.equal((await bot.get('/api/v1/policy/rules')).status, 200, 'the credential reaches the rule listing');
  t.equal((await bot.post('/api/v1/policy/dry-run', { expression: 'true' })).status, 403, 'but not the dry run');
});
