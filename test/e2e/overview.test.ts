// The Overview: served marketplaces with their served commit, snapshots waiting for review, blocked ones,
// recent ledger activity, adoption at a glance; the ledger and adoption only for those who may read them
// (auditor or admin: docs/access.md, Roles).
import t, { type Test } from 'tap';
import { newContext, openBrowser, screenshot, seriousViolations, signInAtTestIdp } from '../support/browser.ts';
import { startGatewayWithOidc, type GatewayBrowser } from '../support/oidc.ts';
import { cleanMarketplace, plantedMarketplace } from '../support/planted.ts';
import { gitClient, serveUpstream } from '../support/upstream.ts';

async function registerAndIngest(t: Test, root: GatewayBrowser, name: string, url: string): Promise<any> {
  t.equal((await root.request('/api/v1/marketplaces', { method: 'POST', json: { name, url } })).status, 201);
  const ingested = await root.request(`/api/v1/marketplaces/${name}/ingest`, { method: 'POST' });
  t.equal(ingested.status, 201);
  return ingested.json();
}

t.test('the overview shows what is served, what waits, what is blocked, and to auditors the ledger', async (t) => {
  const browser = await openBrowser(t);
  if (!browser) return;
  const gw = await startGatewayWithOidc(t, { env: { GATEWAY_ROLES_ADMINS: 'root' } });
  const root = await gw.login('root');
  const served = await registerAndIngest(t, root, 'tidy', (await serveUpstream(t, cleanMarketplace())).url);
  const approved = await root.request(`/api/v1/snapshots/${served.id}/approve`, { method: 'POST' });
  t.equal(approved.status, 200, 'tidy approved: served');
  const waiting = await registerAndIngest(
    t,
    root,
    'later',
    (await serveUpstream(t, cleanMarketplace({ 'README.md': 'later\n' }))).url,
  );
  const blocked = await registerAndIngest(t, root, 'acme', (await serveUpstream(t, plantedMarketplace())).url);
  const vetting = await root.getJson<{ outcome: string }>(`/api/v1/snapshots/${blocked.id}/vetting`);
  t.equal(vetting.body.outcome, 'BLOCKED', 'the planted marketplace is blocked by vetting');
  const created = await root.request('/api/v1/tokens', { method: 'POST', json: { name: 'clone' } });
  const { token } = (await created.json()) as { token: string };
  t.ok((await gitClient(t, token).clone(`${gw.baseUrl}/git/tidy`)).ok, 'one real clone of tidy');

  const page = await (await newContext(browser, gw.baseUrl)).newPage();
  await signInAtTestIdp(page, 'root');
  await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
  await page.getByRole('heading', { name: 'Blocked by vetting' }).waitFor();
  await page.getByText('of 3 marketplaces served').waitFor();

  const servedRow = page
    .getByRole('region', { name: 'Served marketplaces' })
    .getByRole('row')
    .filter({ has: page.getByRole('link', { name: 'tidy' }) });
  t.match(await servedRow.textContent(), served.sha.slice(0, 12), 'tidy with its served commit');
  t.equal(
    await page.getByRole('region', { name: 'Served marketplaces' }).getByRole('link', { name: 'later' }).count(),
    0,
  );

  const waitingRegion = page.getByRole('region', { name: 'Waiting for review' });
  const waitingLink = waitingRegion.getByRole('link', { name: `#${waiting.id}` });
  await waitingLink.waitFor();
  t.equal(await waitingLink.getAttribute('href'), `/review/${waiting.id}`, 'links to its review page');
  t.match(
    await waitingRegion
      .getByRole('row')
      .filter({ has: page.getByRole('link', { name: `#${waiting.id}` }) })
      .textContent(),
    /later.*Clear/,
  );
  t.equal(await waitingRegion.getByRole('link', { name: `#${blocked.id}` }).count(), 0, 'a blocked one is not waiting');

  const blockedRegion = page.getByRole('region', { name: 'Blocked by vetting' });
  const blockedLink = blockedRegion.getByRole('link', { name: `#${blocked.id}` });
  await blockedLink.waitFor();
  t.match(
    await blockedRegion
      .getByRole('row')
      .filter({ has: page.getByRole('link', { name: `#${blocked.id}` }) })
      .textContent(),
    /acme.*Blocked/,
  );

  const card = (text: string) => page.locator('.card').filter({ hasText: text }).textContent();
  t.match(await card('marketplaces served'), /^1\s*of 3 marketplaces served$/);
  t.match(await card('waiting for review'), /^1\s*held snapshot waiting for review$/);
  t.match(await card('blocked by vetting'), /^1\s*blocked by vetting$/);
  const activity = page.getByRole('region', { name: 'Recent activity' });
  await activity.getByRole('row').nth(1).waitFor();
  t.ok((await activity.getByRole('row').count()) > 1, 'the newest ledger entries');
  // Decision 422: an ingest and its vetting run are one act, not a row per connector's verdict.
  const ingest = activity.locator('tbody').filter({ hasText: 'Ingest and vetting: Blocked' });
  t.equal(await ingest.count(), 1, "acme's ingest is one row");
  t.match(await ingest.getByRole('row').first().textContent(), /acme/, 'of acme');
  t.equal(await activity.getByText('Vetting verdict', { exact: true }).count(), 0, 'no verdict on a row of its own');
  const open = ingest.getByRole('button', { name: /^Show the \d+ entries/ });
  const count = Number(/Show the (\d+) entries/.exec((await open.textContent()) ?? '')?.[1]);
  t.ok(count > 3, `the group holds the capture, the verdicts and the outcome (${count} entries)`);
  await open.click();
  await ingest
    .locator('tr.group-member')
    .nth(count - 1)
    .waitFor();
  t.equal(await ingest.locator('tr.group-member').count(), count, 'opened, each entry on a row of its own');
  t.ok(
    (await ingest.getByRole('link', { name: 'Vetting verdict', exact: true }).count()) > 1,
    'the verdicts among them',
  );
  t.ok((await activity.locator('tbody').count()) <= 8, 'at most eight acts');
  t.equal(await activity.getByRole('link', { name: 'Open the ledger browser' }).getAttribute('href'), '/audit');
  const adoption = page.getByRole('region', { name: 'Adoption, last 30 days' });
  const adoptionRow = adoption.getByRole('row').filter({ hasText: 'tidy' });
  await adoptionRow.waitFor();
  t.match(await adoptionRow.textContent(), /100 %/, 'the clone took the served commit');
  t.same(await seriousViolations(page), [], 'no serious accessibility violation');
  await screenshot(page, 'overview');

  // At 1280 × 800 the two auditor columns fit: nothing reaches past the window's edge.
  await page.setViewportSize({ width: 1280, height: 800 });
  const widths = await page.evaluate(() => {
    const root = (
      globalThis as unknown as { document: { documentElement: { scrollWidth: number; clientWidth: number } } }
    ).document.documentElement;
    return { scroll: root.scrollWidth, client: root.clientWidth };
  });
  t.ok(widths.scroll <= widths.client, `no horizontal overflow at 1280 px (${widths.scroll} ≤ ${widths.client})`);

  // Alice (no auditor role) sees the marketplaces but not the ledger or adoption cards.
  const alicePage = await (await newContext(browser, gw.baseUrl)).newPage();
  await signInAtTestIdp(alicePage, 'alice');
  await alicePage.getByRole('heading', { name: 'Served marketplaces' }).waitFor();
  await alicePage.getByRole('heading', { name: 'Blocked by vetting' }).waitFor();
  t.equal(await alicePage.getByRole('heading', { name: 'Recent activity' }).count(), 0, 'no ledger card');
  t.equal(await alicePage.getByRole('heading', { name: /Adoption/ }).count(), 0, 'no adoption card');
  t.same(await seriousViolations(alicePage), [], 'no serious accessibility violation for alice');
});
