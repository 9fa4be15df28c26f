// The Access section in tabs: personal tokens, managed settings, machine credentials and role grants each on
// a page of its own with its own address (a link or a reload opens that tab), so no page is thousands of
// pixels tall; opening Access reads no role grants (GET /api/v1/roles is recorded on the ledger:
// docs/access.md), only the Role grants tab does. The copyable commands wrap: every character stays visible.
import type { Page } from 'playwright-core';
import t, { type Test } from 'tap';
import { newContext, openBrowser, screenshot, seriousViolations, signInAtTestIdp } from '../support/browser.ts';
import { startGatewayWithOidc, type GatewayBrowser } from '../support/oidc.ts';
import { marketplaceFiles, serveUpstream } from '../support/upstream.ts';

const tabs = [
  { path: '/access', label: 'Personal tokens', heading: 'Personal access tokens' },
  { path: '/access/managed-settings', label: 'Managed settings', heading: 'Managed settings for clients' },
  { path: '/access/machine', label: 'Machine credentials', heading: 'Machine credentials' },
  { path: '/access/roles', label: 'Role grants', heading: 'Role grants' },
] as const;

/** The page's full height in CSS pixels (what a reader scrolls through). */
const pageHeight = (page: Page) =>
  page.evaluate(
    () =>
      (globalThis as unknown as { document: { documentElement: { scrollHeight: number } } }).document.documentElement
        .scrollHeight,
  );

/** Each copy box of the page whose text does not fit: scrolled or cut off sideways or downwards. */
const clippedCopyBoxes = (page: Page) =>
  page.locator('.copy-field textarea, .copy-field input').evaluateAll((boxes) =>
    boxes
      .map(
        (box) =>
          box as unknown as {
            id: string;
            scrollWidth: number;
            clientWidth: number;
            scrollHeight: number;
            clientHeight: number;
          },
      )
      .filter((box) => box.scrollWidth > box.clientWidth || box.scrollHeight > box.clientHeight)
      .map((box) => `${box.id}: ${box.scrollWidth}x${box.scrollHeight} in ${box.clientWidth}x${box.clientHeight}`),
  );

async function rolesReads(t: Test, root: GatewayBrowser): Promise<number> {
  const answer = await root.request('/api/v1/audit?event=roles-read&limit=1000');
  t.equal(answer.status, 200, 'the ledger read');
  return ((await answer.json()) as { entries: unknown[] }).entries.length;
}

t.test('Access: a tab per concern, each at its own address, of a reasonable height, axe clean', async (t) => {
  const browser = await openBrowser(t);
  if (!browser) return;
  const { baseUrl, gateway, login } = await startGatewayWithOidc(t, { env: { GATEWAY_ROLES_ADMINS: 'root' } });
  const root = await login('root');
  const upstream = await serveUpstream(t, marketplaceFiles('acme', ['alpha']), 'acme');
  t.equal(
    (await root.request('/api/v1/marketplaces', { method: 'POST', json: { name: 'acme', url: upstream.url } })).status,
    201,
  );
  for (const name of ['laptop', 'desktop', 'ci-runner'])
    t.equal((await root.request('/api/v1/tokens', { method: 'POST', json: { name } })).status, 201, `token ${name}`);

  const page = await (await newContext(browser, baseUrl)).newPage();
  await signInAtTestIdp(page, 'root');
  await gateway.settled();
  const readsBefore = await rolesReads(t, root);

  await page.goto('/access');
  await page.getByRole('heading', { level: 2, name: 'Personal access tokens' }).waitFor();
  await page.getByRole('row', { name: /laptop/ }).waitFor();
  await gateway.settled();
  t.equal(await rolesReads(t, root), readsBefore, 'opening Access reads (and records) no role grants');

  for (const tab of tabs) {
    await page.goto(tab.path);
    await page.getByRole('heading', { level: 1, name: 'Access' }).waitFor();
    await page.getByRole('heading', { level: 2, name: tab.heading }).waitFor();
    const nav = page.getByRole('navigation', { name: 'Access pages' });
    t.equal(
      await nav.getByRole('link', { name: tab.label }).getAttribute('aria-current'),
      'page',
      `${tab.path}: current`,
    );
    t.equal(await nav.locator('[aria-current="page"]').count(), 1, `${tab.path}: one current tab`);
    for (const other of tabs.filter((o) => o !== tab))
      t.equal(
        await page.getByRole('heading', { level: 2, name: other.heading }).count(),
        0,
        `${tab.path}: not ${other.heading}`,
      );
    // The list's rows and forms are on screen before the height is taken.
    await page.getByRole('button').first().waitFor();
    const height = await pageHeight(page);
    t.ok(height < 1800, `${tab.path} is ${height} px tall (the single page was 3,300)`);
    t.same(await seriousViolations(page), [], `${tab.path}: no serious or critical accessibility violation`);
    await screenshot(page, `access-tab-${tab.path.split('/')[2] ?? 'tokens'}`);
  }
  await gateway.settled();
  t.equal(await rolesReads(t, root), readsBefore + 1, 'the Role grants tab reads them, once');

  // The tabs are links: following one changes the address, and the back button returns.
  await page.goto('/access');
  await page.getByRole('navigation', { name: 'Access pages' }).getByRole('link', { name: 'Managed settings' }).click();
  await page.waitForURL(/\/access\/managed-settings$/);
  await page.goBack();
  await page.waitForURL(/\/access$/);
  await page.getByRole('heading', { level: 2, name: 'Personal access tokens' }).waitFor();
});

t.test('Access: long commands wrap inside their boxes, whole and copyable', async (t) => {
  const browser = await openBrowser(t);
  if (!browser) return;
  const { baseUrl } = await startGatewayWithOidc(t, { env: { GATEWAY_ROLES_ADMINS: 'root' } });
  const context = await newContext(browser, baseUrl);
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: baseUrl });
  const page = await context.newPage();
  // A narrow window: the commands are far longer than a line.
  await page.setViewportSize({ width: 800, height: 860 });
  await signInAtTestIdp(page, 'root');

  await page.goto('/access');
  const form = page.getByRole('form', { name: 'New token' });
  await form.getByLabel('Name').fill('laptop');
  await form.getByRole('button', { name: 'Create token' }).click();
  const clone = page.getByLabel('git clone');
  await clone.waitFor();
  const command = await clone.inputValue();
  t.ok(command.length > 150, `the clone command is long (${command.length} characters)`);
  t.same(await clippedCopyBoxes(page), [], 'no copy box of the new token hides any of its text');
  const box = await clone.boundingBox();
  t.ok(box && box.height > 40, `the clone command wraps over several lines (${box?.height} px tall)`);
  await page.getByRole('button', { name: 'Copy' }).nth(1).click();
  t.equal(
    await page.evaluate(() =>
      // In the page (the test's tsconfig has no DOM library).
      (
        globalThis as unknown as { navigator: { clipboard: { readText(): Promise<string> } } }
      ).navigator.clipboard.readText(),
    ),
    command,
    'the copy button copies it whole',
  );
  t.same(await seriousViolations(page), [], 'no serious or critical accessibility violation (token shown)');

  await page.goto('/access/managed-settings');
  const install = page.getByLabel('Install it on a Linux machine');
  await install.waitFor();
  t.same(await clippedCopyBoxes(page), [], 'the install command is whole');

  await page.goto('/access/machine');
  const provision = page.getByRole('form', { name: 'New machine credential' });
  await provision.getByLabel('Principal').fill('ci-pipeline');
  await provision.getByLabel('Name').fill('nightly');
  await provision.getByRole('checkbox', { name: 'marketplaces:read' }).check();
  await provision.getByRole('button', { name: 'Provision credential' }).click();
  await page.getByLabel('Example request').waitFor();
  t.same(await clippedCopyBoxes(page), [], 'the machine credential and its example request are whole');
});
