// The portal offers the managed settings as a download: Access, Managed settings tab, previews the
// organisation's managed-settings.json (the catalog by default, or the marketplaces ticked) and downloads it.
import { readFileSync } from 'node:fs';
import t from 'tap';
import { registerMarketplace } from '../support/assert.ts';
import { newContext, openBrowser, screenshot, seriousViolations, signInAtTestIdp } from '../support/browser.ts';
import { startGatewayWithOidc } from '../support/oidc.ts';

t.test(
  'Access: the managed settings are previewed and downloaded, the catalog or the ticked marketplaces',
  async (t) => {
    const browser = await openBrowser(t);
    if (!browser) return;
    const { baseUrl, gateway } = await startGatewayWithOidc(t);
    await registerMarketplace(gateway, 1, 'acme', 'upstream');

    const page = await (await newContext(browser, baseUrl)).newPage();
    await signInAtTestIdp(page, 'alice');
    await page.goto('/access/managed-settings');
    const section = page.getByRole('region', { name: 'Managed settings for clients' });
    await section.getByRole('heading', { level: 2, name: 'Managed settings for clients' }).waitFor();
    const hostPattern = `^${new URL(baseUrl).hostname.replaceAll('.', '\\\\.')}$`;
    await section.getByText(`"${baseUrl}/git/catalog.git"`).waitFor();
    t.ok(await section.getByText(hostPattern, { exact: false }).isVisible(), 'the preview shows the host allowlist');
    t.same(await seriousViolations(page), [], 'no serious or critical accessibility violation');
    await screenshot(page, 'access-managed-settings');

    await section.getByRole('checkbox', { name: 'acme' }).check();
    await section.getByText(`"${baseUrl}/git/acme.git"`).waitFor();
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      section.getByRole('link', { name: 'Download managed-settings.json' }).click(),
    ]);
    t.equal(download.suggestedFilename(), 'managed-settings.json', 'saved under the name Claude Code reads');
    const saved = JSON.parse(readFileSync((await download.path())!, 'utf8')) as {
      extraKnownMarketplaces: Record<string, { source: { url: string } }>;
      strictKnownMarketplaces: Array<{ hostPattern: string }>;
    };
    t.same(
      Object.entries(saved.extraKnownMarketplaces).map(([name, entry]) => [name, entry.source.url]),
      [['acme', `${baseUrl}/git/acme.git`]],
      'the ticked marketplace, through the facade',
    );
    t.equal(saved.strictKnownMarketplaces[0]?.hostPattern, hostPattern.replaceAll('\\\\', '\\'));
  },
);

// Decision 423: a token scoped to some marketplaces gets "repository not found" for the catalog the managed
// settings register (the facade keeps answering out-of-scope as nonexistent: docs/access.md). The preview
// names, for each marketplace the file registers, which of the reader's tokens can fetch it, and warns when
// none can; the token form offers the catalog and warns about a scope that leaves it out.
t.test(
  'Access: the preview names the tokens that can fetch each registered marketplace, warns when none can',
  async (t) => {
    const browser = await openBrowser(t);
    if (!browser) return;
    const { baseUrl, gateway, login } = await startGatewayWithOidc(t);
    await registerMarketplace(gateway, 1, 'acme', 'upstream');
    const alice = await login('alice');
    const scoped = await alice.request('/api/v1/tokens', {
      method: 'POST',
      json: { name: 'acme-only', scopes: ['acme'] },
    });
    t.equal(scoped.status, 201, "the README's example: a token scoped to one marketplace");

    const page = await (await newContext(browser, baseUrl)).newPage();
    await signInAtTestIdp(page, 'alice');
    await page.goto('/access/managed-settings');
    const section = page.getByRole('region', { name: 'Managed settings for clients' });
    const reach = section.getByRole('region', { name: 'Which of your tokens can fetch what it registers' });
    const catalogRow = reach.getByRole('row', { name: /^catalog/ });
    await catalogRow.waitFor();
    t.match(
      await catalogRow.textContent(),
      /None of your tokens can fetch the catalog \(catalog\)/,
      'the catalog row warns',
    );
    const warning = reach.getByRole('status');
    t.match(await warning.textContent(), /None of your tokens can fetch catalog\./, 'and so does the section');
    t.match(await warning.textContent(), /repository not found/, 'naming what git will say');
    t.same(await seriousViolations(page), [], 'no serious or critical accessibility violation (warning shown)');

    // Choosing acme: the scoped token fetches it.
    await section.getByRole('checkbox', { name: 'acme' }).check();
    const acmeRow = reach.getByRole('row', { name: /^acme/ });
    await acmeRow.waitFor();
    t.match(await acmeRow.textContent(), /acme-only/, 'acme: fetched by acme-only');
    t.equal(await reach.getByRole('status').count(), 0, 'no warning while a token can fetch everything registered');
    await section.getByRole('checkbox', { name: 'acme' }).uncheck();

    // From the warning to a token that can: the form opens with the catalog ticked.
    await catalogRow.getByRole('link', { name: 'Create a token that can' }).click();
    await page.waitForURL(/\/access\?scope=catalog$/);
    const form = page.getByRole('form', { name: 'New token' });
    const catalogBox = form.getByRole('checkbox', { name: 'catalog', exact: true });
    t.ok(await catalogBox.isChecked(), 'the catalog is ticked');
    t.match(
      await form.getByRole('group').first().textContent(),
      /catalog\s*\(the catalog\)/,
      'and named as the catalog',
    );
    await form.getByRole('checkbox', { name: 'acme' }).check();
    await catalogBox.uncheck();
    const advice = form.getByRole('status');
    t.match(await advice.textContent(), /will not fetch the catalog/, 'a scope without the catalog is warned about');
    await catalogBox.check();
    t.equal(await form.getByRole('status').count(), 0, 'the warning goes once the catalog is ticked');
    await form.getByLabel('Name').fill('everywhere');
    await form.getByRole('button', { name: 'Create token' }).click();
    await page.getByRole('heading', { name: 'Token created: everywhere' }).waitFor();
    t.same(await seriousViolations(page), [], 'no serious or critical accessibility violation (token form)');

    await page.goto('/access/managed-settings');
    await reach
      .getByRole('row', { name: /^catalog/ })
      .filter({ hasText: 'everywhere' })
      .waitFor();
    t.equal(await reach.getByRole('status').count(), 0, 'the new token fetches the catalog: no warning');
  },
);
