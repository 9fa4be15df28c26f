// Browser sign-in through the gateway's login paths against a real oidc-provider (test/support/oidc.ts),
// the session it yields (GET /api/v1/me), CSRF on the session path, logout, and sessions shared by
// replicas on one database.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { ConfigError, loadConfig } from '../../../src/adapters/config/load.ts';
import {
  CookieJar,
  GatewayBrowser,
  callbackPath,
  reachCallback,
  sessionCookieName,
  startGatewayWithOidc,
  xsrfCookieName,
  type ClaimMappingEntry,
} from '../../support/oidc.ts';

type Me = {
  username: string;
  roles: Array<{ role: string; marketplace: string | null; source: string }>;
  claimsTruncated: boolean;
  version?: string;
};
type ProblemDocument = { type: string; title: string; status: number; detail: string; instance: string };

const packageVersion = (
  JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

const claimMappings: readonly ClaimMappingEntry[] = [
  { claim: 'groups', value: 'auditors', role: 'auditor' },
  { claim: 'groups', value: 'platform-admins', role: 'admin' },
  { claim: 'groups', value: 'alpha-approvers', role: 'approver', marketplace: 'alpha' },
];

const accounts = {
  ann: { email: 'ann@example.test', preferred_username: 'ann.approver', groups: ['alpha-approvers'] },
  claimadmin: { email: 'claimadmin@example.test', preferred_username: 'claim.admin', groups: ['platform-admins'] },
};

// One gateway for most tests: `root` is a configuration admin; the claim mappings above apply.
const gw = await startGatewayWithOidc(t, { accounts, claimMappings, env: { GATEWAY_ROLES_ADMINS: 'root' } });

const setCookies = (response: Response, name: string) =>
  response.headers.getSetCookie().filter((raw) => raw.startsWith(`${name}=`));

async function expectProblem(t: Test, response: Response, status: number, message: string): Promise<ProblemDocument> {
  t.equal(response.status, status, `${message}: status`);
  t.match(response.headers.get('content-type') ?? '', /^application\/problem\+json/, `${message}: problem document`);
  const body = (await response.json()) as ProblemDocument;
  t.equal(body.status, status, `${message}: problem status`);
  t.type(body.detail, 'string', `${message}: detail says why`);
  return body;
}

t.test(
  'spec, Web/API (session): the sign-in ends in a 302 to returnTo with an HttpOnly GATEWAY_SESSION cookie',
  async (t) => {
    const browser = await gw.login('alice', { returnTo: '/ui/marketplaces?tab=held' });
    const callback = browser.callback!;
    t.ok(
      callback.url.startsWith(`${gw.baseUrl}${callbackPath}?`),
      'the provider sent the browser to /login/oauth2/code/idp',
    );
    t.equal(callback.response.status, 302);
    t.equal(callback.response.headers.get('location'), '/ui/marketplaces?tab=held');
    const [raw, ...more] = setCookies(callback.response, sessionCookieName);
    t.ok(raw, 'the callback sets GATEWAY_SESSION');
    t.equal(more.length, 0, 'once');
    t.match(raw ?? '', /;\s*HttpOnly/i, 'HttpOnly: no script reads the session');
    t.match(raw ?? '', /;\s*Path=\/(;|$)/i, 'for the whole gateway');
    t.match(raw ?? '', /;\s*SameSite=Lax/i);
    t.ok(browser.get(gw.baseUrl, sessionCookieName)?.httpOnly);
    t.notOk(browser.get(gw.idp.issuer, sessionCookieName), 'the cookie belongs to the gateway, not the provider');

    const me = await browser.request('/api/v1/me');
    t.equal(me.status, 200, 'the cookie is a session');
  },
);

t.test(
  'spec, Authentication: /oauth2/authorization/idp sends the browser to the provider with PKCE (S256), state and nonce',
  async (t) => {
    const response = await fetch(`${gw.gateway.url}/oauth2/authorization/idp`, { redirect: 'manual' });
    t.equal(response.status, 302);
    const location = new URL(response.headers.get('location') ?? 'about:blank');
    t.equal(location.origin, gw.idp.issuer, 'to the provider');
    const q = Object.fromEntries(location.searchParams);
    t.match(q, {
      client_id: gw.idp.clientId,
      response_type: 'code',
      redirect_uri: `${gw.baseUrl}${callbackPath}`,
      code_challenge_method: 'S256',
      code_challenge: /^[A-Za-z0-9_-]{43}$/,
      state: /^[A-Za-z0-9_-]{20,}$/,
      nonce: /^[A-Za-z0-9_-]{20,}$/,
    });
    t.same((q.scope ?? '').split(' ').sort(), ['email', 'openid', 'profile'], 'the default scopes');
    const second = new URL(
      (await fetch(`${gw.gateway.url}/oauth2/authorization/idp`, { redirect: 'manual' })).headers.get('location') ??
        'about:blank',
    );
    t.not(second.searchParams.get('state'), q.state, 'a fresh state per sign-in');
    t.not(second.searchParams.get('code_challenge'), q.code_challenge, 'and a fresh verifier');
  },
);

t.test('the sign-in returns only to a path on this gateway: returnTo of another origin falls back to /', async (t) => {
  for (const returnTo of [
    'https://evil.example',
    '//evil.example',
    '//evil.example/path',
    '/\\evil.example',
    'javascript:alert(1)',
    'evil.example',
  ]) {
    const browser = await gw.login('alice', { returnTo });
    t.equal(browser.callback?.response.status, 302, `${returnTo}: 302`);
    t.equal(browser.callback?.response.headers.get('location'), '/', `${returnTo}: to /`);
  }
  const plain = await gw.login('alice');
  t.equal(plain.callback?.response.headers.get('location'), '/', 'no returnTo: /');
  const deep = await gw.login('alice', { returnTo: '/a/b?c=d' });
  t.equal(deep.callback?.response.headers.get('location'), '/a/b?c=d', 'a local path is kept');
});

// A browser drops ASCII tab and newline from a URL before resolving it (WHATWG URL), so a Location of
// "/<TAB>/evil.example" takes it to http://evil.example/.
t.test('returnTo with a tab inside "//" does not send the browser to another origin (no open redirect)', async (t) => {
  for (const returnTo of ['/\t/evil.example', '/\t\t/evil.example/path']) {
    const browser = await gw.login('alice', { returnTo });
    const location = browser.callback?.response.headers.get('location') ?? '';
    t.equal(
      new URL(location, gw.baseUrl).origin,
      new URL(gw.baseUrl).origin,
      `${JSON.stringify(returnTo)}: stays on the gateway (Location ${JSON.stringify(location)})`,
    );
  }
});

t.test('returnTo with a line break falls back to / instead of failing the sign-in', async (t) => {
  for (const returnTo of ['/\n/evil.example', '/a\r\nSet-Cookie: x=y']) {
    const browser = new GatewayBrowser(gw.baseUrl);
    const response = await browser.fetch(await reachCallback(browser, 'alice', { returnTo }));
    t.equal(response.status, 302, `${JSON.stringify(returnTo)}: 302`);
    t.equal(response.headers.get('location'), '/', `${JSON.stringify(returnTo)}: to /`);
    t.ok(browser.sessionId, `${JSON.stringify(returnTo)}: signed in`);
    t.notMatch(
      response.headers.get('set-cookie') ?? '',
      /(^|,\s*)x=y/,
      `${JSON.stringify(returnTo)}: no header injected`,
    );
  }
});

t.test(
  'spec, Session: GET /api/v1/me answers the username (the sub by default), roles, claimsTruncated false and the version',
  async (t) => {
    const browser = await gw.login('alice');
    const { status, body } = await browser.getJson<Me>('/api/v1/me');
    t.equal(status, 200);
    t.same(
      body,
      { username: 'alice', roles: [], claimsTruncated: false, version: packageVersion },
      'preferred_username alice.liddell is not the name: the default user-name attribute is sub',
    );
  },
);

t.test('gateway.oidc.user-name-attribute: preferred_username names the principal', async (t) => {
  const other = await startGatewayWithOidc(t, {
    accounts: { 'no-username': { email: 'nobody@example.test', groups: ['auditors'] } },
    claimMappings,
    env: { GATEWAY_OIDC_USER_NAME_ATTRIBUTE: 'preferred_username' },
  });
  const browser = await other.login('alice');
  const { body } = await browser.getJson<Me>('/api/v1/me');
  t.equal(body.username, 'alice.liddell');

  // Without the attribute there is nobody to name: the sign-in is refused and no session results.
  const refused = new GatewayBrowser(other.baseUrl);
  const url = await reachCallback(refused, 'no-username');
  const response = await refused.fetch(url);
  await expectProblem(t, response, 401, 'no preferred_username claim');
  t.same(setCookies(response, sessionCookieName), [], 'no session cookie');
});

t.test('spec, Roles: roles of source claim come from gateway.roles.claim-mappings', async (t) => {
  const roles = async (account: string) => (await (await gw.login(account)).getJson<Me>('/api/v1/me')).body.roles;
  t.same(await roles('audrey'), [{ role: 'auditor', marketplace: null, source: 'claim' }], 'groups contains auditors');
  t.same(
    await roles('ann'),
    [{ role: 'approver', marketplace: 'alpha', source: 'claim' }],
    'approver of the mapped marketplace',
  );
  t.same(
    await roles('claimadmin'),
    [{ role: 'admin', marketplace: null, source: 'claim' }],
    'an admin mapping alone gives admin from the claim',
  );
  t.same(await roles('nogroups'), [], 'no groups claim, no claim roles');
});

t.test('spec, Session: "A role is reported once, attributed to the most durable source"', async (t) => {
  const root = await gw.login('root');
  t.same(
    (await root.getJson<Me>('/api/v1/me')).body.roles,
    [{ role: 'admin', marketplace: null, source: 'config' }],
    'admin by the admin list and by the platform-admins claim: once, as config',
  );

  // A grant outranks a claim: audrey is an auditor by claim, then by grant too.
  const granted = await root.request('/api/v1/roles', {
    method: 'POST',
    json: { principal: 'audrey', role: 'auditor' },
  });
  t.equal(granted.status, 201, await granted.clone().text());
  const audrey = await gw.login('audrey');
  t.same(
    (await audrey.getJson<Me>('/api/v1/me')).body.roles,
    [{ role: 'auditor', marketplace: null, source: 'grant' }],
    'auditor by grant and by claim: once, as grant',
  );
});

t.test('claims are bounded: an account with 300 groups signs in with claimsTruncated true', async (t) => {
  const browser = await gw.login('many');
  const { status, body } = await browser.getJson<Me>('/api/v1/me');
  t.equal(status, 200);
  t.equal(body.username, 'many');
  t.equal(body.claimsTruncated, true);
  const alice = await gw.login('alice');
  t.equal((await alice.getJson<Me>('/api/v1/me')).body.claimsTruncated, false, 'one group is not truncated');
});

t.test('spec, Web/API: "Unauthenticated /api/** requests get a clean 401, never a redirect"', async (t) => {
  for (const path of ['/api/v1/me', '/api/v1/tokens', '/api/v1/roles']) {
    const response = await fetch(`${gw.gateway.url}${path}`, { redirect: 'manual' });
    t.notOk(response.headers.get('location'), `${path}: no Location`);
    const problem = await expectProblem(t, response, 401, path);
    t.equal(problem.instance, path);
  }
  const forged = await fetch(`${gw.gateway.url}/api/v1/me`, {
    redirect: 'manual',
    headers: { cookie: `${sessionCookieName}=not-a-session` },
  });
  await expectProblem(t, forged, 401, 'an unknown session cookie');
});

t.test('the callback with an unknown or replayed state is refused (403) and sets no session cookie', async (t) => {
  for (const query of ['?state=never-issued&code=abc', '?code=abc', '']) {
    const response = await fetch(`${gw.gateway.url}${callbackPath}${query}`, { redirect: 'manual' });
    await expectProblem(t, response, 403, `callback ${query || 'without parameters'}`);
    t.same(setCookies(response, sessionCookieName), [], `${query || 'no parameters'}: no session cookie`);
  }

  const browser = new GatewayBrowser(gw.baseUrl);
  const url = await reachCallback(browser, 'alice');
  const first = await browser.fetch(url);
  t.equal(first.status, 302, 'the first use signs in');
  t.equal(setCookies(first, sessionCookieName).length, 1);

  const again = await browser.fetch(url);
  await expectProblem(t, again, 403, 'the same callback URL a second time');
  t.same(setCookies(again, sessionCookieName), [], 'a replay sets no session cookie');
  const elsewhere = await new CookieJar().fetch(url);
  await expectProblem(t, elsewhere, 403, 'the same callback URL from another browser');
  t.same(setCookies(elsewhere, sessionCookieName), []);
});

t.test('a known state with a code the provider never issued is refused, and the state is spent', async (t) => {
  const browser = new GatewayBrowser(gw.baseUrl);
  const url = new URL(await reachCallback(browser, 'alice'));
  const genuine = url.href;
  url.searchParams.set('code', 'forged-code');
  const forged = await browser.fetch(url);
  await expectProblem(t, forged, 401, 'forged code');
  t.same(setCookies(forged, sessionCookieName), []);
  const late = await browser.fetch(genuine);
  await expectProblem(t, late, 403, 'the genuine code after its state was spent');
  t.same(setCookies(late, sessionCookieName), []);
});

t.test(
  'POST /api/v1/logout: with the XSRF echo 204 and the session ends; without it 403 and the session lives',
  async (t) => {
    const browser = await gw.login('alice');
    const sessionId = browser.sessionId!;

    const refused = await browser.request('/api/v1/logout', { method: 'POST', xsrf: false });
    await expectProblem(t, refused, 403, 'logout without X-XSRF-TOKEN');
    t.equal((await browser.request('/api/v1/me')).status, 200, 'the session still works');

    const done = await browser.request('/api/v1/logout', { method: 'POST' });
    t.equal(done.status, 204);
    t.equal(browser.sessionId, undefined, 'the session cookie is cleared');
    // The session is ended at the gateway, not only in this browser: the old cookie no longer authenticates.
    const replayed = await fetch(`${gw.gateway.url}/api/v1/me`, {
      headers: { cookie: `${sessionCookieName}=${sessionId}` },
    });
    await expectProblem(t, replayed, 401, 'the old session cookie after logout');
  },
);

t.test('spec, Web/API: a state-changing request must echo XSRF-TOKEN in X-XSRF-TOKEN or answer 403', async (t) => {
  const browser = await gw.login('alice');
  const xsrf = browser.xsrf!;
  t.ok(xsrf, 'the browser holds an XSRF-TOKEN cookie');

  const missing = await browser.request('/api/v1/tokens', { method: 'POST', json: { name: 'no-echo' }, xsrf: false });
  await expectProblem(t, missing, 403, 'no X-XSRF-TOKEN');
  const wrong = await browser.request('/api/v1/tokens', {
    method: 'POST',
    json: { name: 'wrong-echo' },
    xsrf: `${xsrf}x`,
  });
  await expectProblem(t, wrong, 403, 'a wrong X-XSRF-TOKEN');
  const emptyEcho = await browser.request('/api/v1/tokens', { method: 'POST', json: { name: 'empty-echo' }, xsrf: '' });
  await expectProblem(t, emptyEcho, 403, 'an empty X-XSRF-TOKEN');
  // The header alone is not enough: it must match the cookie the browser holds.
  const headerOnly = await browser.fetch(`${gw.gateway.url}/api/v1/tokens`, {
    method: 'POST',
    body: JSON.stringify({ name: 'header-only' }),
    headers: {
      'content-type': 'application/json',
      'x-xsrf-token': xsrf,
      cookie: `${sessionCookieName}=${browser.sessionId}`,
    },
  });
  await expectProblem(t, headerOnly, 403, 'X-XSRF-TOKEN without the XSRF-TOKEN cookie');

  const passed = await browser.request('/api/v1/tokens', { method: 'POST', json: { name: 'laptop' } });
  t.equal(passed.status, 201, await passed.clone().text());
  const tokens = (await browser.getJson<Array<{ name: string }>>('/api/v1/tokens')).body;
  t.same(
    tokens.map((token) => token.name),
    ['laptop'],
    'the refused requests created nothing',
  );
});

t.test('spec, Web/API: "Every response sets an XSRF-TOKEN cookie readable by script"', async (t) => {
  const check = (response: Response, what: string) => {
    const [raw] = setCookies(response, xsrfCookieName);
    t.ok(raw, `${what}: sets XSRF-TOKEN`);
    t.notMatch(raw ?? '', /;\s*HttpOnly/i, `${what}: not HttpOnly`);
    t.match(raw ?? '', /^XSRF-TOKEN=[^;]+/, `${what}: a value`);
  };
  check(await fetch(`${gw.gateway.url}/actuator/health`), 'GET /actuator/health');
  check(await fetch(`${gw.gateway.url}/api/v1/me`), 'a 401 from /api/v1/me');
  check(await fetch(`${gw.gateway.url}/oauth2/authorization/idp`, { redirect: 'manual' }), 'the sign-in start');
  const browser = await gw.login('alice');
  check(browser.callback!.response, 'the callback');
  check(await browser.request('/api/v1/me'), 'a 200 from /api/v1/me');
  t.equal(browser.get(gw.baseUrl, xsrfCookieName)?.httpOnly, false);
});

t.test(
  'sessions live in the shared database: signed in through gateway A, the cookie works on gateway B',
  async (t) => {
    // B is a second replica: same database, same provider and base URL, its own port and data dir.
    const b = await startGatewayWithOidc(t, {
      idp: gw.idp,
      databaseUrl: gw.databaseUrl,
      baseUrl: gw.baseUrl,
      claimMappings,
      env: { GATEWAY_ROLES_ADMINS: 'root' },
    });
    t.not(b.gateway.url, gw.gateway.url, 'two processes on two ports');
    const browser = await gw.login('audrey');
    const cookie = browser.cookieHeader(gw.baseUrl)!;
    const me = await b.gateway.fetch('/api/v1/me', { headers: { cookie } });
    t.equal(me.status, 200);
    const body = (await me.json()) as Me;
    t.equal(body.username, 'audrey');
    t.ok(
      body.roles.some((r) => r.role === 'auditor'),
      'roles resolved on B from the session kept in the database',
    );

    // Ending the session on B ends it on A.
    const logout = await b.gateway.fetch('/api/v1/logout', {
      method: 'POST',
      headers: { cookie, 'x-xsrf-token': browser.xsrf! },
    });
    t.equal(logout.status, 204);
    t.equal((await gw.gateway.fetch('/api/v1/me', { headers: { cookie } })).status, 401, 'gone on A as well');
  },
);

t.test(
  'spec, Limits: gateway.dev-insecure-auth "startup is refused if an identity provider is also configured"',
  async (t) => {
    const cwd = mkdtempSync(join(tmpdir(), 'gateway-config-'));
    t.teardown(() => rmSync(cwd, { recursive: true, force: true }));
    const idp = { GATEWAY_OIDC_ISSUER: gw.idp.issuer, GATEWAY_OIDC_CLIENT_ID: 'gateway' };
    t.ok(loadConfig({ env: idp, cwd }), 'an identity provider alone loads');
    t.ok(loadConfig({ env: { GATEWAY_DEV_INSECURE_AUTH: 'true' }, cwd }), 'the hatch alone loads');
    let error: unknown;
    try {
      loadConfig({ env: { ...idp, GATEWAY_DEV_INSECURE_AUTH: 'true' }, cwd });
    } catch (caught) {
      error = caught;
    }
    t.ok(error instanceof ConfigError, 'both: a configuration error');
    t.equal((error as ConfigError | undefined)?.key, 'gateway.dev-insecure-auth');
  },
);

t.test('spec, Versioning: the OpenAPI document at /v3/api-docs is authenticated', async (t) => {
  const anonymous = await fetch(`${gw.gateway.url}/v3/api-docs`, { redirect: 'manual' });
  await expectProblem(t, anonymous, 401, '/v3/api-docs without a session');
  const browser = await gw.login('alice');
  const document = await browser.request('/v3/api-docs');
  t.equal(document.status, 200);
  t.match(await document.json(), { openapi: /^3\./, paths: { '/api/v1/me': {} } });
});
