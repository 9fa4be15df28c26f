// Issue 21 item 4: "The portal offers it as a download": Access → Managed settings for clients previews the
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
    await page.goto('/access');
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
