// A single-page application served by the gateway at `/` (same origin, the session cookie and the
// X-XSRF-TOKEN header of the session path, docs/access.md; nothing stored in localStorage) and security
// headers with @fastify/helmet and a strict Content-Security-Policy (no inline script).
import t from 'tap';
import { startGatewayWithOidc } from '../support/oidc.ts';
import { newContext, openBrowser, seriousViolations, signInAtTestIdp } from '../support/browser.ts';

t.test('a browser without a session is sent to sign in, and comes back to the page it asked for', async (t) => {
  const browser = await openBrowser(t);
  if (!browser) return;
  const { baseUrl } = await startGatewayWithOidc(t, { env: { GATEWAY_ROLES_ADMINS: 'root' } });
  const context = await newContext(browser, baseUrl);
  const page = await context.newPage();
  const blocked: string[] = [];
  page.on('console', (message) => {
    if (/Content Security Policy/i.test(message.text())) blocked.push(message.text());
  });
  await signInAtTestIdp(page, 'root');
  t.equal(new URL(page.url()).pathname, '/', 'back at the front page');
  t.match(await page.getByText('Signed in as').textContent(), /Signed in as root/);
  const stored = await page.evaluate(() => ({ local: localStorage.length, session: sessionStorage.length }));
  t.same(stored, { local: 0, session: 0 }, 'nothing is kept in web storage');
  t.same(blocked, [], 'the Content-Security-Policy blocked nothing the portal does');
  t.same(await seriousViolations(page), [], 'no serious or critical accessibility violation');
});

t.test('the shell answers with the security headers and no inline script', async (t) => {
  const { gateway } = await startGatewayWithOidc(t);
  const answer = await gateway.fetch('/marketplaces', { redirect: 'manual' });
  t.equal(answer.status, 302, 'a deep link without a session is sent to sign in');
  t.equal(answer.headers.get('location'), '/oauth2/authorization/idp?returnTo=%2Fmarketplaces');
  const csp = answer.headers.get('content-security-policy') ?? '';
  t.match(csp, /default-src 'self'/);
  t.match(csp, /script-src 'self'(;|$)/, 'scripts only from the gateway itself, none inline');
  t.match(csp, /frame-ancestors 'none'/);
  t.equal(answer.headers.get('x-content-type-options'), 'nosniff');
  const asset = await gateway.fetch('/assets/anything.js');
  t.equal(asset.status, 401, 'the portal scripts need a session too');
});

t.test('the icon is served to anyone, and a signed-out browser at /docs is sent to sign in', async (t) => {
  const { gateway } = await startGatewayWithOidc(t);
  for (const path of ['/favicon.ico', '/favicon.svg']) {
    const icon = await gateway.fetch(path);
    t.equal(icon.status, 200, `${path} without a session`);
    t.equal(icon.headers.get('content-type'), 'image/svg+xml');
    t.match(await icon.text(), /^<svg /);
  }
  const browsing = await gateway.fetch('/docs', { redirect: 'manual', headers: { accept: 'text/html' } });
  t.equal(browsing.status, 302, 'a browser is sent to sign in');
  t.equal(browsing.headers.get('location'), '/oauth2/authorization/idp?returnTo=%2Fdocs');
  const machine = await gateway.fetch('/docs', { redirect: 'manual', headers: { accept: 'application/json' } });
  t.equal(machine.status, 401, 'a program still gets the problem document');
  t.match(machine.headers.get('content-type'), /^application\/problem\+json/);
});

t.test('the navigation links the API reference, which opens once signed in', async (t) => {
  const browser = await openBrowser(t);
  if (!browser) return;
  const { baseUrl } = await startGatewayWithOidc(t, { env: { GATEWAY_ROLES_ADMINS: 'root' } });
  const page = await (await newContext(browser, baseUrl)).newPage();
  await signInAtTestIdp(page, 'root');
  t.equal(
    await page.locator('link[rel="icon"]').getAttribute('href'),
    '/favicon.svg',
    'the page names the gateway icon',
  );
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'API reference' }).click();
  await page.waitForURL(/\/docs/);
  await page.getByText('Skill Marketplace Governance Gateway').first().waitFor();
  t.match(new URL(page.url()).pathname, /^\/docs/, 'the API reference, not a sign-in page or a 401');
});
