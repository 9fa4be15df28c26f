// The Audit section read by a person: related ledger entries grouped into acts that open to show each entry
// (decision 422), the ledger browser narrowed by principal, event and a time range (decision 420), the time
// travel page (what was served at an instant, and who had fetched it: docs/audit-time-travel.md), and the
// estate reconcile offered only where an estate file is configured (decision 421).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import t, { type Test } from 'tap';
import { newContext, openBrowser, screenshot, seriousViolations, signInAtTestIdp } from '../support/browser.ts';
import { startGatewayWithOidc, type GatewayBrowser } from '../support/oidc.ts';
import { gitClient, marketplaceFiles, serveUpstream } from '../support/upstream.ts';

const env = { GATEWAY_ROLES_ADMINS: 'root', GATEWAY_AUDIT_EXPORT_LAG: '0s' };
const claimMappings = [{ claim: 'groups', value: 'auditors', role: 'auditor' }] as const;

type Entry = { id: number; ts: string; event: string; principal: string; marketplace: string };

async function json<T>(t: Test, who: GatewayBrowser, path: string, method = 'GET', body?: unknown): Promise<T> {
  const response = await who.request(path, { method, ...(body === undefined ? {} : { json: body }) });
  const text = await response.text();
  t.ok(response.status < 300, `${method} ${path}: ${String(response.status)}`, response.status < 300 ? {} : { text });
  return (text ? JSON.parse(text) : null) as T;
}

/** A datetime-local value for `iso` in the page's own time zone, to the second. */
const localValue = (page: Page, iso: string) =>
  // No named helper inside: the function is sent to the page as text.
  page.evaluate((at) => {
    const d = new Date(at);
    return [d.getFullYear(), d.getMonth() + 1, d.getDate(), d.getHours(), d.getMinutes(), d.getSeconds()]
      .map((n) => String(n).padStart(2, '0'))
      .join(',')
      .replace(/^(\d+),(\d+),(\d+),(\d+),(\d+),(\d+)$/, '$1-$2-$3T$4:$5:$6');
  }, iso);

const rowIds = (page: Page) =>
  page
    .locator('main table tbody tr td:nth-child(1)')
    .allTextContents()
    .then((cells) => cells.map(Number));

t.test('an auditor reads acts, filters the ledger, and travels back in time', async (t) => {
  const browser = await openBrowser(t);
  if (!browser) return;
  const gateway = await startGatewayWithOidc(t, { env, claimMappings });
  const root = await gateway.login('root');
  const upstream = await serveUpstream(t, marketplaceFiles('acme', ['alpha']), 'acme');
  await json(t, root, '/api/v1/marketplaces', 'POST', { name: 'acme', url: upstream.url });
  // The capture a second later than the registration: the time-travel step below asks about the capture's instant
  // to the second, which must find acme already registered (registered at or before that second's start).
  await new Promise((resolve) => setTimeout(resolve, 1100));
  const snapshot = await json<{ id: number; sha: string }>(t, root, '/api/v1/marketplaces/acme/ingest', 'POST');
  // The approval a second later than the ingest: an instant to the second tells them apart.
  await new Promise((resolve) => setTimeout(resolve, 1100));
  await json(t, root, `/api/v1/snapshots/${String(snapshot.id)}/approve`, 'POST');
  // The catalog's build follows the approval: its entry comes before the clones, not between them.
  await gateway.gateway.settled();
  const { token } = await json<{ token: string }>(t, root, '/api/v1/tokens', 'POST', { name: 'laptop' });
  const git = gitClient(t, token);
  for (const n of [1, 2]) t.ok((await git.clone(`${gateway.baseUrl}/git/acme`)).ok, `git clone ${n}`);
  await gateway.gateway.settled();
  const ledger = (await json<{ entries: Entry[] }>(t, root, '/api/v1/audit?limit=1000')).entries;
  const approval = ledger.find((e) => e.event === 'snapshot-approved')!;
  const captured = ledger.find((e) => e.event === 'snapshot-captured')!;

  const page = await (await newContext(browser, gateway.baseUrl)).newPage();
  await signInAtTestIdp(page, 'audrey');
  await page.goto('/audit');
  await page.getByRole('heading', { level: 1, name: 'Audit ledger' }).waitFor();

  // The two clones are one act; it opens to show its four entries (an info-refs and an upload-pack each).
  const fetchEntries = ledger.filter((e) => e.event === 'info-refs' || e.event === 'upload-pack');
  t.equal(fetchEntries.length, 4, 'two clones: an info-refs and an upload-pack each');
  const fetches = page.locator('tbody').filter({ hasText: 'Git fetches ×2' });
  await fetches.waitFor();
  const open = fetches.getByRole('button', { name: /^Show the 4 entries/ });
  t.equal(await open.getAttribute('aria-expanded'), 'false', 'closed at first');
  t.equal(await fetches.locator('tr.group-member').count(), 0, 'its entries are not on screen');
  await open.click();
  await fetches.locator('tr.group-member').nth(3).waitFor();
  t.same(
    (await fetches.locator('tr.group-member td:nth-child(1)').allTextContents()).map(Number),
    fetchEntries.map((e) => e.id),
    'opened: each entry on a row of its own',
  );
  t.equal(await fetches.getByRole('button', { name: /^Hide the 4 entries/ }).getAttribute('aria-expanded'), 'true');
  const ingest = page.locator('tbody').filter({ hasText: 'Ingest and vetting: Clear' });
  t.equal(await ingest.count(), 1, 'the ingest and its vetting are one act');
  t.same(await seriousViolations(page), [], 'the grouped ledger: no serious or critical accessibility violation');
  await screenshot(page, 'audit-ledger-grouped');

  // Principal and event, through the form: the server narrows (decision 420).
  const form = page.getByRole('search', { name: 'Filter the ledger' });
  await form.getByLabel('Principal').fill('root');
  await form.getByLabel('Event').fill('snapshot-approved');
  await form.getByRole('button', { name: 'Filter' }).click();
  await page.waitForURL(/principal=root&event=snapshot-approved/);
  await page.getByRole('link', { name: `Entry ${approval.id}: snapshot-approved` }).waitFor();
  t.same(await rowIds(page), [approval.id], 'the one approval');
  await page.getByRole('link', { name: 'Clear the filter' }).click();
  await page.waitForURL(/\/audit$/);

  // A time range, in the reader's time zone, one row per entry: exactly the entries the API gives for it.
  await page.getByLabel('Group related entries').uncheck();
  await page.waitForURL(/group=off/);
  await form.getByLabel('From').fill(await localValue(page, captured.ts));
  await form.getByLabel('To').fill(await localValue(page, approval.ts));
  await form.getByRole('button', { name: 'Filter' }).click();
  await page.waitForURL(/from=.*&to=.*&group=off/);
  const address = new URL(page.url());
  const from = address.searchParams.get('from')!;
  const to = address.searchParams.get('to')!;
  const expected = ledger.filter((e) => e.ts >= from && e.ts <= to).map((e) => e.id);
  t.ok(expected.includes(captured.id) && expected.includes(approval.id), 'the range holds both ends');
  await page.getByRole('link', { name: `Entry ${approval.id}: snapshot-approved` }).waitFor();
  t.same(await rowIds(page), expected, 'the screen holds the entries of the range, newest first');
  const api = await json<{ entries: Entry[] }>(
    t,
    root,
    `/api/v1/audit?limit=1000&from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}`,
  );
  t.same(
    api.entries.map((e) => e.id),
    expected,
    'as the API answers',
  );
  t.same(await seriousViolations(page), [], 'the filtered ledger: no serious or critical accessibility violation');

  // Time travel: now acme serves the approved commit, and the two clones made root its holder.
  await page.getByRole('navigation', { name: 'Audit pages' }).getByRole('link', { name: 'Time travel' }).click();
  await page.getByRole('heading', { level: 1, name: 'Time travel' }).waitFor();
  const acme = page.getByRole('row', { name: /^acme/ });
  await acme.waitFor();
  t.match(await acme.textContent(), snapshot.sha.slice(0, 12), 'acme serves the approved commit');
  await acme.getByRole('button', { name: /Who had it/ }).click();
  const holder = page.getByRole('row', { name: /^root/ });
  await holder.waitFor();
  t.match(await holder.textContent(), /^root\s*2/, 'root fetched it twice');
  t.match(await holder.textContent(), /Personal access token/, 'with a personal token');
  t.same(await seriousViolations(page), [], 'time travel: no serious or critical accessibility violation');
  await screenshot(page, 'audit-time-travel');

  // Before the approval nothing was served.
  await page.getByLabel(/^Instant/).fill(await localValue(page, captured.ts));
  await page.getByRole('button', { name: 'Show', exact: true }).click();
  await page.waitForURL(/\/audit\/time-travel\?at=/);
  await page.getByRole('row', { name: /^acme/ }).filter({ hasText: 'nothing served' }).waitFor();
  t.pass('at the ingest, acme served nothing yet');
  await page.reload();
  await page.getByRole('row', { name: /^acme/ }).filter({ hasText: 'nothing served' }).waitFor();
  t.pass('the instant is in the address: a reload shows the same answer');
});

t.test('the estate reconcile is offered to an admin only where an estate file is configured', async (t) => {
  const browser = await openBrowser(t);
  if (!browser) return;
  const file = join(t.testdir(), 'estate.yaml');
  writeFileSync(file, ['grants:', '  - principal: watcher', '    role: auditor', ''].join('\n'));
  const gateway = await startGatewayWithOidc(t, { env: { ...env, GATEWAY_ESTATE_FILE: file } });
  const page = await (await newContext(browser, gateway.baseUrl)).newPage();
  await signInAtTestIdp(page, 'root');
  await page.goto('/audit/status');
  const estate = page.getByRole('region', { name: 'Estate', exact: true });
  await estate.getByText(/Last run .* \(at startup\)/).waitFor();
  await estate.getByRole('button', { name: 'Reconcile the estate now' }).click();
  await estate.getByText(/Last run .* \(on request\)/).waitFor();
  t.match(await estate.locator('tbody tr').first().textContent(), /Grant\s*watcher as auditor\s*Unchanged/);
  t.same(await seriousViolations(page), [], 'estate with a file: no serious or critical accessibility violation');
});
