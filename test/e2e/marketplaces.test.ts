// The Marketplaces pages: list, register (upstream or hosted), ingest now, sync mode (the webhook secret
// shown once with the forge settings to paste), removal with a reason, each showing only the actions the
// signed-in roles allow (the server still enforces); a reviewer without the admin role sees no admin actions
// and gets 403 from the API when forcing one.
import { createHmac } from 'node:crypto';
import t from 'tap';
import { newContext, openBrowser, screenshot, seriousViolations, signInAtTestIdp } from '../support/browser.ts';
import { startGatewayWithOidc } from '../support/oidc.ts';
import { cleanMarketplace } from '../support/planted.ts';
import { serveUpstream } from '../support/upstream.ts';

const admins = { GATEWAY_ROLES_ADMINS: 'root' };

t.test('an admin registers, ingests, switches to webhook mode and removes a marketplace in the portal', async (t) => {
  const browser = await openBrowser(t);
  if (!browser) return;
  const upstream = await serveUpstream(t, cleanMarketplace());
  const { baseUrl } = await startGatewayWithOidc(t, { env: admins });
  const page = await (await newContext(browser, baseUrl)).newPage();
  await signInAtTestIdp(page, 'root');

  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Marketplaces' }).click();
  await page.getByRole('heading', { level: 1, name: 'Marketplaces' }).waitFor();
  await page.getByText('No marketplace is registered yet.').waitFor();
  t.pass('an empty estate says so');

  // Origin upstream (default) requires url.
  await page.getByRole('button', { name: 'Register a marketplace' }).click();
  t.same(await seriousViolations(page), [], 'the registration form: no serious accessibility violation');
  await page.getByLabel('Name').fill('tidy');
  // "502: upstream unreadable …; nothing is registered. The problem carries reason, rootCause, nextStep."
  await page.getByLabel('Upstream clone URL').fill('http://127.0.0.1:9/missing.git');
  await page.getByRole('button', { name: 'Register', exact: true }).click();
  const refusal = page.getByRole('alert');
  await refusal.waitFor();
  t.match(await refusal.textContent(), /\(502\)/, 'the refusal is shown with its status');
  t.ok(await page.getByText(/^Next step: /).isVisible(), 'with the next step the gateway suggests');
  t.equal(new URL(page.url()).pathname, '/marketplaces', 'still on the form');
  await page.getByLabel('Upstream clone URL').fill(upstream.url);
  await page.getByRole('button', { name: 'Register', exact: true }).click();
  await page.getByRole('heading', { level: 1, name: 'tidy' }).waitFor();
  t.equal(new URL(page.url()).pathname, '/marketplaces/tidy', 'the new marketplace’s page');
  t.ok(await page.getByText('Registered tidy.').isVisible(), 'registration confirmed');
  t.ok(await page.getByText(upstream.url).isVisible(), 'its upstream URL shown');
  // What `claude plugin marketplace add` and git take: without `.git` Claude Code does not see a repository.
  t.ok(await page.getByText(`${baseUrl}/git/tidy.git`, { exact: true }).isVisible(), 'the clone URL ends in .git');
  t.ok(await page.getByText('No snapshot yet').isVisible(), 'no snapshot before the first ingest');

  // Ingest … commit not already captured → held.
  await page.getByRole('button', { name: 'Ingest now' }).click();
  const captured = page.getByRole('status').filter({ hasText: /Snapshot #\d+ of/ });
  await captured.waitFor();
  t.match(await captured.textContent(), /is held/, 'the ingest answer says the snapshot is held');
  const row = page.getByRole('row').filter({ has: page.getByRole('link', { name: /^#\d+$/ }) });
  await row.first().waitFor();
  t.equal(await row.count(), 1, 'one snapshot listed');
  t.match(await row.textContent(), /Held for review/, 'listed with its state, in words');
  const snapshotLink = await row.getByRole('link').getAttribute('href');
  t.match(snapshotLink, /^\/review\/\d+$/, 'the snapshot links to its review page');
  t.same(await seriousViolations(page), [], 'the marketplace page: no serious accessibility violation');

  // Entering webhook mode issues a new secret returned once as webhookSecret; POST /hooks/{marketplace}
  // "authenticated only by HMAC-SHA256 of the exact raw body".
  await page.getByLabel('Webhook (the forge calls the gateway)').check();
  await page.getByRole('button', { name: 'Save sync mode' }).click();
  await page.getByRole('heading', { name: 'Webhook settings to paste into the forge' }).waitFor();
  t.equal(await page.getByLabel('Payload URL').inputValue(), `${baseUrl}/hooks/tidy`);
  t.equal(await page.getByLabel('Content type').inputValue(), 'application/json');
  const secret = await page.getByLabel('Secret', { exact: true }).inputValue();
  t.ok(secret.length >= 16, 'the secret is shown');
  t.same(await seriousViolations(page), [], 'the webhook settings: no serious accessibility violation');
  const body = '{"ref":"refs/heads/main"}';
  const hook = (key: string) =>
    fetch(`${baseUrl}/hooks/tidy`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-hub-signature-256': `sha256=${createHmac('sha256', key).update(body).digest('hex')}`,
      },
      body,
    });
  t.equal((await hook(secret)).status, 202, 'the secret shown is the one the gateway checks');
  t.equal((await hook(`${secret}x`)).status, 404, 'another secret is refused');
  await page.reload();
  await page.getByRole('heading', { level: 1, name: 'tidy' }).waitFor();
  t.equal(await page.getByLabel('Secret', { exact: true }).count(), 0, 'after a reload the secret is gone');
  t.ok(await page.getByText('The secret was shown once').isVisible(), 'and the page says it was shown once');
  await screenshot(page, 'marketplaces-detail');
  t.match(await page.getByRole('definition').filter({ hasText: 'webhook' }).first().textContent(), /Webhook/);

  // Hosted requires url absent; publishers push to /publish/{name}.
  await page.getByRole('link', { name: 'All marketplaces' }).click();
  await page.getByRole('button', { name: 'Register a marketplace' }).click();
  await page.getByLabel('Name').fill('team-skills');
  await page.getByLabel('Hosted: publishers push to the gateway').check();
  t.equal(await page.getByLabel('Upstream clone URL').count(), 0, 'no URL for a hosted marketplace');
  await page.getByLabel('Push policy').selectOption('allow-rewrite');
  await page.getByRole('button', { name: 'Register', exact: true }).click();
  await page.getByRole('heading', { level: 1, name: 'team-skills' }).waitFor();
  t.ok(await page.getByText(`${baseUrl}/publish/team-skills`).isVisible(), 'its push URL shown');

  // The list, its filter.
  await page.getByRole('link', { name: 'All marketplaces' }).click();
  await page.getByRole('heading', { level: 1, name: 'Marketplaces' }).waitFor();
  await page.getByText('2 marketplaces').waitFor();
  const listed = page.getByRole('row').filter({ has: page.getByRole('link', { name: 'tidy' }) });
  t.match(
    await listed.textContent(),
    /^tidyAwaiting review.*Webhook.*1 held/,
    'status, sync mode and the held snapshot',
  );
  t.same(await seriousViolations(page), [], 'the list: no serious accessibility violation');
  await screenshot(page, 'marketplaces-list');
  await page.getByLabel('Filter').fill('nothing-like-it');
  await page.getByText('No marketplace matches').waitFor();
  await page.getByLabel('Filter').fill('TID');
  await listed.waitFor();
  await page.getByText('1 of 2 marketplaces').waitFor();
  t.equal(await page.getByRole('link', { name: 'team-skills' }).count(), 0, 'the filter finds by name, any case');

  // DELETE /api/v1/marketplaces/{name} {reason} required, non-empty.
  await page.getByRole('link', { name: 'tidy' }).click();
  await page.getByRole('button', { name: 'Remove this marketplace…' }).click();
  const remove = page.getByRole('button', { name: 'Remove tidy' });
  t.ok(await remove.isDisabled(), 'no removal without a reason');
  await page.getByLabel('Reason (recorded on the ledger)').fill('replaced by the internal marketplace');
  t.same(await seriousViolations(page), [], 'the removal form: no serious accessibility violation');
  await remove.click();
  await page.getByText('Removed tidy.').waitFor();
  t.equal(new URL(page.url()).pathname, '/marketplaces', 'back at the list');
  t.equal(await page.getByRole('link', { name: 'tidy' }).count(), 0, 'no longer listed');
  const live = await page.evaluate(
    async () => (await (await fetch('/api/v1/marketplaces')).json()) as { name: string; url: string | null }[],
  );
  t.same(
    live.map((m) => [m.name, m.url]),
    [['team-skills', null]],
    'the API lists only the hosted one',
  );
});

t.test('a non-admin sees the marketplaces but no admin action, and forcing one gets 403', async (t) => {
  const browser = await openBrowser(t);
  if (!browser) return;
  const upstream = await serveUpstream(t, cleanMarketplace());
  const gw = await startGatewayWithOidc(t, {
    env: admins,
    claimMappings: [{ claim: 'groups', value: 'developers', role: 'approver', marketplace: 'tidy' }],
  });
  const root = await gw.login('root');
  t.equal(
    (await root.request('/api/v1/marketplaces', { method: 'POST', json: { name: 'tidy', url: upstream.url } })).status,
    201,
  );

  const page = await (await newContext(browser, gw.baseUrl)).newPage();
  await signInAtTestIdp(page, 'alice');
  await page.goto('/marketplaces');
  await page.getByRole('link', { name: 'tidy' }).waitFor();
  t.equal(await page.getByRole('button', { name: 'Register a marketplace' }).count(), 0, 'no register button');
  t.same(await seriousViolations(page), [], 'the list: no serious accessibility violation');

  await page.getByRole('link', { name: 'tidy' }).click();
  await page.getByRole('heading', { level: 1, name: 'tidy' }).waitFor();
  // Ingest … approver of that marketplace, or admin; "Register or remove marketplace; change sync mode: admin".
  t.equal(await page.getByRole('button', { name: 'Ingest now' }).count(), 1, 'an approver of tidy may ingest it');
  t.equal(await page.getByRole('heading', { name: 'Sync mode' }).count(), 0, 'no sync mode form');
  t.equal(await page.getByRole('button', { name: 'Save sync mode' }).count(), 0);
  t.equal(await page.getByRole('button', { name: /Remove/ }).count(), 0, 'no remove button');
  t.same(await seriousViolations(page), [], 'the marketplace page: no serious accessibility violation');

  const forced = await page.evaluate(async () => {
    const xsrf = decodeURIComponent(
      /(?:^|; )XSRF-TOKEN=([^;]*)/.exec(
        (globalThis as unknown as { document: { cookie: string } }).document.cookie,
      )?.[1] ?? '',
    );
    const headers = { 'content-type': 'application/json', 'x-xsrf-token': xsrf };
    const answers = await Promise.all([
      fetch('/api/v1/marketplaces/tidy', { method: 'DELETE', headers, body: JSON.stringify({ reason: 'forced' }) }),
      fetch('/api/v1/marketplaces/tidy/sync', { method: 'PUT', headers, body: JSON.stringify({ mode: 'webhook' }) }),
      fetch('/api/v1/marketplaces', {
        method: 'POST',
        headers,
        body: JSON.stringify({ name: 'mine', origin: 'hosted' }),
      }),
    ]);
    return { xsrf: xsrf !== '', statuses: answers.map((a) => a.status) };
  });
  t.ok(forced.xsrf, 'the XSRF token was echoed');
  t.same(forced.statuses, [403, 403, 403], 'remove, sync mode and register are refused with 403');
  const after = (await root.getJson<{ name: string; syncMode: string }[]>('/api/v1/marketplaces')).body;
  t.same(
    after.map((m) => [m.name, m.syncMode]),
    [['tidy', 'on-demand']],
    'nothing changed',
  );
});
