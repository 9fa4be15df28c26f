// The Audit pages: the ledger browser (newest first, paging by `before`, marketplace filter, an entry's
// detail), NDJSON export download, sinks and webhook subscribers with their deliveries; adoption and
// staleness with a chart per marketplace; estate, mirror and retention status, each showing only the
// actions the signed-in roles allow (the server still enforces); the tests run the real `git clone` and
// find the fetch in the ledger browser. Roles (docs/access.md): the audit ledger, export, sink listing,
// adoption, the estate report and retention candidates are for an auditor or admin; audit sink create,
// delete and cursor reset for an admin.
import { readFileSync } from 'node:fs';
import t, { type Test } from 'tap';
import type { Page } from 'playwright-core';
import { newContext, openBrowser, screenshot, seriousViolations, signInAtTestIdp } from '../support/browser.ts';
import { startGatewayWithOidc, type GatewayBrowser, type OidcGateway } from '../support/oidc.ts';
import { gitClient, marketplaceFiles, serveUpstream } from '../support/upstream.ts';

const env = { GATEWAY_ROLES_ADMINS: 'root', GATEWAY_AUDIT_EXPORT_LAG: '0s' };
const claimMappings = [{ claim: 'groups', value: 'auditors', role: 'auditor' }] as const;

type Entry = {
  id: number;
  event: string;
  marketplace: string;
  principal: string;
  ref: string | null;
  tokenId: number | null;
};

async function call<T>(t: Test, who: GatewayBrowser, path: string, method = 'GET', json?: unknown): Promise<T> {
  const response = await who.request(path, { method, ...(json === undefined ? {} : { json }) });
  const text = await response.text();
  const ok = response.status >= 200 && response.status < 300;
  t.ok(ok, `${method} ${path}: ${String(response.status)}`, ok ? {} : { body: text });
  return (text ? JSON.parse(text) : null) as T;
}

/** acme registered, ingested and approved through the API, and fetched with the real git client. */
async function servedAndFetched(t: Test, gateway: OidcGateway, clones: number) {
  const root = await gateway.login('root');
  const upstream = await serveUpstream(t, marketplaceFiles('acme', ['alpha']), 'acme');
  await call(t, root, '/api/v1/marketplaces', 'POST', { name: 'acme', url: upstream.url });
  const snapshot = await call<{ id: number }>(t, root, '/api/v1/marketplaces/acme/ingest', 'POST');
  await call(t, root, `/api/v1/snapshots/${String(snapshot.id)}/approve`, 'POST');
  const { token } = await call<{ token: string }>(t, root, '/api/v1/tokens', 'POST', { name: 'laptop' });
  const git = gitClient(t, token);
  for (let i = 0; i < clones; i++) t.ok((await git.clone(`${gateway.baseUrl}/git/acme`)).ok, `git clone ${i + 1}`);
  await gateway.gateway.settled();
  return root;
}

async function noViolations(t: Test, page: Page, what: string) {
  t.same(await seriousViolations(page), [], `${what}: no serious or critical accessibility violation`);
}

t.test('an auditor finds the fetch in the ledger browser, reads an entry, pages and exports', async (t) => {
  const browser = await openBrowser(t);
  if (!browser) return;
  const gateway = await startGatewayWithOidc(t, { env, claimMappings });
  const root = await servedAndFetched(t, gateway, 3);
  const acme = await call<{ entries: Entry[] }>(t, root, '/api/v1/audit?marketplace=acme&limit=1000');
  const fetches = acme.entries.filter((e) => e.event === 'upload-pack');
  t.equal(fetches.length, 3, 'one upload-pack entry per clone (spec: one entry per wanted object)');
  t.ok(acme.entries.length > 10, `more acme entries (${acme.entries.length}) than a screen of 10`);

  const page = await (await newContext(browser, gateway.baseUrl)).newPage();
  await signInAtTestIdp(page, 'audrey');
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Audit' }).click();
  await page.getByRole('heading', { level: 1, name: 'Audit ledger' }).waitFor();

  // The marketplace filter: every row names acme, the fetches are there. One row per entry: related
  // entries are grouped by default (decision 422), so the grouping is turned off here.
  await page.getByLabel('Marketplace', { exact: true }).fill('acme');
  await page.getByRole('button', { name: 'Filter' }).click();
  await page.waitForURL(/\/audit\?marketplace=acme$/);
  await page.getByLabel('Group related entries').uncheck();
  await page.waitForURL(/\/audit\?marketplace=acme&group=off$/);
  const rows = page.locator('main table tbody tr');
  await rows.first().waitFor();
  const newest = acme.entries[0]!;
  await page.getByRole('link', { name: `Entry ${newest.id}: ${newest.event}` }).waitFor();
  const marketplaces = await rows.locator('td:nth-child(4)').allTextContents();
  t.same([...new Set(marketplaces)], ['acme'], 'the filter shows acme entries only');
  const events = await rows
    .locator('td:nth-child(3) span')
    .evaluateAll((cells) => cells.map((cell) => (cell as unknown as { title: string }).title));
  t.ok(events.includes('upload-pack'), 'the clone is on screen as upload-pack');
  t.ok(events.includes('info-refs'), 'and its ref advertisement as info-refs');
  t.ok((await rows.locator('td:nth-child(3)').allTextContents()).includes('Content fetch'), 'named in words on screen');
  t.equal(await rows.count(), Math.min(50, acme.entries.length), 'newest first, one screen of 50');
  await noViolations(t, page, 'the ledger browser');
  await screenshot(page, 'audit-ledger');

  // The ledger browser's first screen at 1,000,000 entries (bench/portal.ts): one page request.
  const ledgerRequests: string[] = [];
  page.on('request', (request) => {
    if (new URL(request.url()).pathname === '/api/v1/audit') ledgerRequests.push(request.url());
  });
  await page.reload();
  await page.getByRole('link', { name: `Entry ${newest.id}: ${newest.event}` }).waitFor();
  t.equal(ledgerRequests.length, 1, 'a fresh first screen asks the ledger once');
  t.same(
    [...new URL(ledgerRequests[0] ?? 'http://x/').searchParams].sort(),
    [
      ['limit', '50'],
      ['marketplace', 'acme'],
    ],
    'for one screen of the filtered ledger, newest first',
  );
  ledgerRequests.length = 0;

  // Paging by `before` with a screen of 10.
  await page.getByLabel('Entries a screen').selectOption('10');
  await page.getByRole('link', { name: `Entry ${newest.id}: ${newest.event}` }).waitFor();
  await page
    .getByText(`Entries ${acme.entries[0]!.id} to ${acme.entries[9]!.id}, newest first for acme (filtered)`)
    .waitFor();
  t.equal(await rows.count(), 10, 'a screen of 10');
  await page.getByRole('link', { name: 'Older entries' }).click();
  await page.getByText(`Entries ${acme.entries[10]!.id} to `).waitFor();
  t.match(page.url(), new RegExp(`before=${acme.entries[9]!.id}`), 'the next screen starts before the last one shown');
  t.match(page.url(), /group=off/, 'in the same view');
  const older = (await rows.locator('td:nth-child(1)').allTextContents()).map(Number);
  t.same(
    older,
    acme.entries.slice(10, 20).map((e) => e.id),
    'the older screen holds the next entries',
  );
  await page.getByRole('link', { name: 'Newest entries' }).waitFor();

  // An entry's detail: every field, and the entry as text.
  const fetch = fetches[0]!;
  await page.goto(`/audit?marketplace=acme&limit=1000&group=off`);
  await page.getByRole('link', { name: `Entry ${fetch.id}: upload-pack` }).click();
  await page.getByRole('heading', { level: 1, name: `Ledger entry ${fetch.id}` }).waitFor();
  const field = (label: string) =>
    page
      .locator('dl.audit-fields > div')
      .filter({ has: page.locator('dt', { hasText: new RegExp(`^${label}`) }) })
      .locator('dd')
      .textContent();
  t.equal(await field('Event'), 'Content fetch upload-pack', 'the event, in words and as recorded');
  t.equal(await field('Principal'), fetch.principal, 'the principal of the token');
  t.equal(await field('Ref'), 'refs/heads/main', 'the ref a clone of the tip records');
  t.equal(await field('Credential kind'), 'Personal access token', 'the credential kind');
  t.equal(await field('Token id'), String(fetch.tokenId), 'the token that authenticated it');
  const json = JSON.parse((await page.getByLabel('The entry as JSON').textContent()) ?? '') as Entry;
  t.equal(json.id, fetch.id, 'the entry as recorded, as text');
  await noViolations(t, page, 'an entry');

  // The export: a download of NDJSON lines.
  await page.getByRole('link', { name: 'Back to the ledger at this entry' }).click();
  await page.getByRole('heading', { level: 1, name: 'Audit ledger' }).waitFor();
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('link', { name: 'Download NDJSON' }).click(),
  ]);
  const lines = readFileSync(await download.path(), 'utf8')
    .trim()
    .split('\n');
  const exported = lines.map((line) => JSON.parse(line) as Entry);
  t.ok(exported.length >= acme.entries.length, `every entry exported (${exported.length} lines)`);
  t.same(
    exported.map((e) => e.id),
    [...exported.map((e) => e.id)].sort((a, b) => a - b),
    'in ledger order',
  );
  t.ok(
    exported.some((e) => e.id === fetch.id && e.event === 'upload-pack'),
    'the fetch is in the export',
  );
});

t.test('an auditor sees adoption, sinks and status without admin actions, and is refused one', async (t) => {
  const browser = await openBrowser(t);
  if (!browser) return;
  const gateway = await startGatewayWithOidc(t, { env, claimMappings });
  const root = await servedAndFetched(t, gateway, 2);
  const adoption = await call<Array<{ marketplace: string; fetches: number; identities: number }>>(
    t,
    root,
    '/api/v1/adoption',
  );
  const page = await (await newContext(browser, gateway.baseUrl)).newPage();
  await signInAtTestIdp(page, 'audrey');

  await page.goto('/audit/adoption');
  await page.getByRole('heading', { level: 1, name: 'Adoption' }).waitFor();
  const acme = adoption.find((a) => a.marketplace === 'acme')!;
  t.equal(acme.fetches, 2, 'two clones of acme');
  const chart = page.getByRole('img', { name: /^acme: / });
  t.match(
    await chart.getAttribute('aria-label'),
    new RegExp(`^acme: ${acme.fetches} fetches by ${acme.identities} identit`),
    'the chart summarises the numbers the API answers',
  );
  const section = page.getByRole('region', { name: 'acme' });
  t.equal(
    await section.locator('tbody tr td:nth-child(3)').first().textContent(),
    String(acme.fetches),
    'and the table holds them',
  );
  await noViolations(t, page, 'adoption');
  await screenshot(page, 'audit-adoption');

  await page.getByRole('link', { name: 'Sinks and webhooks' }).click();
  await page.getByRole('heading', { level: 1, name: 'Sinks and webhooks' }).waitFor();
  await page.getByText('No audit sink is registered.').waitFor();
  t.equal(await page.getByRole('button', { name: 'Create sink' }).count(), 0, 'no sink creation for an auditor');
  t.equal(await page.getByRole('button', { name: 'Add subscriber' }).count(), 0, 'no webhook subscriber either');
  await noViolations(t, page, 'sinks and webhooks (auditor)');

  await page.getByRole('link', { name: 'Estate, mirror, retention' }).click();
  await page.getByRole('heading', { level: 1, name: 'Estate, mirror and retention' }).waitFor();
  await page.getByText('Not configured: gateway.estate.file is not set, so there is no estate to reconcile.').waitFor();
  t.equal(await page.getByRole('button', { name: /Reconcile/ }).count(), 0, 'no reconcile for an auditor');
  t.equal(await page.getByRole('button', { name: /pass/ }).count(), 0, 'no retention pass for an auditor');
  await noViolations(t, page, 'estate, mirror and retention (auditor)');

  // Audit sink create ...: admin: forced from her own session, with the XSRF echo.
  const forced = await page.evaluate(async () => {
    const cookie = (globalThis as unknown as { document: { cookie: string } }).document.cookie;
    const xsrf = /(?:^|;\s*)XSRF-TOKEN=([^;]+)/.exec(cookie)?.[1] ?? '';
    const response = await fetch('/api/v1/audit/sinks', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-xsrf-token': decodeURIComponent(xsrf) },
      body: JSON.stringify({ name: 'forced', url: 'https://siem.example.test/ingest' }),
    });
    return { status: response.status, xsrf: xsrf !== '' };
  });
  t.ok(forced.xsrf, 'the XSRF-TOKEN cookie is readable by the page');
  t.equal(forced.status, 403, 'the gateway refuses an auditor creating a sink');
  const sinks = await call<unknown[]>(t, root, '/api/v1/audit/sinks');
  t.same(sinks, [], 'no sink was created');
});

t.test('an admin adds a webhook subscriber and a sink and sees each secret once', async (t) => {
  const browser = await openBrowser(t);
  if (!browser) return;
  const gateway = await startGatewayWithOidc(t, { env, claimMappings });
  const page = await (await newContext(browser, gateway.baseUrl)).newPage();
  await signInAtTestIdp(page, 'root');
  await page.goto('/audit/delivery');
  await page.getByRole('heading', { level: 1, name: 'Sinks and webhooks' }).waitFor();

  await page.getByLabel('Receiver URL').fill('https://hooks.example.test/gateway');
  await page.getByLabel('Description (optional)').fill('the release channel');
  await page.getByRole('group', { name: 'Events' }).getByRole('checkbox').first().check();
  await page.getByRole('button', { name: 'Add subscriber' }).click();
  const secret = page.getByLabel('Webhook signing secret');
  await secret.waitFor();
  t.match(await secret.inputValue(), /^whsec_/, 'the signing secret, shown once');
  await page.getByRole('listitem').filter({ hasText: 'https://hooks.example.test/gateway' }).waitFor();

  await page.getByLabel('Name', { exact: true }).fill('siem');
  await page.getByLabel('Target URL').fill('https://siem.example.test/ingest');
  await page.getByRole('button', { name: 'Create sink' }).click();
  const sinkSecret = page.getByLabel('Signing secret of siem');
  await sinkSecret.waitFor();
  t.match(await sinkSecret.inputValue(), /^whsec_/, 'the sink secret, shown once');
  await page.getByRole('heading', { level: 3, name: /^siem/ }).waitFor();
  await page.getByRole('button', { name: 'Set cursor of siem' }).waitFor();
  await noViolations(t, page, 'sinks and webhooks (admin)');
  await screenshot(page, 'audit-delivery');

  await page.reload();
  await page.getByRole('heading', { level: 3, name: /^siem/ }).waitFor();
  t.equal(await page.getByLabel('Webhook signing secret').count(), 0, 'never shown again');
  t.equal(await page.getByLabel('Signing secret of siem').count(), 0, 'nor the sink secret');
  t.notOk((await page.content()).includes('whsec_'), 'no secret anywhere on the page');

  await page.getByText('Deliveries to subscriber').first().click();
  await page.getByText('No deliveries.').first().waitFor();
  await page.goto('/audit/status');
  await page.getByText('Not configured: gateway.mirror.url is not set.').waitFor();
  // Decision 421: without an estate file there is nothing to reconcile, so an admin is not offered it.
  await page.getByText('Not configured: gateway.estate.file is not set, so there is no estate to reconcile.').waitFor();
  t.equal(await page.getByRole('button', { name: 'Reconcile the estate now' }).count(), 0, 'no estate reconcile');
  await noViolations(t, page, 'estate, mirror and retention (admin)');
});
