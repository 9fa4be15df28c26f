// The edges of the browser sign-in an attacker probes: where it may send the browser back to (decision 350),
// whose browser may finish it (decision 351), how many sign-ins one address may begin and how many are kept
// (decision 352), and the cookies and headers behind an https base URL (decision 353). Against a real
// oidc-provider (test/support/oidc.ts), over HTTP.
import t from 'tap';
import { fetchFrom } from '../../support/local-address.ts';
import {
  authorize,
  callbackPath,
  CookieJar,
  GatewayBrowser,
  loginStartPath,
  reachCallback,
  sessionCookieName,
  startGatewayWithOidc,
  xsrfCookieName,
} from '../../support/oidc.ts';

const signInCookieName = 'GATEWAY_SIGN_IN';

const setCookie = (response: Response, name: string) =>
  response.headers.getSetCookie().find((raw) => raw.startsWith(`${name}=`));

const gw = await startGatewayWithOidc(t);

t.test('returnTo is normalised before it is checked: no shape of "//host" leaves the gateway', async (t) => {
  for (const returnTo of [
    '/.//evil.example/phish',
    '/..//evil.example/phish',
    '/a/..//evil.example',
    '/a/b/../..//evil.example',
    '/%2e//evil.example',
    '/%2e%2e//evil.example',
    '/%2E%2E//evil.example',
    '/a/%2e%2e//evil.example',
    '/./\\evil.example',
    '/.%2f/evil.example',
  ]) {
    const browser = await gw.login('alice', { returnTo });
    const location = browser.callback?.response.headers.get('location') ?? '';
    t.equal(browser.callback?.response.status, 302, `${returnTo}: 302`);
    t.equal(
      new URL(location, gw.baseUrl).origin,
      new URL(gw.baseUrl).origin,
      `${returnTo}: stays on the gateway (Location ${location})`,
    );
    t.notOk(location.startsWith('//'), `${returnTo}: no protocol-relative Location`);
  }
  const query = '/oauth2/authorization/idp?returnTo=%2F.%2F%2Fevil.example%2Fphish';
  const browser = new GatewayBrowser(gw.baseUrl);
  const url = await authorize(browser, `${gw.baseUrl}${query}`, 'alice', `${gw.baseUrl}${callbackPath}`);
  t.equal((await browser.fetch(url)).headers.get('location'), '/', 'the probed URL falls back to /');

  const kept = await gw.login('alice', { returnTo: '/a/../ui/marketplaces?tab=held' });
  t.equal(kept.callback?.response.headers.get('location'), '/ui/marketplaces?tab=held', 'a local path, normalised');
});

t.test(
  'the sign-in is bound to the browser that began it: a callback URL replayed elsewhere signs nobody in',
  async (t) => {
    const attacker = new GatewayBrowser(gw.baseUrl);
    const url = await reachCallback(attacker, 'alice');
    const binding = attacker.get(`${gw.baseUrl}${callbackPath}`, signInCookieName);
    t.ok(binding?.httpOnly, 'the start set an HttpOnly sign-in cookie');
    t.match(binding?.raw, /;\s*SameSite=Lax/i, 'SameSite=Lax: sent on the navigation back from the provider');
    t.match(binding?.raw, new RegExp(`;\\s*Path=${callbackPath}(;|$)`, 'i'), 'read by the callback only');
    t.match(binding?.raw, /;\s*Max-Age=600(;|$)/i, 'as long as the login request lives');

    const victim = new GatewayBrowser(gw.baseUrl);
    const replayed = await victim.fetch(url);
    t.equal(replayed.status, 403, 'a fresh browser: refused');
    t.equal(setCookie(replayed, sessionCookieName), undefined, 'no session cookie');
    t.equal((await victim.request('/api/v1/me')).status, 401, 'the victim is not signed in');

    // A victim with a sign-in of its own under way holds a nonce too, just not this one.
    const busy = new GatewayBrowser(gw.baseUrl);
    await reachCallback(busy, 'audrey');
    const crossed = await busy.fetch(url);
    t.equal(crossed.status, 403, 'a browser with another sign-in under way: refused');
    t.equal(setCookie(crossed, sessionCookieName), undefined);
    t.notOk(busy.get(`${gw.baseUrl}${callbackPath}`, signInCookieName), 'its nonce is spent by the callback');

    const own = await attacker.fetch(url);
    t.equal(own.status, 302, 'the browser that began it still finishes it');
    t.ok(setCookie(own, sessionCookieName), 'and is signed in');
    t.notOk(attacker.get(`${gw.baseUrl}${callbackPath}`, signInCookieName), 'the sign-in cookie is cleared');
  },
);

t.test(
  'beginning sign-ins: a budget per address (429 with Retry-After), and the oldest dropped past the cap',
  async (t) => {
    const limited = await startGatewayWithOidc(t, {
      env: { GATEWAY_RATE_LIMIT_SIGN_IN_PER_ADDRESS: '5', GATEWAY_RATE_LIMIT_SIGN_IN_MAX_PENDING: '3' },
    });
    const start = (send: typeof fetch = fetch) =>
      send(`${limited.baseUrl}${loginStartPath}`, { redirect: 'manual' }).then(async (response) => {
        await response.body?.cancel();
        return response;
      });

    const first = new GatewayBrowser(limited.baseUrl);
    const firstUrl = await reachCallback(first, 'alice'); // start 1
    t.equal((await start()).status, 302, 'start 2');
    t.equal((await start()).status, 302, 'start 3');
    const last = new GatewayBrowser(limited.baseUrl);
    const lastUrl = await reachCallback(last, 'alice'); // start 4: four waiting, three kept
    const dropped = await first.fetch(firstUrl);
    t.equal(dropped.status, 403, 'the oldest sign-in was dropped when a fourth was begun');
    t.equal(setCookie(dropped, sessionCookieName), undefined);
    const kept = await last.fetch(lastUrl);
    t.equal(kept.status, 302, 'the newest is kept');
    t.ok(setCookie(kept, sessionCookieName));

    t.equal((await start()).status, 302, 'start 5: the last of the budget');
    const refused = await start();
    t.equal(refused.status, 429, 'start 6 from the same address: refused');
    t.ok(Number(refused.headers.get('retry-after')) >= 1, `Retry-After ${refused.headers.get('retry-after')}`);
    const problem = await fetch(`${limited.baseUrl}${loginStartPath}`, { redirect: 'manual' });
    t.match(problem.headers.get('content-type'), /^application\/problem\+json/);
    t.match(await problem.json(), { status: 429, type: /\/problems\/rate-limited$/, detail: /sign-in start/ });

    t.equal((await start(fetchFrom('127.0.0.2'))).status, 302, 'another address has a budget of its own');
  },
);

t.test('behind an https base URL: Secure cookies and Strict-Transport-Security', async (t) => {
  const baseUrl = 'https://gateway.example.test';
  const secure = await startGatewayWithOidc(t, { baseUrl });
  const health = await secure.gateway.fetch('/actuator/health');
  t.equal(health.headers.get('strict-transport-security'), 'max-age=31536000', 'HSTS: a year, this host');
  t.match(setCookie(health, xsrfCookieName), /;\s*Secure/i, 'XSRF-TOKEN is Secure');
  const plain = await gw.gateway.fetch('/actuator/health');
  t.equal(plain.headers.get('strict-transport-security'), null, 'an http base URL: no HSTS');
  t.notMatch(setCookie(plain, xsrfCookieName), /;\s*Secure/i, 'nor Secure cookies');

  // The TLS terminator is not here: the browser talks to the gateway's own http port, and is sent back
  // by the provider to the https base URL, which is the same gateway.
  const jar = new CookieJar();
  const started = await jar.fetch(`${secure.gateway.url}${loginStartPath}`);
  t.match(setCookie(started, signInCookieName), /;\s*Secure/i, 'the sign-in cookie is Secure');
  const provider = started.headers.get('location')!;
  const back = new URL(await authorize(jar, provider, 'alice', `${baseUrl}${callbackPath}`));
  const callback = await jar.fetch(`${secure.gateway.url}${back.pathname}${back.search}`);
  t.equal(callback.status, 302, await callback.clone().text());
  const session = setCookie(callback, sessionCookieName);
  t.match(session, /;\s*Secure/i, 'GATEWAY_SESSION is Secure');
  t.match(session, /;\s*HttpOnly/i);
  t.equal(callback.headers.get('strict-transport-security'), 'max-age=31536000');
});
