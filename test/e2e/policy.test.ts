// Rules with an editor, and the playground against a chosen snapshot. Spec, Policy:
// POST /api/v1/policy/rules answers 422 for an "expression not compiling to boolean"; the playground
// answers {matched?, error?} and "nothing persisted or recorded"; the rule listing is for auditors and
// admins, create/update/delete for admins.
import t from 'tap';
import { newContext, openBrowser, screenshot, seriousViolations, signInAtTestIdp } from '../support/browser.ts';
import { startGatewayWithOidc } from '../support/oidc.ts';
import { marketplaceFiles, serveUpstream } from '../support/upstream.ts';

t.test(
  'Policy: an admin writes rules, sees a compile error beside the expression, and tries the playground',
  async (t) => {
    const browser = await openBrowser(t);
    if (!browser) return;
    const { baseUrl, login } = await startGatewayWithOidc(t, {
      env: { GATEWAY_ROLES_ADMINS: 'root' },
      claimMappings: [{ claim: 'groups', value: 'auditors', role: 'auditor' }],
    });
    const root = await login('root');
    const upstream = await serveUpstream(t, marketplaceFiles('acme', ['alpha', 'beta']), 'acme');
    t.equal(
      (await root.request('/api/v1/marketplaces', { method: 'POST', json: { name: 'acme', url: upstream.url } }))
        .status,
      201,
    );
    const ingested = await root.request('/api/v1/marketplaces/acme/ingest', { method: 'POST' });
    const snapshot = (await ingested.json()) as { id: number; sha: string };
    t.equal(ingested.status, 201, 'a held snapshot to try rules against');

    const page = await (await newContext(browser, baseUrl)).newPage();
    await signInAtTestIdp(page, 'root');
    await page.goto('/policy');
    await page.getByRole('heading', { level: 1, name: 'Policy' }).waitFor();
    await page.getByText('No policy rule').waitFor();

    const editor = page.getByRole('form', { name: 'New rule' });
    await editor.getByLabel('Name').fill('no-hooks');
    await editor.getByLabel('Description').fill('plugins may not declare hooks');
    await editor.getByLabel(/^Expression/).fill('snapshot.plugins.exists(p, size(p.hooks) > 0)');
    await editor.getByRole('button', { name: 'Create rule' }).click();
    const row = page.getByRole('row', { name: /^no-hooks/ });
    await row.waitFor();
    t.match(
      await row.textContent(),
      /plugins may not declare hooks.*size\(p\.hooks\) > 0.*enabled/,
      'the rule is listed',
    );

    // A bad expression: the 422's compile error next to the textarea, nothing created.
    const fresh = page.getByRole('form', { name: 'New rule' });
    await fresh.getByLabel('Name').fill('broken');
    await fresh.getByLabel(/^Expression/).fill('size(snapshot.plugins)');
    await fresh.getByRole('button', { name: 'Create rule' }).click();
    const compileError = fresh.getByRole('alert');
    await compileError.waitFor();
    t.match(await compileError.textContent(), /does not compile to a boolean/, 'the compile error is shown');
    const expression = fresh.getByLabel(/^Expression/);
    t.equal(await expression.getAttribute('aria-invalid'), 'true', 'the expression is marked invalid');
    t.equal(
      await expression.getAttribute('aria-describedby'),
      await compileError.getAttribute('id'),
      'and described by it',
    );
    const rules = (await (await root.request('/api/v1/policy/rules')).json()) as Array<{ name: string }>;
    t.same(
      rules.map((r) => r.name),
      ['no-hooks'],
      'the broken rule was not created',
    );
    t.same(await seriousViolations(page), [], 'no serious or critical accessibility violation (compile error shown)');

    // The playground against the held snapshot: the free expression and every rule, one decision each.
    const playground = page.getByRole('region', { name: 'Playground' });
    await playground.getByLabel('Snapshot').selectOption(String(snapshot.id));
    await playground.getByLabel(/^Expression to try/).fill('size(snapshot.plugins) == 2');
    await playground.getByRole('button', { name: 'Evaluate' }).click();
    const result = playground.getByRole('status');
    await result.getByRole('table').waitFor();
    t.match(
      await result.getByRole('row', { name: /^This expression/ }).textContent(),
      /matches: denies approval/,
      'the expression matches: two plugins',
    );
    t.match(await result.getByRole('row', { name: /^no-hooks/ }).textContent(), /no match: allows/, 'no hooks: allows');
    t.match(await result.textContent(), /No enabled rule would refuse approving this snapshot now/);
    t.same(await seriousViolations(page), [], 'no serious or critical accessibility violation (playground)');
    await page.getByRole('heading', { level: 1 }).scrollIntoViewIfNeeded();
    await screenshot(page, 'policy');

    // Edit the rule into one that matches; the playground then names it as deciding.
    await row.getByRole('button', { name: 'Edit no-hooks' }).click();
    const edit = page.getByRole('form', { name: 'Edit rule no-hooks' });
    await edit.getByLabel(/^Expression/).fill('snapshot.plugins.exists(p, p.name == "beta")');
    await edit.getByRole('button', { name: 'Save rule' }).click();
    await page.getByRole('row', { name: /^no-hooks.*beta/ }).waitFor();
    await playground.getByRole('button', { name: 'Evaluate' }).click();
    await result.getByText('Approving now would be refused by no-hooks.').waitFor();
    t.pass('the edited rule decides in the playground');
    const approval = await root.request(`/api/v1/snapshots/${snapshot.id}/approve`, { method: 'POST' });
    t.equal(approval.status, 409, 'as at approval');
    t.match(await approval.text(), /no-hooks/, 'which names the deciding rule');

    await page
      .getByRole('row', { name: /^no-hooks/ })
      .getByRole('button', { name: 'Delete no-hooks' })
      .click();
    await page.getByRole('button', { name: 'Confirm delete' }).click();
    await page.getByText('No policy rule').waitFor();
    t.pass('the rule is deleted after confirmation');
  },
);

t.test('Policy: an auditor reads the rules without an editor; an approver only has the playground', async (t) => {
  const browser = await openBrowser(t);
  if (!browser) return;
  const { baseUrl, login } = await startGatewayWithOidc(t, {
    env: { GATEWAY_ROLES_ADMINS: 'root' },
    claimMappings: [
      { claim: 'groups', value: 'auditors', role: 'auditor' },
      { claim: 'groups', value: 'developers', role: 'approver', marketplace: 'acme' },
    ],
  });
  const root = await login('root');
  const created = await root.request('/api/v1/policy/rules', {
    method: 'POST',
    json: { name: 'young', description: 'too recent', expression: 'releaseAge.seconds < 86400' },
  });
  t.equal(created.status, 200);
  const page = await (await newContext(browser, baseUrl)).newPage();
  await signInAtTestIdp(page, 'audrey');
  await page.goto('/policy');
  await page.getByRole('row', { name: /^young/ }).waitFor();
  t.equal(await page.getByRole('form', { name: 'New rule' }).count(), 0, 'no editor');
  t.equal(await page.getByRole('button', { name: /^(Edit|Delete) / }).count(), 0, 'no edit or delete');
  t.same(await seriousViolations(page), [], 'no serious or critical accessibility violation (auditor)');

  // alice approves acme (a claim role) but is no auditor: the playground, no rule list, no 403 on the page.
  const approver = await (await newContext(browser, baseUrl)).newPage();
  await signInAtTestIdp(approver, 'alice');
  await approver.goto('/policy');
  await approver.getByRole('heading', { level: 2, name: 'Playground' }).waitFor();
  t.equal(await approver.getByRole('heading', { name: 'Rules' }).count(), 0, 'no rule list for an approver');
  t.equal(await approver.getByRole('alert').count(), 0, 'and no refusal shown');
  t.same(await seriousViolations(approver), [], 'no serious or critical accessibility violation (approver)');
});
