// Personal tokens (create with scopes and expiry; the token shown once with ready-to-copy
// `git clone`, credential-helper and `claude plugin marketplace add` commands), rotate, revoke; machine
// credentials and role grants for admins, and "create a token, run the real `git clone` with the copied
// command"; "a reviewer without the admin role sees no admin actions and gets 403 from the API when forcing
// one". Spec, Tokens: the token "appears only in the response that creates or rotates it, never again".
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Page } from 'playwright-core';
import t, { type Test } from 'tap';
import { newContext, openBrowser, screenshot, seriousViolations, signInAtTestIdp } from '../support/browser.ts';
import { startGatewayWithOidc, type GatewayBrowser } from '../support/oidc.ts';
import { marketplaceFiles, serveUpstream } from '../support/upstream.ts';
import { scratchDir } from '../support/scratch.ts';

const run = promisify(execFile);

/** A git client's environment: a throwaway HOME (its own ~/.gitconfig), no system config, no prompts. */
function gitHome(t: Test): NodeJS.ProcessEnv {
  const home = scratchDir(t, 'gw-access-git-');
  return { ...process.env, HOME: home, GIT_CONFIG_NOSYSTEM: '1', GIT_TERMINAL_PROMPT: '0', GIT_ASKPASS: '' };
}

/** The words of a copied command line as a POSIX shell splits them (double quotes only: all it uses). */
const words = (command: string): string[] =>
  [...command.matchAll(/(?:"[^"]*"|[^\s"])+/g)].map((match) => match[0].replace(/"/g, ''));

async function git(args: string[], env: NodeJS.ProcessEnv) {
  try {
    await run('git', args, { env, cwd: env.HOME });
    return { ok: true, stderr: '' };
  } catch (error) {
    return { ok: false, stderr: String((error as { stderr?: string }).stderr) };
  }
}

/** Registers acme on a real upstream, ingests and approves it through the API, as root. */
async function serveAcme(t: Test, root: GatewayBrowser): Promise<void> {
  const upstream = await serveUpstream(t, marketplaceFiles('acme', ['alpha']), 'acme');
  const registered = await root.request('/api/v1/marketplaces', {
    method: 'POST',
    json: { name: 'acme', url: upstream.url },
  });
  t.equal(registered.status, 201, 'acme registered');
  const ingested = await root.request('/api/v1/marketplaces/acme/ingest', { method: 'POST' });
  t.equal(ingested.status, 201, 'acme ingested');
  const { id } = (await ingested.json()) as { id: number };
  t.equal((await root.request(`/api/v1/snapshots/${id}/approve`, { method: 'POST' })).status, 200, 'acme approved');
}

/** A state-changing request from the page's own session, echoing XSRF-TOKEN as the portal does. */
const forcedPost = (page: Page, path: string, body: unknown) =>
  page.evaluate(
    async ({ path, body }) => {
      // Runs in the page (the test's tsconfig has no DOM library: document is reached through globalThis).
      const { cookie } = (globalThis as unknown as { document: { cookie: string } }).document;
      const xsrf = /(?:^|;\s*)XSRF-TOKEN=([^;]+)/.exec(cookie)?.[1] ?? '';
      const answer = await fetch(path, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-xsrf-token': decodeURIComponent(xsrf) },
        body: JSON.stringify(body),
      });
      return answer.status;
    },
    { path, body },
  );

t.test('Access: a personal token from the portal clones for real, is shown once and dies when revoked', async (t) => {
  const browser = await openBrowser(t);
  if (!browser) return;
  const { baseUrl, gateway, login } = await startGatewayWithOidc(t, { env: { GATEWAY_ROLES_ADMINS: 'root' } });
  await serveAcme(t, await login('root'));

  const page = await (await newContext(browser, baseUrl)).newPage();
  await signInAtTestIdp(page, 'alice');
  await page.goto('/access');
  await page.getByRole('heading', { level: 1, name: 'Access' }).waitFor();

  const form = page.getByRole('form', { name: 'New token' });
  await form.getByLabel('Name').fill('laptop');
  await form.getByRole('checkbox', { name: 'acme' }).check();
  await form.getByLabel('Expires after').selectOption({ label: '30 days' });
  await form.getByRole('button', { name: 'Create token' }).click();

  const token = await page.getByLabel('Token', { exact: true }).inputValue();
  t.match(token, /^gw_[A-Za-z0-9_-]{43}$/, 'the secret is shown: gw_ and 32 random bytes, base64url');
  const clone = await page.getByLabel('git clone').inputValue();
  const url = `${baseUrl}/git/acme.git`;
  t.ok(clone.endsWith(` clone ${url}`), `the command clones the facade URL: ${clone}`);
  t.notOk(clone.includes(`@${new URL(baseUrl).host}`), 'no credential in the URL');
  t.equal(await page.getByLabel('Claude Code').inputValue(), `claude plugin marketplace add ${url}`);
  t.same(await seriousViolations(page), [], 'no serious or critical accessibility violation (token shown)');
  await screenshot(page, 'access-tokens');

  // The copied command, run as it is by the real git.
  const [command, ...args] = words(clone);
  t.equal(command, 'git');
  const cloneEnv = gitHome(t);
  const cloned = await git([...args, 'acme'], cloneEnv);
  t.ok(cloned.ok, `the copied git clone succeeds ${cloned.stderr}`);
  const manifest = join(cloneEnv.HOME!, 'acme', '.claude-plugin', 'marketplace.json');
  t.equal((JSON.parse(readFileSync(manifest, 'utf8')) as { name: string }).name, 'acme', 'the marketplace is there');
  t.ok(existsSync(join(cloneEnv.HOME!, 'acme', 'plugins/alpha/skills/alpha-skill/SKILL.md')), 'with its skill');
  t.notOk(readFileSync(join(cloneEnv.HOME!, 'acme', '.git', 'config'), 'utf8').includes(token), 'token not kept');

  // The credential-helper setup, then a plain clone that finds the token by itself.
  const helper = await page.getByLabel('Credential helper setup').inputValue();
  const helperEnv = gitHome(t);
  await run('sh', ['-c', helper], { env: helperEnv });
  const plain = await git(['clone', '--quiet', url, 'plain'], helperEnv);
  t.ok(plain.ok, `after the helper setup a plain git clone succeeds ${plain.stderr}`);

  await page.reload();
  await page.getByRole('heading', { level: 2, name: 'Personal access tokens' }).waitFor();
  const row = page.getByRole('row', { name: /laptop/ });
  await row.waitFor();
  t.equal(await page.getByLabel('Token', { exact: true }).count(), 0, 'after a reload the token is not shown');
  t.notOk((await page.content()).includes(token), 'nor anywhere in the page');
  t.same(await page.evaluate(() => localStorage.length + sessionStorage.length), 0, 'nor in web storage');

  // Rotation: a new secret shown once again; the old one is revoked first (spec, Tokens).
  await row.getByRole('button', { name: 'Rotate laptop' }).click();
  await page.getByRole('heading', { name: 'Token rotated: laptop' }).waitFor();
  const rotated = await page.getByLabel('Token', { exact: true }).inputValue();
  t.not(rotated, token, 'rotation shows a new secret');
  const rotatedClone = await page.getByLabel('git clone').inputValue();
  await gateway.settled();
  t.notOk((await git([...args, 'old'], gitHome(t))).ok, 'the old command fails after rotation');
  const [, ...rotatedArgs] = words(rotatedClone);
  t.ok((await git([...rotatedArgs, 'new'], gitHome(t))).ok, 'the new command clones');
  await page.getByRole('button', { name: 'I have copied it' }).click();

  const active = page.getByRole('row', { name: /laptop/ }).filter({ hasText: 'active' });
  await active.getByRole('button', { name: 'Revoke laptop' }).click();
  await active.getByRole('button', { name: 'Confirm revoke' }).click();
  await page
    .getByRole('row', { name: /laptop/ })
    .filter({ hasText: 'active' })
    .waitFor({ state: 'detached' });
  await gateway.settled();
  const refused = await git([...rotatedArgs, 'again'], gitHome(t));
  t.notOk(refused.ok, 'the same clone command fails once the token is revoked');
  t.match(refused.stderr, /Authentication failed|401|could not read Username/, refused.stderr);

  // Alice is no admin: no machine credentials, no grants, and the API refuses her when she forces one.
  const tabs = page.getByRole('navigation', { name: 'Access pages' });
  t.equal(await tabs.getByRole('link', { name: 'Machine credentials' }).count(), 0, 'no machine credentials tab');
  t.equal(await tabs.getByRole('link', { name: 'Role grants' }).count(), 0, 'no role grants tab');
  for (const path of ['/access/machine', '/access/roles']) {
    await page.goto(path);
    await page.getByText('This page is for administrators.').waitFor();
    t.equal(
      await page.getByRole('heading', { name: /Machine credentials|Role grants/ }).count(),
      0,
      `${path}: nothing`,
    );
  }
  t.equal(await forcedPost(page, '/api/v1/roles', { principal: 'alice', role: 'admin' }), 403, 'grant: 403');
  const machine = { principal: 'x', name: 'x', apiScopes: ['roles:read'], expiresAt: new Date(Date.now() + 864e5) };
  t.equal(await forcedPost(page, '/api/v1/tokens/machine', machine), 403, 'machine credential: 403');
});

t.test('Access: an admin provisions a machine credential and grants a role', async (t) => {
  const browser = await openBrowser(t);
  if (!browser) return;
  const { baseUrl, login } = await startGatewayWithOidc(t, { env: { GATEWAY_ROLES_ADMINS: 'root' } });
  const root = await login('root');
  await serveAcme(t, root);

  const page = await (await newContext(browser, baseUrl)).newPage();
  await signInAtTestIdp(page, 'root');
  await page.goto('/access');
  await page
    .getByRole('navigation', { name: 'Access pages' })
    .getByRole('link', { name: 'Machine credentials' })
    .click();
  await page.waitForURL(/\/access\/machine$/);

  const provision = page.getByRole('form', { name: 'New machine credential' });
  await provision.getByLabel('Principal').fill('ci-pipeline');
  await provision.getByLabel('Name').fill('nightly');
  await provision.getByRole('checkbox', { name: 'marketplaces:read' }).check();
  await provision.getByRole('button', { name: 'Provision credential' }).click();
  const secret = await page.getByLabel('Machine credential', { exact: true }).inputValue();
  t.match(secret, /^gw_/, 'the machine secret is shown once');
  const asMachine = await fetch(`${baseUrl}/api/v1/marketplaces`, { headers: { authorization: `Bearer ${secret}` } });
  t.equal(asMachine.status, 200, 'it reaches what its scope names');
  const outOfScope = await fetch(`${baseUrl}/api/v1/roles`, { headers: { authorization: `Bearer ${secret}` } });
  t.equal(outOfScope.status, 403, 'and nothing else');
  const machineRow = page.getByRole('row', { name: /nightly/ });
  t.match(await machineRow.textContent(), /ci-pipeline.*marketplaces:read.*root/, 'listed with principal and owner');

  await page.getByRole('navigation', { name: 'Access pages' }).getByRole('link', { name: 'Role grants' }).click();
  await page.waitForURL(/\/access\/roles$/);
  const grant = page.getByRole('form', { name: 'Grant a role' });
  await grant.getByLabel('Principal').fill('alice');
  await grant.getByLabel('Role').selectOption('approver');
  await grant.getByLabel(/Marketplace/).selectOption('acme');
  await grant.getByRole('button', { name: 'Grant role' }).click();
  const grantRow = page.getByRole('row', { name: /^alice approver acme root/i });
  await grantRow.waitFor();
  const grants = (await (await root.request('/api/v1/roles')).json()) as Array<{ principal: string }>;
  t.same(
    grants.map((g) => g.principal),
    ['alice'],
    'the grant is on the server',
  );
  t.same(await seriousViolations(page), [], 'no serious or critical accessibility violation (admin view)');
  await page.getByRole('heading', { level: 1 }).scrollIntoViewIfNeeded();
  await screenshot(page, 'access-admin');

  await grantRow.getByRole('button', { name: /^Remove alice/ }).click();
  await grantRow.getByRole('button', { name: 'Confirm remove' }).click();
  await page.getByText('No role has been granted.').waitFor();
  t.pass('the grant is removed after confirmation');
});
