// When no identity provider and no development hatch is configured, the gateway runs a
// built-in OpenID Connect issuer (`oidc-provider`, at `/local-idp`) with a single local account `admin`,
// whose password is generated at first start, printed once, stored only as a hash under the data
// directory ... The account is an administrator.
import { existsSync, statSync, readFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import t from 'tap';
import { startOnConfig } from '../../support/gateway.ts';
import { sessionCookieName } from '../../support/oidc.ts';
import { firstRunConfig, signIn, startFirstRun } from './first-run.ts';

t.test('a first run signs in as admin through the built-in issuer, an administrator', async (t) => {
  const run = await startFirstRun(t);
  t.ok(run.password, 'the first start printed a password');
  t.equal(run.notices.length, 1, 'one notice');
  t.ok(run.password!.length >= 20, 'a strong password (at least 20 characters)');

  const discovery = await run.gateway.fetch('/local-idp/.well-known/openid-configuration');
  t.equal(discovery.status, 200);
  t.equal(((await discovery.json()) as { issuer: string }).issuer, `${run.baseUrl}/local-idp`);

  const result = await signIn(run.baseUrl, 'admin', run.password!);
  t.ok(result.callback, `the issuer sent the browser back: ${result.steps.join(' → ')}`);
  t.equal(result.callback!.status, 302, 'the callback answers a redirect to where the sign-in began');
  t.ok(result.browser.sessionId, `${sessionCookieName} is set`);
  t.ok(
    result.steps.some((s) => /^POST \/local-idp\/interaction\/[^/]+\/login 303$/.test(s)),
    "the password went to the gateway's own login page",
  );
  t.notOk(
    result.steps.some((s) => s.includes('consent')),
    'no consent page for the gateway, the first-party client',
  );

  const me = await result.browser.getJson<{ username: string; roles: Array<{ role: string }> }>('/api/v1/me');
  t.equal(me.status, 200);
  t.equal(me.body.username, 'admin', 'the principal is admin');
  t.ok(
    me.body.roles.some((r) => r.role === 'admin'),
    `the account is an administrator: ${JSON.stringify(me.body.roles)}`,
  );

  // "every sign-in asks for the password": a second sign-in in the same browser shows the form again.
  const again = await signIn(run.baseUrl, 'admin', 'not-the-password');
  t.equal(again.refused?.status, 401);
});

t.test('the wrong password is refused, with no hint which part was wrong, and no session results', async (t) => {
  const run = await startFirstRun(t);
  const wrongPassword = await signIn(run.baseUrl, 'admin', `${run.password!}x`);
  const wrongUser = await signIn(run.baseUrl, 'root', run.password!);
  for (const [name, result] of [
    ['wrong password', wrongPassword],
    ['wrong user name', wrongUser],
  ] as const) {
    t.equal(result.callback, null, `${name}: the issuer did not send the browser back`);
    t.equal(result.refused?.status, 401, `${name}: the form answers again`);
    t.match(result.refused?.html, /role="alert">The user name or password is not right\.</, name);
    t.match(result.refused?.html, /<form method="post" action="\/local-idp\/interaction\//, `${name}: the form again`);
    t.notOk(result.browser.sessionId, `${name}: no ${sessionCookieName}`);
    t.notMatch(result.refused?.html, run.password!, `${name}: the password is not echoed`);
  }
  t.equal(
    wrongPassword.refused?.html.replace(/value="[^"]*"/g, '').replace(/interaction\/[^/]+/g, ''),
    wrongUser.refused?.html.replace(/value="[^"]*"/g, '').replace(/interaction\/[^/]+/g, ''),
    'the two refusals read alike',
  );
  const me = await wrongPassword.browser.request('/api/v1/me');
  t.equal(me.status, 401, 'not signed in');
});

t.test('the password is stored only as a salted hash, readable by its owner only', async (t) => {
  const run = await startFirstRun(t);
  const file = join(run.config.dataDir, 'local-idp', 'admin.password.json');
  const stored = readFileSync(file, 'utf8');
  t.notOk(stored.includes(run.password!), 'no plaintext in the password file');
  t.notOk(stored.includes(Buffer.from(run.password!).toString('base64')), 'nor its base64');
  const record = JSON.parse(stored) as Record<string, unknown>;
  t.equal(record.algorithm, 'scrypt');
  t.type(record.salt, 'string');
  t.equal(statSync(file).mode & 0o777, 0o600, 'mode 0600');
  const keys = join(run.config.dataDir, 'local-idp', 'keys.json');
  t.equal(statSync(keys).mode & 0o777, 0o600, 'the signing and cookie keys: mode 0600');
});

t.test('a restart keeps the password and shows it no more; the issuer keeps its signing key', async (t) => {
  const run = await startFirstRun(t);
  const jwks = await (await run.gateway.fetch('/local-idp/jwks')).json();
  await run.gateway.close();
  const again = await startFirstRun(t, run.config);
  t.same(again.notices, [], 'nothing printed at the second start');
  t.same(await (await again.gateway.fetch('/local-idp/jwks')).json(), jwks, 'the same signing key');
  const result = await signIn(again.baseUrl, 'admin', run.password!);
  t.ok(result.browser.sessionId, 'the first password still signs in');
});

t.test('the login page: labelled fields, a language, a main landmark, a heading, a strict policy', async (t) => {
  const run = await startFirstRun(t);
  const result = await signIn(run.baseUrl, 'admin', 'wrong');
  const html = result.refused!.html;
  t.match(html, /<html lang="en">/);
  t.match(html, /<main>[\s\S]*<h1>Sign in to the gateway<\/h1>[\s\S]*<\/main>/);
  t.match(html, /<label for="username">[\s\S]*<input id="username"/);
  t.match(html, /<label for="password">[\s\S]*<input id="password" name="password" type="password"/);
  t.notMatch(html, /<script|\sstyle=|<style|\son[a-z]+=/i, 'no script, no inline style, no handler');
  const css = html.match(/<link rel="stylesheet" href="([^"]+)">/)?.[1];
  t.equal(css, '/local-idp/assets/sign-in.css');
  const sheet = await run.gateway.fetch(css!);
  t.equal(sheet.status, 200);
  t.match(sheet.headers.get('content-type'), /^text\/css/);

  const page = await result.browser.fetch(`${run.baseUrl}/local-idp/interaction/unknown`);
  t.equal(page.status, 400, 'an unknown sign-in');
  t.match(page.headers.get('content-security-policy'), /default-src 'self'/);
  t.match(await page.text(), /unknown or has expired/);
});

t.test('the login form: a body over its limit is refused', async (t) => {
  const run = await startFirstRun(t);
  const response = await fetch(`${run.baseUrl}/local-idp/interaction/x/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: `username=admin&password=${'a'.repeat(8192)}`,
  });
  t.equal(response.status, 413);
});

t.test(
  'attempts are limited per address: after 10 failures that address is held off, even with the right password',
  async (t) => {
    const run = await startFirstRun(t);
    for (let attempt = 1; attempt <= 10; attempt += 1) {
      const result = await signIn(run.baseUrl, 'admin', `wrong-${attempt}`);
      t.equal(result.refused?.status, 401, `failure ${attempt}`);
    }
    const blocked = await signIn(run.baseUrl, 'admin', run.password!);
    t.equal(blocked.refused?.status, 429, 'the eleventh attempt is refused before its password is looked at');
    t.match(blocked.refused?.html, /Too many failed sign-ins from this address\. Wait and try again\./);
    t.notOk(blocked.browser.sessionId, 'no session');
  },
);

// decision 354: a guesser cannot lock the administrator out. Ten failures from 127.0.0.1 hold that address
// off; the right password from 127.0.0.2, an address that has not failed, still signs in at once.
t.test('a lockout from one address does not stop the right password from another', async (t) => {
  const run = await startFirstRun(t);
  for (let attempt = 1; attempt <= 10; attempt += 1) {
    const result = await signIn(run.baseUrl, 'admin', `wrong-${attempt}`, { from: '127.0.0.1' });
    t.equal(result.refused?.status, 401, `failure ${attempt} from 127.0.0.1`);
  }
  const held = await signIn(run.baseUrl, 'admin', run.password!, { from: '127.0.0.1' });
  t.equal(held.refused?.status, 429, '127.0.0.1 is held off');
  const retryAfter = Number(held.refused?.retryAfter);
  t.ok(retryAfter > 0 && retryAfter <= 60, `with Retry-After (${held.refused?.retryAfter})`);

  const elsewhere = await signIn(run.baseUrl, 'admin', run.password!, { from: '127.0.0.2' });
  t.equal(elsewhere.refused, null, `127.0.0.2 is not refused: ${elsewhere.steps.join(' → ')}`);
  t.equal(elsewhere.callback?.status, 302);
  t.ok(elsewhere.browser.sessionId, 'and is signed in');
  const me = await elsewhere.browser.getJson<{ username: string }>('/api/v1/me');
  t.equal(me.body.username, 'admin');

  const wrongElsewhere = await signIn(run.baseUrl, 'admin', 'still-wrong', { from: '127.0.0.3' });
  t.equal(wrongElsewhere.refused?.status, 401, 'a wrong password from a third address is answered, not refused');
});

t.test('a start refused for a taken port stores no password: the next start shows one that signs in', async (t) => {
  const holder = createServer();
  await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => holder.close(() => resolve())));
  const taken = (holder.address() as AddressInfo).port;
  const config = await firstRunConfig(t, { PORT: String(taken) });
  const notices: string[] = [];
  const started = performance.now();
  await t.rejects(startOnConfig(config, { notice: (text) => notices.push(text) }), {
    name: 'Error',
    message: new RegExp(
      `^port ${taken} is already in use \\(127\\.0\\.0\\.1:${taken}\\): .*PORT=${taken + 1} npm start`,
    ),
  });
  t.ok(performance.now() - started < 1000, 'refused at once, before anything starts');
  t.same(notices, [], 'no password shown');
  t.notOk(existsSync(join(config.dataDir, 'local-idp', 'admin.password.json')), 'and none stored');
  const run = await startFirstRun(t, {
    ...config,
    server: { ...config.server, port: 0 },
    baseUrl: 'http://127.0.0.1:0',
  });
  t.ok(run.password, 'the next start shows a first password');
  const result = await signIn(run.baseUrl, 'admin', run.password!);
  t.ok(result.browser.sessionId, 'which signs in');
});
