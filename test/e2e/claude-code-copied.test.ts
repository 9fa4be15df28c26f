// What the portal offers to copy reaches a real Claude Code: the marketplace page's clone URL and the
// Access page's `claude plugin marketplace add` command, run as shown by Claude Code's own plugin manager
// (with the token the same page showed in git's credential store), then a plugin installed from it.
import { rmSync } from 'node:fs';
import t from 'tap';
import { newContext, openBrowser, signInAtTestIdp } from '../support/browser.ts';
import { startGatewayWithOidc } from '../support/oidc.ts';
import { marketplaceFiles, serveUpstream } from '../support/upstream.ts';
import {
  claude,
  egressTrap,
  freshHome,
  preflight,
  prepareClaudeCode,
  shown,
  storeCredential,
} from '../http/claude/claude-code-cli.ts';

const name = 'the copied clone URL and Claude Code command add the marketplace in the real Claude Code';

// npm install of the CLI (up to 5 minutes on a cold cache) plus the test itself.
t.setTimeout(15 * 60_000);

const prepared = await prepareClaudeCode();
const ready = prepared.ok ? await preflight(prepared.cli) : prepared;

/** The words of a copied command line as a POSIX shell splits them (double quotes only: all it uses). */
const words = (command: string): string[] =>
  [...command.matchAll(/(?:"[^"]*"|[^\s"])+/g)].map((match) => match[0].replace(/"/g, ''));

if (!ready.ok) t.test(name, { skip: ready.reason }, async () => {});
else
  t.test(name, async (t) => {
    const { cli } = ready;
    const browser = await openBrowser(t);
    if (!browser) return;
    const { baseUrl, login } = await startGatewayWithOidc(t, { env: { GATEWAY_ROLES_ADMINS: 'root' } });
    const root = await login('root');
    const upstream = await serveUpstream(t, marketplaceFiles('acme', ['alpha']), 'acme');
    t.equal(
      (await root.request('/api/v1/marketplaces', { method: 'POST', json: { name: 'acme', url: upstream.url } }))
        .status,
      201,
    );
    const ingested = await root.request('/api/v1/marketplaces/acme/ingest', { method: 'POST' });
    const { id } = (await ingested.json()) as { id: number };
    t.equal((await root.request(`/api/v1/snapshots/${id}/approve`, { method: 'POST' })).status, 200, 'acme served');

    const page = await (await newContext(browser, baseUrl)).newPage();
    await signInAtTestIdp(page, 'alice');
    await page.goto('/marketplaces/acme');
    const cloneUrl = (await page.locator('dt:text-is("Clone URL") + dd').textContent())?.trim() ?? '';
    t.match(cloneUrl, /^http:\/\/.+\/git\/acme\.git$/, `the marketplace page's clone URL: ${cloneUrl}`);

    await page.goto('/access');
    const form = page.getByRole('form', { name: 'New token' });
    await form.getByLabel('Name').fill('laptop');
    await form.getByRole('checkbox', { name: 'acme' }).check();
    await form.getByRole('button', { name: 'Create token' }).click();
    const token = await page.getByLabel('Token', { exact: true }).inputValue();
    const command = await page.getByRole('textbox', { name: 'Claude Code', exact: true }).inputValue();
    const [program, ...args] = words(command);
    t.equal(program, 'claude', `the copied command: ${command}`);

    const trap = await egressTrap();
    t.teardown(() => trap.close());
    for (const [label, addArgs] of [
      ['the Access page command', args],
      ['the marketplace page URL', ['plugin', 'marketplace', 'add', cloneUrl]],
    ] as const) {
      const home = freshHome('copied');
      t.teardown(() => rmSync(home, { recursive: true, force: true }));
      storeCredential(home, baseUrl, 'alice', token);
      const add = await claude(cli, home, addArgs, { proxy: trap.url });
      t.ok(add.ok, `${label}: claude ${addArgs.join(' ')}: ${shown(add, token)}`);
      const install = await claude(cli, home, ['plugin', 'install', 'alpha@acme'], { proxy: trap.url });
      t.ok(install.ok, `${label}: claude plugin install alpha@acme: ${shown(install, token)}`);
    }
  });
