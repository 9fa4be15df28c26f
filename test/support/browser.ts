// End-to-end tests drive Debian's Chromium headless with playwright-core against a real
// gateway. `.ci/run` installs the chromium package when it is missing; elsewhere a machine without it
// skips these tests with a message saying so (CI=true fails instead, so CI never skips them).
// Where Debian's chromium-headless-shell is installed too (`.ci/run` installs it), the tests use it: the same
// engine built without the browser's user interface, which took a quarter less CPU per browser test (decision
// 458). CHROMIUM_PATH names another binary.
import AxeBuilder from '@axe-core/playwright';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import type { Test } from 'tap';

const candidates = [
  process.env.CHROMIUM_PATH,
  '/usr/bin/chromium-headless-shell',
  '/usr/bin/chromium',
  '/usr/bin/chromium-browser',
];

export const chromiumPath = (): string | null => candidates.find((path) => path && existsSync(path)) ?? null;

/** Chromium for this test, closed at its end; null (the test skipped) when the machine has none. */
export async function openBrowser(t: Test): Promise<Browser | null> {
  const executablePath = chromiumPath();
  if (!executablePath) {
    if (process.env.CI) throw new Error('Chromium is missing: .ci/run installs the chromium package');
    t.skip('no Chromium on this machine (apt-get install chromium); the portal end-to-end tests need it', () => {});
    return null;
  }
  // --no-sandbox: the tests may run as root (CI containers), where Chromium's sandbox refuses to start.
  const browser = await chromium.launch({ executablePath, headless: true, args: ['--no-sandbox'] });
  t.teardown(() => browser.close());
  return browser;
}

/** A fresh browser profile (no cookies) with a fixed viewport, so screenshots are comparable. */
export async function newContext(browser: Browser, baseURL: string): Promise<BrowserContext> {
  return browser.newContext({ baseURL, viewport: { width: 1280, height: 860 }, locale: 'en-GB' });
}

/**
 * Signs in at the test provider (test/support/oidc.ts, devInteractions: a login form taking any
 * password, then a consent form) starting from the portal's front page, and waits for the portal.
 */
export async function signInAtTestIdp(page: Page, account: string): Promise<void> {
  await page.goto('/');
  await page.locator('input[name="login"]').fill(account);
  await page.locator('input[name="password"]').fill('any-password');
  await page.locator('button[type="submit"]').click();
  const portal = page.getByRole('navigation', { name: 'Main' });
  const consent = page.locator('input[name="prompt"][value="consent"]');
  await portal.or(consent).first().waitFor({ state: 'attached' });
  if (await consent.count()) await page.locator('button[type="submit"]').click();
  await portal.waitFor();
}

/** Signs in as `admin` at the built-in issuer (/local-idp) starting from the portal's front page. */
export async function signInAtLocalIdp(page: Page, password: string): Promise<void> {
  await page.goto('/');
  await page.getByLabel('User name').fill('admin');
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('navigation', { name: 'Main' }).waitFor();
}

/** Serious and critical accessibility violations on the page as it stands (@axe-core/playwright). */
export async function seriousViolations(page: Page): Promise<string[]> {
  const results = await new AxeBuilder({ page }).analyze();
  return results.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.help} — ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

/**
 * README screenshots (taken by the tests, kept under docs/portal/): written only when
 * PORTAL_SCREENSHOTS=1 (`npm run portal:screenshots`), so an ordinary test run leaves the tree alone.
 */
export async function screenshot(page: Page, name: string): Promise<void> {
  if (process.env.PORTAL_SCREENSHOTS !== '1') return;
  mkdirSync('docs/portal', { recursive: true });
  await page.screenshot({ path: join('docs/portal', `${name}.png`), fullPage: false });
}
