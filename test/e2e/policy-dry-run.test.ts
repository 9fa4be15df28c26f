// Policy dry run: POST /api/v1/policy/dry-run {expression} evaluates a rule against every
// served snapshot and every held one without recording anything, and answers which it would deny and why;
// the portal's policy page shows it before a rule is enabled.
import t from 'tap';
import { newContext, openBrowser, screenshot, seriousViolations, signInAtTestIdp } from '../support/browser.ts';
import { startGatewayWithOidc } from '../support/oidc.ts';
import { marketplaceFiles, serveUpstream } from '../support/upstream.ts';

t.test('Policy: the rule editor dry-runs an expression against the served and held snapshots', async (t) => {
  const browser = await openBrowser(t);
  if (!browser) return;
  const { baseUrl, login } = await startGatewayWithOidc(t, { env: { GATEWAY_ROLES_ADMINS: 'root' } });
  const root = await login('root');
  const ingest = async (name: string, plugins: string[]) => {
    const upstream = await serveUpstream(t, marketplaceFiles(name, plugins), name);
    const registered = await root.request('/api/v1/marketplaces', {
      method: 'POST',
      json: { name, url: upstream.url },
    });
    t.equal(registered.status, 201, `${name} registered`);
    const ingested = await root.request(`/api/v1/marketplaces/${name}/ingest`, { method: 'POST' });
    t.equal(ingested.status, 201, `${name} ingested`);
    return (await ingested.json()) as { id: number; sha: string };
  };
  const served = await ingest('acme', ['alpha', 'beta']);
  t.equal((await root.request(`/api/v1/snapshots/${served.id}/approve`, { method: 'POST' })).status, 200, 'served');
  const held = await ingest('other', ['gamma']);

  const page = await (await newContext(browser, baseUrl)).newPage();
  await signInAtTestIdp(page, 'root');
  await page.goto('/policy');
  await page.getByRole('heading', { level: 1, name: 'Policy' }).waitFor();
  const editor = page.getByRole('form', { name: 'New rule' });
  const dryRun = editor.getByRole('region', { name: 'Dry run' });

  await editor.getByLabel(/^Expression/).fill('snapshot.plugins.exists(p, p.name == "beta")');
  await dryRun.getByRole('button', { name: 'Dry run' }).click();
  const result = dryRun.getByRole('status');
  // A loaded machine may take a while; should no table come, the failure says what the section shows instead.
  await result
    .getByRole('table')
    .waitFor({ timeout: 60_000 })
    .catch(async (error: unknown) => {
      throw new Error(`no table in the dry run's answer: ${await dryRun.textContent()} (${String(error)})`);
    });
  t.match(await result.textContent(), /Would deny 1 and allow 1 of 2 served and held snapshots/, 'how many');
  const denied = result.getByRole('row', { name: new RegExp(`^${served.id}\\b`) });
  t.match(await denied.textContent(), new RegExp(`acme${served.sha.slice(0, 12)}approvedmatches`), 'which and why');
  t.equal(
    await result.getByRole('row', { name: new RegExp(`^${held.id}\\b`) }).count(),
    0,
    'the allowed one is not listed',
  );
  t.same(await seriousViolations(page), [], 'no serious or critical accessibility violation (dry run shown)');
  await screenshot(page, 'policy-dry-run');

  // "an evaluation error counts as a denial like enforcement does"
  await editor.getByLabel(/^Expression/).fill('1 / (size(snapshot.plugins) - 1) == 1');
  await result.getByText('The expression has changed since this dry run').waitFor();
  await dryRun.getByRole('button', { name: 'Dry run' }).click();
  await result.getByText(/Would deny 2 and allow 0/).waitFor();
  t.match(
    await result.getByRole('row', { name: new RegExp(`^${held.id}\\b`) }).textContent(),
    /error: .*(divi|zero)/i,
    'the held snapshot with one plugin fails to evaluate: denied, with the error',
  );

  // A compile error answers 422 invalid-expression, shown as the problem.
  await editor.getByLabel(/^Expression/).fill('size(snapshot.plugins)');
  await dryRun.getByRole('button', { name: 'Dry run' }).click();
  const problem = dryRun.getByRole('alert');
  await problem.waitFor();
  t.match(await problem.textContent(), /does not compile.*bool/s, 'the compile error');
  t.same(await seriousViolations(page), [], 'no serious or critical accessibility violation (compile error)');

  const rules = (await (await root.request('/api/v1/policy/rules')).json()) as unknown[];
  t.same(rules, [], 'a dry run creates no rule');
  const audit = (await (await root.request('/api/v1/audit?limit=100')).json()) as { entries: Array<{ event: string }> };
  t.ok(audit.entries.length > 0, 'the ledger has the registrations, ingests and the approval');
  t.same(
    audit.entries.filter((e) => e.event.startsWith('policy')),
    [],
    'and no policy entry: the dry run records nothing',
  );
});
