// A new user's first steps with an upstream that is not a usable marketplace. The empty overview says how to
// start; registration warns (in a warning box) of an upstream without marketplace.json and of one an ingest
// would reject; an ingest that captures its commit as rejected is shown as a failure everywhere: in red with
// role=alert, "Last ingest: Rejected" with the reason, the list's status column, the overview's and the review
// queue's "Rejected at ingest" lists, and the snapshot's page, which says who decided, when (localized), why,
// and what to do next, with no waiver form.
import type { Page } from 'playwright-core';
import t, { type Test } from 'tap';
import { newContext, openBrowser, screenshot, seriousViolations, signInAtTestIdp } from '../support/browser.ts';
import { startGatewayWithOidc } from '../support/oidc.ts';
import { cleanMarketplace } from '../support/planted.ts';
import { serveUpstream } from '../support/upstream.ts';

const iso = /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/;

async function axeClean(t: Test, page: Page, where: string): Promise<void> {
  t.same(await seriousViolations(page), [], `${where}: no serious or critical accessibility violation`);
}

async function register(page: Page, name: string, url: string): Promise<void> {
  await page.goto('/marketplaces');
  await page.getByRole('button', { name: 'Register a marketplace' }).click();
  await page.getByLabel('Name').fill(name);
  await page.getByLabel('Upstream clone URL').fill(url);
  await page.getByRole('button', { name: 'Register', exact: true }).click();
  await page.getByRole('heading', { level: 1, name }).waitFor();
}

t.test('an ingest rejected for its marketplace.json is shown as a failure everywhere', async (t) => {
  const browser = await openBrowser(t);
  if (!browser) return;
  const empty = await serveUpstream(t, { 'README.md': 'not a marketplace yet\n' }, 'empty');
  const broken = await serveUpstream(t, cleanMarketplace({ '.claude-plugin/marketplace.json': '{"name": "acme",' }));
  const gw = await startGatewayWithOidc(t, { env: { GATEWAY_ROLES_ADMINS: 'root' } });
  const page = await (await newContext(browser, gw.baseUrl)).newPage();
  await signInAtTestIdp(page, 'root');

  // The empty overview: one prompt, to the register form.
  await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
  const first = page.getByRole('link', { name: 'Register your first marketplace' });
  await first.waitFor();
  t.equal(await first.getAttribute('href'), '/marketplaces?register', 'it links to the register form');
  await axeClean(t, page, 'the empty overview');
  await first.click();
  await page.getByRole('heading', { name: 'Register a marketplace' }).waitFor();
  t.ok(await page.getByLabel('Name').isVisible(), 'the form is open at once');

  // Registration warns, in a warning box apart from the confirmation, and registers.
  await page.getByLabel('Name').fill('empty');
  await page.getByLabel('Upstream clone URL').fill(empty.url);
  await page.getByRole('button', { name: 'Register', exact: true }).click();
  await page.getByRole('heading', { level: 1, name: 'empty' }).waitFor();
  t.ok(await page.getByRole('status').filter({ hasText: 'Registered empty.' }).isVisible(), 'confirmed');
  const warning = page.locator('.notice-warn[role=alert]');
  t.match(
    await warning.textContent(),
    /no marketplace on the default branch \(main\): \.claude-plugin\/marketplace\.json is missing/,
    'the missing marketplace.json is a warning',
  );
  await axeClean(t, page, 'a registration with a warning');
  await screenshot(page, 'marketplaces-register-warning');

  await register(page, 'broken', broken.url);
  t.match(
    await page.locator('.notice-warn[role=alert]').textContent(),
    /would be rejected at ingest: \.claude-plugin\/marketplace\.json is not valid JSON/,
    'so is a marketplace.json the ingest would reject',
  );

  // The ingest: red, with role=alert, on the marketplace's page.
  await page.getByRole('button', { name: 'Ingest now' }).click();
  const answer = page.getByRole('alert').filter({ hasText: /Snapshot #\d+ of [0-9a-f]{12} was rejected at ingest/ });
  await answer.waitFor();
  t.match(await answer.getAttribute('class'), /notice-error/, 'the ingest answer is an error box');
  const id = Number(/Snapshot #(\d+)/.exec((await answer.textContent()) ?? '')?.[1]);
  const trouble = page.getByRole('alert').filter({ hasText: 'Last ingest: rejected.' });
  await trouble.waitFor();
  t.match(await trouble.textContent(), /not valid JSON.*Next step: fix \.claude-plugin\/marketplace\.json/);
  const last = page
    .getByRole('definition')
    .filter({ hasText: /Rejected/ })
    .first();
  t.match(await last.textContent(), /Rejected.*is not valid JSON/, 'Last ingest: Rejected, with the reason');
  t.equal(await page.getByText('Succeeded', { exact: true }).count(), 0, 'never shown as succeeded');
  await axeClean(t, page, 'a marketplace whose ingest was rejected');
  await screenshot(page, 'marketplaces-ingest-rejected');

  // The list's status column.
  await page.getByRole('link', { name: 'All marketplaces' }).click();
  await page.getByText('2 marketplaces').waitFor();
  const row = (name: string) => page.getByRole('row').filter({ has: page.getByRole('link', { name, exact: true }) });
  t.match(await row('broken').textContent(), /^brokenIngest rejected/, 'broken: Ingest rejected');
  t.match(await row('empty').textContent(), /^emptyNever ingested/, 'empty: Never ingested');
  await axeClean(t, page, 'the list with statuses');
  await screenshot(page, 'marketplaces-list-status');

  // The overview's list.
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Overview' }).click();
  const rejected = page.getByRole('region', { name: 'Rejected at ingest' });
  await rejected.getByRole('link', { name: `#${id}` }).waitFor();
  t.match(await rejected.getByRole('row').nth(1).textContent(), /^broken#\d+\s*Rejected.*is not valid JSON/);
  await axeClean(t, page, 'the overview with a rejected ingest');

  // The review queue lists it apart, as something to fix rather than decide.
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Review' }).click();
  const queued = page.getByRole('region', { name: 'Rejected at ingest' });
  await queued.getByRole('link', { name: `Snapshot ${id} of broken` }).click();

  // The snapshot's page: decided by the gateway at ingest, when (localized), why, and what next.
  await page.getByRole('heading', { level: 1, name: `Snapshot ${id} of broken` }).waitFor();
  const record = page.getByRole('region', { name: 'Rejected at ingest' });
  await record.waitFor();
  t.match(await record.textContent(), /Bythe gatewayWhen.*Why.*is not valid JSON/, 'who, when and why');
  t.notMatch(await record.textContent(), iso, 'the instant is localized');
  const decided = page.locator('dl.summary div').filter({ hasText: /^Decided/ });
  t.match(await decided.textContent(), /The gateway, at ingest/, 'Decided is never "not yet" on a rejected one');
  t.notMatch(await decided.textContent(), iso, 'and localized');
  t.equal(await record.getByRole('button', { name: 'Ingest now' }).count(), 1, 'the next step can be taken here');
  t.equal(await page.getByRole('button', { name: /^Waive/ }).count(), 0, 'no waiver form');
  t.equal(await page.getByRole('button', { name: 'Approve', exact: true }).count(), 0, 'no approval');
  await axeClean(t, page, 'a snapshot rejected at ingest');
  await screenshot(page, 'review-snapshot-decided');
});
