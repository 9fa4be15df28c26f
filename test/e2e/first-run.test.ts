// So `npm ci && npm start`, then opening http://127.0.0.1:8080, signing in and approving a
// marketplace works on a fresh machine. A gateway with nothing configured runs the built-in issuer; a real
// Chromium signs in there with the password the first start printed, and reaches the portal as an administrator.
import t from 'tap';
import { startFirstRun } from '../http/local-idp/first-run.ts';
import { newContext, openBrowser, screenshot, seriousViolations, signInAtLocalIdp } from '../support/browser.ts';

t.test('a first run: the printed password signs in at /local-idp and the portal opens as admin', async (t) => {
  const browser = await openBrowser(t);
  if (!browser) return;
  const run = await startFirstRun(t);
  t.ok(run.password, 'the first start printed a password');
  const context = await newContext(browser, run.baseUrl);
  const page = await context.newPage();

  await page.goto('/');
  t.match(new URL(page.url()).pathname, /^\/local-idp\//, 'the portal sends a browser without a session to sign in');
  t.same(await seriousViolations(page), [], 'the sign-in page has no serious or critical accessibility violation');
  await screenshot(page, 'sign-in');
  await page.getByLabel('Password').fill('not-the-password');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('alert').waitFor();
  t.match(new URL(page.url()).pathname, /^\/local-idp\//, 'a wrong password stays at the sign-in');

  await signInAtLocalIdp(page, run.password!);
  t.equal(new URL(page.url()).origin, run.baseUrl);
  t.match(await page.getByText('Signed in as').textContent(), /Signed in as admin/);
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Marketplaces' }).click();
  await page
    .getByRole('button', { name: /register/i })
    .first()
    .waitFor();
  t.pass('the administrator sees the register action');
  t.same(await seriousViolations(page), []);
});
