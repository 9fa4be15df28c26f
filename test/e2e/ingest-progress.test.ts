// The marketplace page follows an ingest as it runs: a progress bar with the phase and its counts while
// the portal's own ingest runs, and the place in the queue for one started elsewhere (here through the
// API) that waits behind it (gateway.ingest.concurrency 1). The external scanner holds the first ingest
// in its vetting until the test lets it answer.
import t from 'tap';
import { newContext, openBrowser, seriousViolations, signInAtTestIdp } from '../support/browser.ts';
import { gatedRepos, gatedScanner } from '../support/gated.ts';
import { startGatewayWithOidc } from '../support/oidc.ts';
import { marketplaceFiles } from '../support/upstream.ts';

const plugins = Array.from({ length: 60 }, (_, i) => `plugin-${i}`);

t.test('an ingest started in the portal shows its phase and counts; one started elsewhere its place', async (t) => {
  const browser = await openBrowser(t);
  if (!browser) return;
  const scanner = await gatedScanner(t);
  const repos = await gatedRepos(t, {
    big: marketplaceFiles('big', plugins),
    small: marketplaceFiles('small', ['alpha']),
  });
  const { baseUrl, login } = await startGatewayWithOidc(t, {
    env: { GATEWAY_ROLES_ADMINS: 'root', GATEWAY_VETTING_HTTP_URL: scanner.url, GATEWAY_INGEST_CONCURRENCY: '1' },
  });
  const root = await login('root');
  for (const name of ['big', 'small']) {
    const registered = await root.request('/api/v1/marketplaces', {
      method: 'POST',
      json: { name, url: repos.url(name) },
    });
    t.equal(registered.status, 201, `${name} registered`);
  }

  const context = await newContext(browser, baseUrl);
  const page = await context.newPage();
  await signInAtTestIdp(page, 'root');
  await page.goto('/marketplaces/big');
  await page.getByRole('heading', { level: 1, name: 'big' }).waitFor();
  t.equal(await page.getByRole('heading', { name: /^Ingest (running|queued)$/ }).count(), 0, 'no panel while idle');

  scanner.gate.shut();
  await page.getByRole('button', { name: 'Ingest now' }).click();
  const panel = page.getByRole('status').filter({ has: page.getByRole('heading', { name: 'Ingest running' }) });
  await panel.waitFor();
  t.ok(await page.getByRole('button', { name: 'Ingesting…' }).isDisabled(), 'the button waits, and says why');
  // The scanner is the chain's last connector: every other one has finished when it is held.
  await panel.getByText(/^Vetting \(step 6 of 6\): 6 of 7 connectors done over 1\d\d files; running http$/).waitFor({
    timeout: 60_000,
  });
  t.pass('the phase with its counts: connectors done of all, the files, the one running');
  const bar = panel.getByRole('progressbar', { name: 'Ingest running' });
  t.equal(await bar.getAttribute('max'), '7', 'the bar measures connectors');
  t.equal(await bar.getAttribute('value'), '6');
  t.match(await panel.textContent(), /Started on demand by root, running since/, 'who started it and when');
  t.same(await seriousViolations(page), [], 'the progress panel: no serious accessibility violation');

  // Started elsewhere (the API): it waits behind the running one, and its page says where.
  const elsewhere = root.request('/api/v1/marketplaces/small/ingest', { method: 'POST' });
  const other = await context.newPage();
  await other.goto('/marketplaces/small');
  const queued = other.getByRole('status').filter({ has: other.getByRole('heading', { name: 'Ingest queued' }) });
  await queued.waitFor();
  t.match(await queued.textContent(), /Waiting in the queue: position 1\./, 'its place in the queue');
  t.ok(await other.getByRole('button', { name: 'Queued…' }).isDisabled(), 'no second ingest of it meanwhile');

  scanner.gate.open();
  const captured = page.getByRole('status').filter({ hasText: /Snapshot #\d+ of/ });
  await captured.waitFor({ timeout: 60_000 });
  t.match(await captured.textContent(), /is held/, 'the answer of the portal’s own ingest');
  await panel.waitFor({ state: 'detached' });
  t.ok(await page.getByRole('button', { name: 'Ingest now' }).isEnabled(), 'ready again once it ended');

  t.equal((await elsewhere).status, 201, 'the queued ingest ran in its turn');
  await queued.waitFor({ state: 'detached', timeout: 30_000 });
  await other
    .getByRole('row')
    .filter({ has: other.getByRole('link', { name: /^#\d+$/ }) })
    .first()
    .waitFor();
  t.pass('its page shows the new snapshot once the ingest ended, without a reload');
});
