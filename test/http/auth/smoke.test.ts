import t from 'tap';
import { startTestGateway } from '../../support/gateway.ts';

t.test('smoke: dev hatch, CSRF, personal and machine tokens, roles', async (t) => {
  const gw = await startTestGateway(t, { GATEWAY_DEV_INSECURE_AUTH: 'true', GATEWAY_ROLES_ADMINS: 'root' });
  const first = await gw.fetch('/api/v1/me', { headers: { 'x-dev-user': 'root' } });
  t.equal(first.status, 200);
  const xsrf = /XSRF-TOKEN=([^;]+)/.exec(first.headers.get('set-cookie') ?? '')?.[1];
  t.ok(xsrf);
  t.match(await first.json(), {
    username: 'root',
    roles: [{ role: 'admin', source: 'config', marketplace: null }],
    claimsTruncated: false,
    version: '0.1.0',
  });
  const post = (path: string, body: unknown, csrf = true) =>
    gw.fetch(path, {
      method: 'POST',
      body: JSON.stringify(body),
      headers: {
        'x-dev-user': 'root',
        'content-type': 'application/json',
        ...(csrf ? { cookie: `XSRF-TOKEN=${xsrf}`, 'x-xsrf-token': xsrf! } : {}),
      },
    });
  t.equal((await post('/api/v1/tokens', { name: 'a' }, false)).status, 403, 'no CSRF echo');
  const created = await post('/api/v1/tokens', { name: 'laptop' });
  t.equal(created.status, 201);
  const token = (await created.json()) as { token: string; id: number };
  t.match(token.token, /^gw_[A-Za-z0-9_-]{43}$/);
  const machine = await post('/api/v1/tokens/machine', {
    principal: 'ci-bot',
    name: 'ci',
    apiScopes: ['roles:read'],
    expiresAt: new Date(Date.now() + 86_400_000).toISOString(),
  });
  t.equal(machine.status, 201, await machine.clone().text());
  const secret = ((await machine.json()) as { token: string }).token;
  const asMachine = await gw.fetch('/api/v1/roles', { headers: { authorization: `Bearer ${secret}` } });
  t.equal(asMachine.status, 403, 'ci-bot has the scope but no admin role');
  const granted = await post('/api/v1/roles', { principal: 'ci-bot', role: 'admin' });
  t.equal(granted.status, 201, await granted.clone().text());
  const again = await gw.fetch('/api/v1/roles', { headers: { authorization: `Bearer ${secret}` } });
  t.equal(again.status, 200, await again.clone().text());
  t.equal(
    (await gw.fetch('/api/v1/me', { headers: { authorization: `Bearer ${secret}` } })).status,
    403,
    'not in the allowlist',
  );
  t.equal(
    (await gw.fetch('/api/v1/roles', { headers: { authorization: `Bearer ${token.token}` } })).status,
    401,
    'a PAT is not a machine credential',
  );
  t.equal(
    (await gw.fetch('/api/v1/roles', { headers: { authorization: `Bearer ${secret}`, cookie: 'a=b' } })).status,
    401,
  );
});
