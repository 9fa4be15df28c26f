import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { apiScopes, scopeFor } from '../../../src/domain/access/api-scopes.ts';
import {
  assertNothingChanged,
  day,
  eventually,
  expectJson,
  expectProblem,
  inMs,
  ledger,
  machine,
  session,
  sleep,
  tokenRow,
  type Client,
  type GrantView,
  type TokenView,
} from '../../support/assert.ts';
import { startTestGateway, type TestGateway } from '../../support/gateway.ts';

const devEnv = { GATEWAY_DEV_INSECURE_AUTH: 'true', GATEWAY_ROLES_ADMINS: 'root,cfg-bot' };
const allowlistRefusal = /not open to machine credentials/;
const csrfRefusal = /XSRF/;

async function provision(
  t: Test,
  root: Client,
  principal: string,
  scopes: readonly string[],
  expiresAt = inMs(30 * day),
): Promise<TokenView & { token: string }> {
  const body = { principal, name: `${principal} credential`, apiScopes: scopes, expiresAt };
  return expectJson<TokenView & { token: string }>(
    t,
    await root.post('/api/v1/tokens/machine', body),
    201,
    `provision ${principal}`,
  );
}

async function grantAdmin(t: Test, root: Client, principal: string): Promise<GrantView> {
  return expectJson<GrantView>(
    t,
    await root.post('/api/v1/roles', { principal, role: 'admin' }),
    201,
    `grant admin to ${principal}`,
  );
}

/** After a first authenticated call, lastUsedAt is written; later calls within the minute write nothing. */
async function warm(gw: TestGateway, client: Client, id: number, path = '/api/v1/roles'): Promise<void> {
  await client.get(path);
  await eventually(async () => (await tokenRow(gw, id))?.last_used_at, 3000);
}

const wellFormedUnknown = () => `gw_${randomBytes(32).toString('base64url')}`;

t.test(
  'spec, Machine API 2: a bearer credential together with a Cookie header is refused with a bare 401',
  async (t) => {
    const gw = await startTestGateway(t, devEnv);
    const root = session(gw, 'root');
    const credential = await provision(t, root, 'cfg-bot', ['roles:read']);
    for (const cookie of ['a=b', 'XSRF-TOKEN=abc', 'GATEWAY_SESSION=whatever']) {
      await assertNothingChanged(
        t,
        gw,
        async () => {
          const answer = await machine(gw, credential.token).get('/api/v1/roles', { cookie });
          t.equal(answer.status, 401, `cookie ${cookie}`);
          t.equal(await answer.text(), '', 'an empty body');
        },
        `bearer plus cookie ${cookie}`,
      );
    }
    t.equal((await tokenRow(gw, credential.id))?.last_used_at, null, 'the refused requests recorded no use');
    t.equal(
      (await machine(gw, credential.token).get('/api/v1/roles')).status,
      200,
      'the same credential without the cookie is accepted',
    );
  },
);

t.test(
  'an unknown, malformed, revoked or expired bearer: 401 with WWW-Authenticate: Bearer, and nothing recorded',
  async (t) => {
    const gw = await startTestGateway(t, devEnv);
    const root = session(gw, 'root');
    const revoked = await provision(t, root, 'cfg-bot', ['roles:read']);
    t.equal((await root.delete(`/api/v1/tokens/machine/${revoked.id}`)).status, 204);
    const expired = await provision(t, root, 'cfg-bot', ['roles:read'], inMs(1000));
    while (Date.now() <= Date.parse(expired.expiresAt!) + 50) await sleep(50);
    const cases: Array<[string, string]> = [
      ['a well-formed unknown secret', wellFormedUnknown()],
      ['a malformed secret', 'not-a-gateway-token'],
      ['a secret with a trailing character', `${revoked.token}x`],
      ['a revoked credential', revoked.token],
      ['an expired credential', expired.token],
    ];
    for (const [label, secret] of cases) {
      await assertNothingChanged(
        t,
        gw,
        async () => {
          const answer = await machine(gw, secret).get('/api/v1/roles');
          t.match(answer.headers.get('www-authenticate') ?? '', /^Bearer/, `${label}: Bearer challenge`);
          await expectProblem(t, answer, 401, 'unauthenticated', label);
        },
        label,
      );
    }
    t.strictSame(await ledger(gw, 'roles-read'), [], 'no read was recorded');
  },
);

t.test(
  'spec, Machine API 4: a personal access token reaches no /api/** endpoint; its lastUsedAt is unchanged',
  async (t) => {
    const gw = await startTestGateway(t, devEnv);
    const root = session(gw, 'root');
    const pat = await expectJson<TokenView & { token: string }>(
      t,
      await root.post('/api/v1/tokens', { name: 'laptop' }),
      201,
    );
    for (const path of ['/api/v1/roles', '/api/v1/me', '/api/v1/tokens']) {
      await assertNothingChanged(
        t,
        gw,
        async () => {
          const answer = await machine(gw, pat.token).get(path);
          t.match(answer.headers.get('www-authenticate') ?? '', /^Bearer/);
          await expectProblem(t, answer, 401, 'unauthenticated', `a PAT on ${path}`);
        },
        `a PAT as bearer on ${path}`,
      );
    }
    const session2 = await expectJson<TokenView & { token: string }>(
      t,
      await root.post('/api/v1/tokens/session', { name: 'browser' }),
      201,
    );
    await assertNothingChanged(
      t,
      gw,
      async () => expectProblem(t, await machine(gw, session2.token).get('/api/v1/roles'), 401, 'unauthenticated'),
      'a session-derived token as bearer',
    );
    t.equal((await tokenRow(gw, pat.id))?.last_used_at, null, 'lastUsedAt rule 4: unchanged');
    await assertNothingChanged(
      t,
      gw,
      async () =>
        expectProblem(
          t,
          await gw.fetch('/api/v1/roles', {
            headers: { authorization: `Basic ${Buffer.from(`x:${pat.token}`).toString('base64')}` },
          }),
          401,
          'unauthenticated',
        ),
      'a PAT over HTTP Basic on the API',
    );
  },
);

t.test(
  'spec, Machine API 1 and 3: no CSRF token on the machine path; it is stateless and creates no session',
  async (t) => {
    const gw = await startTestGateway(t, devEnv);
    const root = session(gw, 'root');
    const credential = await provision(t, root, 'cfg-bot', [...apiScopes]);
    const bot = machine(gw, credential.token);
    await warm(gw, bot, credential.id);

    const noEcho = session(gw, 'root', undefined, { csrf: false });
    const sessionRefusal = await expectProblem(
      t,
      await noEcho.post('/api/v1/no-such-route'),
      403,
      'forbidden',
      'the session path without the echo',
    );
    t.match(sessionRefusal.detail, csrfRefusal, 'the session path refuses for CSRF');
    await assertNothingChanged(
      t,
      gw,
      async () => {
        await expectProblem(
          t,
          await bot.post('/api/v1/no-such-route'),
          404,
          'not-found',
          'the same request on the machine path is not refused for CSRF',
        );
      },
      'a machine POST without an XSRF header',
    );
    await assertNothingChanged(
      t,
      gw,
      async () => {
        const problem = await expectProblem(
          t,
          await bot.post('/api/v1/roles', { principal: 'x', role: 'auditor' }),
          403,
          'forbidden',
        );
        t.match(problem.detail, allowlistRefusal, 'refused by the allowlist, not by CSRF');
      },
      'a machine POST outside the allowlist',
    );

    const answer = await bot.get('/api/v1/roles');
    t.equal(answer.status, 200);
    t.notMatch(answer.headers.get('set-cookie') ?? '', /GATEWAY_SESSION=/, 'no session cookie is set');
  },
);

t.test('spec, Machine API 3: the development escape hatch never opens the machine path', async (t) => {
  const gw = await startTestGateway(t, devEnv);
  const root = session(gw, 'root');
  const pat = await expectJson<TokenView & { token: string }>(
    t,
    await root.post('/api/v1/tokens', { name: 'laptop' }),
    201,
  );
  for (const [label, secret] of [
    ['an invalid bearer', wellFormedUnknown()],
    ['a PAT', pat.token],
  ] as const) {
    await assertNothingChanged(
      t,
      gw,
      async () => {
        const answer = await machine(gw, secret).get('/api/v1/roles', { 'x-dev-user': 'root' });
        t.match(answer.headers.get('www-authenticate') ?? '', /^Bearer/);
        await expectProblem(t, answer, 401, 'unauthenticated', `X-Dev-User root with ${label}`);
      },
      `X-Dev-User with ${label}`,
    );
  }
  const plain = await provision(t, root, 'plain-bot', ['roles:read']);
  const bot = machine(gw, plain.token);
  await warm(gw, bot, plain.id);
  await assertNothingChanged(
    t,
    gw,
    async () => expectProblem(t, await bot.get('/api/v1/roles', { 'x-dev-user': 'root' }), 403, 'forbidden'),
    "a valid bearer with X-Dev-User root acts as the credential's principal, not as root",
  );
});

t.test(
  'spec, Machine API: the allowlist is closed; a credential holding every scope and the admin role is refused 403 elsewhere',
  async (t) => {
    const gw = await startTestGateway(t, devEnv);
    const root = session(gw, 'root');
    const credential = await provision(t, root, 'all-bot', [...apiScopes]);
    t.strictSame([...credential.apiScopes].sort(), [...apiScopes].sort(), 'every API scope');
    const adminGrant = await grantAdmin(t, root, 'all-bot');
    const bot = machine(gw, credential.token);
    await warm(gw, bot, credential.id);

    // Enumerate the routes under /api/v1 from the OpenAPI document.
    const doc = await expectJson<{ paths: Record<string, Record<string, unknown>> }>(
      t,
      await root.get('/v3/api-docs'),
      200,
      'the OpenAPI document',
    );
    const routes = Object.entries(doc.paths)
      .filter(([path]) => path.startsWith('/api/v1/'))
      .flatMap(([path, methods]) =>
        Object.keys(methods)
          .filter((m) => ['get', 'post', 'put', 'patch', 'delete'].includes(m))
          .map((m) => `${m.toUpperCase()} ${path}`),
      );
    const known = [
      'GET /api/v1/tokens',
      'POST /api/v1/tokens',
      'DELETE /api/v1/tokens/{id}',
      'POST /api/v1/tokens/{id}/rotate',
      'POST /api/v1/tokens/session',
      'POST /api/v1/tokens/machine',
      'GET /api/v1/tokens/machine',
      'POST /api/v1/tokens/machine/{id}/rotate',
      'DELETE /api/v1/tokens/machine/{id}',
      'GET /api/v1/roles',
      'POST /api/v1/roles',
      'DELETE /api/v1/roles/{id}',
      'GET /api/v1/me',
      'POST /api/v1/logout',
    ];
    for (const route of known) t.ok(routes.includes(route), `the document lists ${route}`);

    // Valid requests, so that only the allowlist can refuse them; ids name real objects, so a leak would show.
    const requests: Record<string, { path?: string; body?: unknown }> = {
      'POST /api/v1/tokens': { body: { name: 'leak' } },
      'POST /api/v1/tokens/session': { body: { name: 'leak' } },
      'POST /api/v1/tokens/machine': {
        body: { principal: 'leak-bot', name: 'leak', apiScopes: ['roles:read'], expiresAt: inMs(day) },
      },
      'DELETE /api/v1/tokens/{id}': { path: `/api/v1/tokens/${credential.id}` },
      'POST /api/v1/tokens/{id}/rotate': { path: `/api/v1/tokens/${credential.id}/rotate` },
      'POST /api/v1/tokens/machine/{id}/rotate': { path: `/api/v1/tokens/machine/${credential.id}/rotate` },
      'DELETE /api/v1/tokens/machine/{id}': { path: `/api/v1/tokens/machine/${credential.id}` },
      'POST /api/v1/roles': { body: { principal: 'leak', role: 'admin' } },
      'DELETE /api/v1/roles/{id}': { path: `/api/v1/roles/${adminGrant.id}` },
      'DELETE /api/v1/marketplaces/{name}': { path: '/api/v1/marketplaces/acme', body: { reason: 'leak' } },
    };
    const refused = routes.filter((route) => {
      const [method = '', path = ''] = route.split(' ');
      return scopeFor(method, path) === null;
    });
    t.ok(refused.length >= 13, `${refused.length} routes outside the allowlist`);
    for (const route of refused) {
      const [method = '', template = ''] = route.split(' ');
      const request = requests[route] ?? {};
      const path = request.path ?? template.replace('{id}', '1').replace('{name}', 'acme');
      await assertNothingChanged(
        t,
        gw,
        async () => {
          const problem = await expectProblem(
            t,
            await bot.request(method, path, request.body),
            403,
            'forbidden',
            route,
          );
          t.match(problem.detail, allowlistRefusal, `${route}: refused by the allowlist`);
        },
        route,
      );
    }
    t.equal((await bot.get('/api/v1/roles')).status, 200, 'GET /api/v1/roles, in the allowlist, answers');
  },
);

t.test('a machine request outside the allowlist is refused 403 whatever its body or parameters', async (t) => {
  const gw = await startTestGateway(t, devEnv);
  const root = session(gw, 'root');
  const credential = await provision(t, root, 'cfg-bot', [...apiScopes]);
  const bot = machine(gw, credential.token);
  await warm(gw, bot, credential.id);
  for (const [label, method, path, body] of [
    ['POST /roles with an empty body', 'POST', '/api/v1/roles', {}],
    [
      'POST /tokens/machine with an unknown property',
      'POST',
      '/api/v1/tokens/machine',
      { principal: 'x', name: 'x', apiScopes: ['roles:read'], extra: 1 },
    ],
    ['DELETE /tokens/{id} with a non-integer id', 'DELETE', '/api/v1/tokens/abc', undefined],
  ] as const) {
    await assertNothingChanged(
      t,
      gw,
      async () => {
        const answer = await bot.request(method, path, body);
        t.equal(answer.status, 403, `${label}: ${await answer.text()}`);
      },
      label,
    );
  }
});

t.test(
  'effective authority = allowlist ∩ scopes ∩ roles; a machine gets roles from the admin list or a grant, never from claims',
  async (t) => {
    const dir = t.testdir({
      'gateway.yaml': [
        'gateway:',
        '  roles:',
        '    claim-mappings:',
        '      - { claim: groups, value: claim-bot, role: admin }',
        '      - { claim: sub, value: claim-bot, role: admin }',
        '',
      ].join('\n'),
    });
    const env = { ...devEnv, GATEWAY_CONFIG: join(dir, 'gateway.yaml') };

    t.test('roles:read with the admin role (granted): 200', async (t) => {
      const gw = await startTestGateway(t, env);
      const root = session(gw, 'root');
      await grantAdmin(t, root, 'granted-bot');
      const credential = await provision(t, root, 'granted-bot', ['roles:read']);
      t.equal((await machine(gw, credential.token).get('/api/v1/roles')).status, 200);
    });

    t.test('roles:read without the admin role: 403, nothing recorded', async (t) => {
      const gw = await startTestGateway(t, env);
      const root = session(gw, 'root');
      await expectJson(t, await root.post('/api/v1/roles', { principal: 'plain-bot', role: 'auditor' }), 201);
      const credential = await provision(t, root, 'plain-bot', ['roles:read']);
      const bot = machine(gw, credential.token);
      await warm(gw, bot, credential.id);
      await assertNothingChanged(
        t,
        gw,
        async () => {
          const problem = await expectProblem(t, await bot.get('/api/v1/roles'), 403, 'forbidden');
          t.match(problem.detail, /admin/, 'refused for the role');
        },
        'roles:read but no admin role',
      );
      t.strictSame(await ledger(gw, 'roles-read'), []);
    });

    t.test('the admin role without roles:read: 403, nothing recorded', async (t) => {
      const gw = await startTestGateway(t, env);
      const root = session(gw, 'root');
      await grantAdmin(t, root, 'granted-bot');
      const credential = await provision(
        t,
        root,
        'granted-bot',
        apiScopes.filter((scope) => scope !== 'roles:read'),
      );
      const bot = machine(gw, credential.token);
      await warm(gw, bot, credential.id);
      await assertNothingChanged(
        t,
        gw,
        async () => {
          const problem = await expectProblem(t, await bot.get('/api/v1/roles'), 403, 'forbidden');
          t.match(problem.detail, /roles:read/, 'refused for the scope');
        },
        'admin but no roles:read',
      );
      t.strictSame(await ledger(gw, 'roles-read'), []);
    });

    t.test('the admin role from GATEWAY_ROLES_ADMINS works for a machine principal', async (t) => {
      const gw = await startTestGateway(t, env);
      const root = session(gw, 'root');
      const credential = await provision(t, root, 'cfg-bot', ['roles:read']);
      t.equal((await machine(gw, credential.token).get('/api/v1/roles')).status, 200);
      t.strictSame(await expectJson(t, await root.get('/api/v1/roles'), 200), [], 'without any grant');
    });

    t.test('a claim-mapped admin does not: machines never get claim roles', async (t) => {
      const gw = await startTestGateway(t, env);
      const root = session(gw, 'root');
      t.equal(
        (await session(gw, 'someone', ['claim-bot']).get('/api/v1/roles')).status,
        200,
        'the mapping makes a person admin',
      );
      const credential = await provision(t, root, 'claim-bot', ['roles:read']);
      const bot = machine(gw, credential.token);
      await warm(gw, bot, credential.id);
      await assertNothingChanged(
        t,
        gw,
        async () => expectProblem(t, await bot.get('/api/v1/roles'), 403, 'forbidden'),
        'a machine named like the mapped value',
      );
      await assertNothingChanged(
        t,
        gw,
        async () =>
          expectProblem(
            t,
            await bot.get('/api/v1/roles', { 'x-dev-groups': 'claim-bot', 'x-dev-user': 'claim-bot' }),
            403,
            'forbidden',
          ),
        "with the development hatch's group header as well",
      );
    });
  },
);

t.test(
  "spec, Ledger entry: a machine API action carries actorType machine, the credential's principal and tokenId; a session's carries human and null",
  async (t) => {
    const gw = await startTestGateway(t, devEnv);
    const root = session(gw, 'root');
    const credential = await provision(t, root, 'cfg-bot', ['roles:read', 'audit:read']);
    t.equal((await machine(gw, credential.token).get('/api/v1/roles')).status, 200);
    t.equal((await root.get('/api/v1/roles')).status, 200);
    t.match(await ledger(gw, 'roles-read'), [
      {
        principal: 'cfg-bot',
        actor_type: 'machine',
        token_id: String(credential.id),
        source: 'admin',
        detail: 'grants=0',
      },
      { principal: 'root', actor_type: 'human', token_id: null, source: 'admin', detail: 'grants=0' },
    ]);
    t.equal((await ledger(gw, 'roles-read')).length, 2);
    t.match(
      await ledger(gw, 'machine-credential-created'),
      [{ principal: 'root', actor_type: 'human', token_id: null }],
      "provisioning is the administrator's act",
    );
  },
);
