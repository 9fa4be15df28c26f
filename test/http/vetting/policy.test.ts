import t from 'tap';
import { devSession } from '../../support/api.ts';
import { assertNothingChanged, ledger } from '../../support/assert.ts';
import { startTestGateway } from '../../support/gateway.ts';
import { cleanMarketplace, harmlessHook } from '../../support/planted.ts';
import { serveUpstream } from '../../support/upstream.ts';

const env = { GATEWAY_DEV_INSECURE_AUTH: 'true', GATEWAY_ROLES_ADMINS: 'root' };
const hookRule = 'snapshot.plugins.exists(p, size(p.hooks) > 0)';

t.test('policy rules: create, list, update, delete with every status of the specification', async (t) => {
  const gw = await startTestGateway(t, env);
  const root = devSession(gw, 'root');
  const nobody = devSession(gw, 'nobody');
  const body = { name: 'no-hooks', description: 'plugins may not carry hooks', expression: hookRule };

  t.equal(
    (await assertNothingChanged(t, gw, () => nobody.post('/api/v1/policy/rules', body))).status,
    403,
    'admin only',
  );
  const created = await root.post('/api/v1/policy/rules', body);
  t.equal(created.status, 200, 'spec: 200 rule');
  t.match(created.body, {
    id: Number,
    name: 'no-hooks',
    description: body.description,
    expression: hookRule,
    enabled: true,
    createdBy: 'root',
    createdAt: /^\d{4}-/,
    updatedBy: null,
    updatedAt: null,
  });
  t.match(await ledger(gw, 'policy-rule-created'), [{ principal: 'root' }]);

  const again = await assertNothingChanged(t, gw, () => root.post('/api/v1/policy/rules', body));
  t.equal(again.status, 409, 'name exists');
  t.match(again.body, { type: /\/problems\/policy-rule-exists$/ });
  for (const [bad, why] of [
    [{ ...body, name: 'Bad Name' }, 'malformed name'],
    [{ ...body, name: 'not-bool', expression: 'size(snapshot.plugins)' }, 'an int, not a boolean'],
    [{ ...body, name: 'syntax', expression: 'snapshot.plugins.exists(p,' }, 'a syntax error'],
    [{ ...body, name: 'unknown', expression: 'nosuchvariable == 1' }, 'an unknown variable'],
  ] as const) {
    const answer = await assertNothingChanged(t, gw, () => root.post('/api/v1/policy/rules', bad));
    t.equal(answer.status, 422, why);
  }
  const notCompiling = (
    await root.post('/api/v1/policy/rules', { ...body, name: 'not-bool', expression: 'size(snapshot.plugins)' })
  ).body;
  t.match(notCompiling, { type: /\/problems\/invalid-expression$/, detail: /bool/ });

  t.equal((await nobody.get('/api/v1/policy/rules')).status, 403, 'listing is auditor or admin');
  await root.post('/api/v1/roles', { principal: 'audrey', role: 'auditor' });
  await root.post('/api/v1/policy/rules', { ...body, name: 'disabled-one', enabled: false, expression: 'false' });
  const listed = (await devSession(gw, 'audrey').get('/api/v1/policy/rules')).body as {
    name: string;
    enabled: boolean;
  }[];
  t.strictSame(
    listed.map((r) => [r.name, r.enabled]),
    [
      ['disabled-one', false],
      ['no-hooks', true],
    ],
    'all rules, enabled or not',
  );

  const broken = await assertNothingChanged(t, gw, () =>
    root.put('/api/v1/policy/rules/no-hooks', { description: 'x', expression: '1 +', enabled: true }),
  );
  t.equal(broken.status, 422, 'on 422 the stored rule is unchanged');
  t.equal(
    (await root.put('/api/v1/policy/rules/nope', { description: 'x', expression: 'true', enabled: true })).status,
    404,
  );
  const updated = await root.put('/api/v1/policy/rules/no-hooks', {
    description: 'changed',
    expression: hookRule,
    enabled: false,
  });
  t.equal(updated.status, 200);
  t.match(updated.body, {
    description: 'changed',
    enabled: false,
    updatedBy: 'root',
    updatedAt: /^\d{4}-/,
    createdBy: 'root',
  });
  t.equal((await root.delete('/api/v1/policy/rules/no-hooks')).status, 200);
  t.equal((await root.delete('/api/v1/policy/rules/no-hooks')).status, 404);
  t.equal(
    (await root.put('/api/v1/policy/rules/no-hooks', { description: 'x', expression: 'true', enabled: true })).status,
    404,
  );
});

t.test(
  'a rule such as snapshot.plugins.exists(p, size(p.hooks) > 0) denies approval, and the playground shows it',
  async (t) => {
    const gw = await startTestGateway(t, env);
    const root = devSession(gw, 'root');
    const upstream = await serveUpstream(t, cleanMarketplace(harmlessHook));
    await root.post('/api/v1/marketplaces', { name: 'tidy', url: upstream.url });
    const snapshot = (await root.post('/api/v1/marketplaces/tidy/ingest')).body;
    t.equal(
      (await root.get(`/api/v1/snapshots/${snapshot.id}/vetting`)).body.outcome,
      'CLEAR',
      'vetting has nothing against a harmless hook',
    );

    const playground = (expression: string, id = snapshot.id) =>
      root.post('/api/v1/policy/playground', { snapshotId: id, expression });
    t.strictSame((await playground(hookRule)).body, { matched: true });
    t.strictSame((await playground('snapshot.plugins.exists(p, size(p.mcpServers) > 0)')).body, { matched: false });
    t.match(
      (await playground('snapshot.plugins.exists(p,')).body,
      { error: /syntax/ },
      'a broken expression is a 200 with error',
    );
    t.strictSame(
      (
        await playground(
          'snapshot.plugins.exists(p, p.hooks.exists(h, h.runs == "echo formatted" && h.event == "PostToolUse" && h.matcher == "Write"))',
        )
      ).body,
      { matched: true },
    );
    t.strictSame(
      (await playground('approver.principal == "root" && "admin" in approver.roles && marketplace.name == "tidy"'))
        .body,
      { matched: true },
    );
    t.equal((await playground('true', 424242)).status, 404);
    t.equal(
      (
        await devSession(gw, 'nobody').post('/api/v1/policy/playground', {
          snapshotId: snapshot.id,
          expression: 'true',
        })
      ).status,
      403,
      'the caller may not approve that snapshot',
    );
    t.equal((await ledger(gw)).filter((e) => e.event.startsWith('policy')).length, 0, 'the playground records nothing');

    await root.post('/api/v1/policy/rules', { name: 'no-hooks', description: 'no hooks', expression: hookRule });
    await root.post('/api/v1/policy/rules', { name: 'never', description: 'matches nothing', expression: 'false' });
    const denied = await root.post(`/api/v1/snapshots/${snapshot.id}/approve`);
    t.equal(denied.status, 409);
    t.match(denied.body, { type: /\/problems\/policy-denied$/, denials: [{ rule: 'no-hooks', outcome: 'matched' }] });
    t.equal(denied.body.denials.length, 1, 'only the deciding rule');
    t.match(await ledger(gw, 'policy-denied'), [{ principal: 'root', marketplace: 'tidy', detail: /no-hooks/ }]);
    t.equal((await root.get('/api/v1/marketplaces')).body[0].snapshots[0].state, 'held', 'no state change');

    // An enabled rule applies at the very next approval; disabling is the off-switch.
    await root.put('/api/v1/policy/rules/no-hooks', { description: 'no hooks', expression: hookRule, enabled: false });
    const approved = await root.post(`/api/v1/snapshots/${snapshot.id}/approve`);
    t.equal(approved.status, 200, 'a disabled rule does not apply');
  },
);

t.test('a rule that fails to evaluate denies too', async (t) => {
  const gw = await startTestGateway(t, env);
  const root = devSession(gw, 'root');
  const upstream = await serveUpstream(t, cleanMarketplace());
  await root.post('/api/v1/marketplaces', { name: 'tidy', url: upstream.url });
  const snapshot = (await root.post('/api/v1/marketplaces/tidy/ingest')).body;
  await root.post('/api/v1/policy/rules', {
    name: 'divides',
    description: 'errors at run time',
    expression: '1 / (size(snapshot.plugins) - 1) == 1',
  });
  const denied = await root.post(`/api/v1/snapshots/${snapshot.id}/approve`);
  t.equal(denied.status, 409);
  t.match(denied.body, { denials: [{ rule: 'divides', outcome: 'error' }] });
  t.match(await ledger(gw, 'policy-denied'), [{ detail: /divides/ }]);
});
