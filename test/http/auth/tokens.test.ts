import t, { type Test } from 'tap';
import {
  assertNothingChanged,
  type Client,
  day,
  eventually,
  expectJson,
  expectProblem,
  hour,
  inMs,
  ledger,
  machine,
  registerMarketplace,
  removeMarketplace,
  session,
  sleep,
  tokenRow,
  type GrantView,
  type TokenView,
} from '../../support/assert.ts';
import { startTestGateway, type TestGateway } from '../../support/gateway.ts';

const secretPattern = /^gw_[A-Za-z0-9_-]{43}$/;
const devEnv = { GATEWAY_DEV_INSECURE_AUTH: 'true', GATEWAY_ROLES_ADMINS: 'root,root2' };

async function gateway(t: Test, env: Record<string, string> = {}) {
  const gw = await startTestGateway(t, { ...devEnv, ...env });
  return { gw, root: session(gw, 'root'), alice: session(gw, 'alice'), bob: session(gw, 'bob') };
}

async function createToken(
  t: Test,
  client: Client,
  body: Record<string, unknown>,
  path = '/api/v1/tokens',
): Promise<TokenView> {
  return expectJson<TokenView>(t, await client.post(path, body), 201, `POST ${path}`);
}

const provision = (t: Test, root: Client, overrides: Record<string, unknown> = {}) =>
  createToken(
    t,
    root,
    { principal: 'ci-bot', name: 'ci', apiScopes: ['roles:read'], expiresAt: inMs(30 * day), ...overrides },
    '/api/v1/tokens/machine',
  );

/** Waits until `at` has passed on the wall clock (the gateway's clock). */
const until = async (at: string) => {
  while (Date.now() <= Date.parse(at) + 50) await sleep(50);
};

/** Every key and value a listing may carry: never a secret, never a digest. */
async function expectNoSecrets(
  t: Test,
  gw: TestGateway,
  listing: TokenView[],
  text: string,
  secrets: Array<{ id: number; token?: string }>,
) {
  t.ok(
    listing.every((entry) => !('token' in entry) && !('digest' in entry)),
    'no entry has a token or digest field',
  );
  for (const { id, token } of secrets) {
    if (token) t.notOk(text.includes(token), `the secret of token ${id} is not in the listing`);
    const row = await tokenRow(gw, id);
    t.ok(row, `token ${id} is stored`);
    t.notOk(text.includes(row!.digest), `the digest of token ${id} is not in the listing`);
  }
}

t.test(
  'POST /api/v1/tokens: 201 with `token` once ("appears only in the response that creates or rotates it, never again")',
  async (t) => {
    const { gw, alice } = await gateway(t);
    const created = await createToken(t, alice, { name: 'laptop' });
    t.match(created, {
      id: Number,
      name: 'laptop',
      createdAt: String,
      revokedAt: null,
      scopes: [],
      pushScopes: [],
      apiScopes: [],
      expiresAt: null,
      rotatedFrom: null,
      sessionDerived: false,
      lastUsedAt: null,
    });
    t.match(created.token, secretPattern, 'spec: `gw_` followed by 32 random bytes, Base64url without padding');
    t.notOk(
      'principal' in created || 'machineOwner' in created,
      'principal and machineOwner belong to machine credentials only',
    );

    const response = await alice.get('/api/v1/tokens');
    const text = await response.clone().text();
    const listing = await expectJson<TokenView[]>(t, response, 200, 'GET /tokens');
    t.strictSame(
      listing.map((entry) => entry.id),
      [created.id],
    );
    t.match(listing[0], { name: 'laptop', revokedAt: null, lastUsedAt: null, sessionDerived: false });
    await expectNoSecrets(t, gw, listing, text, [created]);

    const [entry, ...more] = await ledger(gw, 'token-created');
    t.strictSame(more, []);
    t.match(entry, { principal: 'alice', actor_type: 'human', source: 'admin', token_id: null, marketplace: '-' });
    t.notOk((entry?.detail ?? '').includes(created.token!), 'the ledger never carries the secret');
  },
);

t.test("GET /api/v1/tokens: the caller's tokens, newest first, never others'", async (t) => {
  const { gw, alice, bob } = await gateway(t);
  const a1 = await createToken(t, alice, { name: 'a1' });
  const b1 = await createToken(t, bob, { name: 'b1' });
  const a2 = await createToken(t, alice, { name: 'a2' });
  const aliceText = await (await alice.get('/api/v1/tokens')).text();
  const aliceList = JSON.parse(aliceText) as TokenView[];
  t.strictSame(
    aliceList.map((entry) => entry.id),
    [a2.id, a1.id],
  );
  const bobList = await expectJson<TokenView[]>(t, await bob.get('/api/v1/tokens'), 200);
  t.strictSame(
    bobList.map((entry) => entry.id),
    [b1.id],
  );
  await expectNoSecrets(t, gw, aliceList, aliceText, [a1, a2, b1]);
  t.strictSame(
    await expectJson(t, await session(gw, 'carol').get('/api/v1/tokens'), 200),
    [],
    'someone with no tokens sees none',
  );
  await expectProblem(t, await gw.fetch('/api/v1/tokens'), 401, 'unauthenticated', 'without a session');
});

t.test(
  'DELETE /api/v1/tokens/{id}: 204; another user\'s token is a 404 "indistinguishable from nonexistent"',
  async (t) => {
    const { gw, alice, bob, root } = await gateway(t);
    const token = await createToken(t, alice, { name: 'laptop' });

    const [foreign, missing] = await assertNothingChanged(
      t,
      gw,
      async () => [
        await expectProblem(
          t,
          await bob.delete(`/api/v1/tokens/${token.id}`),
          404,
          'token-not-found',
          "another user's token",
        ),
        await expectProblem(t, await bob.delete('/api/v1/tokens/999999'), 404, 'token-not-found', 'a nonexistent id'),
      ],
      'DELETE of a token not owned',
    );
    const { instance: _a, ...foreignRest } = foreign!;
    const { instance: _b, ...missingRest } = missing!;
    t.strictSame(foreignRest, missingRest, 'the same problem apart from the instance');

    const deleted = await alice.delete(`/api/v1/tokens/${token.id}`);
    t.equal(deleted.status, 204);
    t.equal(await deleted.text(), '', 'no body');
    const [listed] = await expectJson<TokenView[]>(t, await alice.get('/api/v1/tokens'), 200);
    t.ok(listed?.revokedAt, 'revokedAt is set');
    t.match(await ledger(gw, 'token-revoked'), [
      { principal: 'alice', actor_type: 'human', detail: new RegExp(`token ${token.id}`) },
    ]);

    await assertNothingChanged(
      t,
      gw,
      async () => {
        t.equal((await alice.delete(`/api/v1/tokens/${token.id}`)).status, 204, 'deleting it again');
      },
      'deleting a revoked token again',
    );

    const credential = await provision(t, root);
    await assertNothingChanged(
      t,
      gw,
      async () => expectProblem(t, await root.delete(`/api/v1/tokens/${credential.id}`), 404, 'token-not-found'),
      'a machine credential through /tokens/{id}, even by its provisioner',
    );
    await assertNothingChanged(
      t,
      gw,
      async () => expectProblem(t, await root.post(`/api/v1/tokens/${credential.id}/rotate`), 404, 'token-not-found'),
      'rotating a machine credential through /tokens/{id}/rotate',
    );
    await expectProblem(t, await alice.delete('/api/v1/tokens/abc'), 422, undefined, 'a non-integer id');
  },
);

t.test(
  'POST /api/v1/tokens/{id}/rotate: 200, identical name, scopes, pushScopes and expiry, rotatedFrom set, old one revoked first',
  async (t) => {
    const { gw, alice, bob } = await gateway(t);
    await registerMarketplace(gw, 1, 'acme', 'upstream');
    await registerMarketplace(gw, 2, 'studio', 'hosted');
    const expiresAt = inMs(10 * day);
    const old = await createToken(t, alice, {
      name: 'ci',
      scopes: ['acme', 'studio'],
      pushScopes: ['studio'],
      expiresAt,
    });
    t.equal(old.expiresAt, expiresAt);

    await assertNothingChanged(
      t,
      gw,
      async () => expectProblem(t, await bob.post(`/api/v1/tokens/${old.id}/rotate`), 404, 'token-not-found'),
      "bob rotating alice's token",
    );
    await assertNothingChanged(
      t,
      gw,
      async () => expectProblem(t, await alice.post('/api/v1/tokens/999999/rotate'), 404, 'token-not-found'),
      'rotating a nonexistent token',
    );

    const headBefore = await gw.core.store.head();
    const rotated = await expectJson<TokenView>(t, await alice.post(`/api/v1/tokens/${old.id}/rotate`), 200, 'rotate');
    t.match(rotated, {
      name: 'ci',
      scopes: ['acme', 'studio'],
      pushScopes: ['studio'],
      expiresAt,
      rotatedFrom: old.id,
      sessionDerived: false,
      revokedAt: null,
      apiScopes: [],
    });
    t.not(rotated.id, old.id, 'a new token');
    t.match(rotated.token, secretPattern);
    t.not(rotated.token, old.token, 'a new secret');

    const listing = await expectJson<TokenView[]>(t, await alice.get('/api/v1/tokens'), 200);
    t.ok(listing.find((entry) => entry.id === old.id)?.revokedAt, 'the old token is revoked');
    t.equal(listing.find((entry) => entry.id === rotated.id)?.revokedAt, null, 'the new one is live');
    t.notOk(
      listing.some((entry) => 'token' in entry),
      'neither secret is listed',
    );

    const events = (await gw.core.store.readAll(headBefore, 100)).filter((e) => e.type.startsWith('token-'));
    t.strictSame(
      events.map((e) => [e.type, (e.data as { tokenId: number }).tokenId]),
      [
        ['token-revoked', old.id],
        ['token-issued', rotated.id],
      ],
      'spec: old one revoked before new one issued',
    );
    t.match(await ledger(gw, 'token-rotated'), [
      { principal: 'alice', actor_type: 'human', detail: new RegExp(`rotatedFrom=${old.id}`) },
    ]);
    t.strictSame(await ledger(gw, 'token-revoked'), [], "the rotation's revocation writes no token-revoked entry");
  },
);

t.test('rotation of a revoked token answers 409, of an expired one 409 ("rotation of a dead token")', async (t) => {
  const { gw, alice } = await gateway(t);
  const revoked = await createToken(t, alice, { name: 'gone' });
  t.equal((await alice.delete(`/api/v1/tokens/${revoked.id}`)).status, 204);
  await assertNothingChanged(
    t,
    gw,
    async () => expectProblem(t, await alice.post(`/api/v1/tokens/${revoked.id}/rotate`), 409, 'token-not-active'),
    'rotating a revoked token',
  );

  const expiring = await createToken(t, alice, { name: 'brief', expiresAt: inMs(1200) });
  t.equal(
    (await expectJson<TokenView>(t, await alice.post(`/api/v1/tokens/${expiring.id}/rotate`), 200, 'still live'))
      .rotatedFrom,
    expiring.id,
  );
  const shortLived = await createToken(t, alice, { name: 'brief2', expiresAt: inMs(1000) });
  await until(shortLived.expiresAt!);
  await assertNothingChanged(
    t,
    gw,
    async () => expectProblem(t, await alice.post(`/api/v1/tokens/${shortLived.id}/rotate`), 409, 'token-not-active'),
    'rotating an expired token',
  );
});

t.test(
  'POST /api/v1/tokens/session: sessionDerived true, lifetime now + 8h, a sent expiresAt ignored, no pushScopes',
  async (t) => {
    const { gw, alice } = await gateway(t);
    await registerMarketplace(gw, 1, 'acme', 'upstream');
    await registerMarketplace(gw, 2, 'studio', 'hosted');
    const before = Date.now();
    const token = await createToken(
      t,
      alice,
      { name: 'browser', scopes: ['acme'], expiresAt: inMs(30 * day), pushScopes: ['studio'] },
      '/api/v1/tokens/session',
    );
    const after = Date.now();
    t.match(token, {
      name: 'browser',
      sessionDerived: true,
      scopes: ['acme'],
      pushScopes: [],
      apiScopes: [],
      rotatedFrom: null,
    });
    t.match(token.token, secretPattern);
    t.equal(
      Date.parse(token.expiresAt!) - Date.parse(token.createdAt),
      8 * hour,
      'Limits: session-ttl, default 8 hours',
    );
    t.ok(Date.parse(token.createdAt) >= before - 1000 && Date.parse(token.createdAt) <= after + 1000, 'created now');

    const rotated = await expectJson<TokenView>(t, await alice.post(`/api/v1/tokens/${token.id}/rotate`), 200);
    t.match(
      rotated,
      { sessionDerived: true, expiresAt: token.expiresAt, scopes: ['acme'], pushScopes: [] },
      'rule 5: rotation keeps expiry deadline and session-derived mark',
    );

    await assertNothingChanged(
      t,
      gw,
      async () =>
        expectProblem(
          t,
          await alice.post('/api/v1/tokens/session', { name: 'x', scopes: ['ghost'] }),
          422,
          'unknown-scope',
        ),
      'a session token with an unknown scope',
    );
    await assertNothingChanged(
      t,
      gw,
      async () =>
        expectProblem(
          t,
          await gw.fetch('/api/v1/tokens/session', {
            method: 'POST',
            body: JSON.stringify({ name: 'x' }),
            headers: { 'content-type': 'application/json' },
          }),
          401,
          'unauthenticated',
        ),
      'without a session',
    );
  },
);

t.test('POST /api/v1/tokens/session under GATEWAY_TOKENS_SESSION_TTL=2h', async (t) => {
  const { alice } = await gateway(t, { GATEWAY_TOKENS_SESSION_TTL: '2h' });
  const token = await createToken(t, alice, { name: 'browser', expiresAt: null }, '/api/v1/tokens/session');
  t.equal(Date.parse(token.expiresAt!) - Date.parse(token.createdAt), 2 * hour);
});

t.test('rule 1: scopes are validated against registered marketplaces; the catalog name is valid', async (t) => {
  const { gw, alice } = await gateway(t);
  await assertNothingChanged(
    t,
    gw,
    async () =>
      expectProblem(t, await alice.post('/api/v1/tokens', { name: 'x', scopes: ['acme'] }), 422, 'unknown-scope'),
    'a name not yet registered',
  );
  await registerMarketplace(gw, 1, 'acme', 'upstream');
  t.match(
    await createToken(t, alice, { name: 'a', scopes: ['acme'] }),
    { scopes: ['acme'] },
    'once registered, the name passes',
  );
  t.match(
    await createToken(t, alice, { name: 'c', scopes: ['catalog', 'acme'] }),
    { scopes: ['catalog', 'acme'] },
    'the catalog name passes',
  );
  await assertNothingChanged(
    t,
    gw,
    async () =>
      expectProblem(
        t,
        await alice.post('/api/v1/tokens', { name: 'x', scopes: ['acme', 'acme-typo'] }),
        422,
        'unknown-scope',
      ),
    'one unknown entry among known ones',
  );
  await registerMarketplace(gw, 2, 'old', 'upstream');
  await removeMarketplace(gw, 2, 'old');
  await assertNothingChanged(
    t,
    gw,
    async () =>
      expectProblem(t, await alice.post('/api/v1/tokens', { name: 'x', scopes: ['old'] }), 422, 'unknown-scope'),
    'a removed marketplace',
  );
});

t.test('rule 2: pushScopes must name a registered hosted marketplace', async (t) => {
  const { gw, alice } = await gateway(t);
  await registerMarketplace(gw, 1, 'acme', 'upstream');
  await registerMarketplace(gw, 2, 'studio', 'hosted');
  for (const pushScopes of [['acme'], ['ghost'], ['catalog'], ['studio', 'acme']]) {
    await assertNothingChanged(
      t,
      gw,
      async () => expectProblem(t, await alice.post('/api/v1/tokens', { name: 'x', pushScopes }), 422, 'unknown-scope'),
      `pushScopes ${JSON.stringify(pushScopes)}`,
    );
  }
  t.match(await createToken(t, alice, { name: 'publisher', pushScopes: ['studio'] }), {
    pushScopes: ['studio'],
    scopes: [],
  });
});

t.test(
  'rule 4 under GATEWAY_TOKENS_MAX_TTL=30d: beyond or no expiry is refused, within is kept exactly ("never shortened")',
  async (t) => {
    const { gw, alice } = await gateway(t, { GATEWAY_TOKENS_MAX_TTL: '30d' });
    await assertNothingChanged(
      t,
      gw,
      async () =>
        expectProblem(
          t,
          await alice.post('/api/v1/tokens', { name: 'x', expiresAt: inMs(31 * day) }),
          422,
          'lifetime-beyond-cap',
        ),
      'beyond the cap',
    );
    await assertNothingChanged(
      t,
      gw,
      async () => expectProblem(t, await alice.post('/api/v1/tokens', { name: 'x' }), 422, 'lifetime-beyond-cap'),
      'no expiry',
    );
    await assertNothingChanged(
      t,
      gw,
      async () =>
        expectProblem(
          t,
          await alice.post('/api/v1/tokens', { name: 'x', expiresAt: null }),
          422,
          'lifetime-beyond-cap',
        ),
      'a null expiry',
    );
    const expiresAt = inMs(29 * day);
    t.equal(
      (await createToken(t, alice, { name: 'within', expiresAt })).expiresAt,
      expiresAt,
      'the answer carries the requested deadline',
    );
  },
);

t.test('personal tokens: without max-ttl there is no cap; an expiry in the past is refused', async (t) => {
  const { gw, alice } = await gateway(t);
  t.equal((await createToken(t, alice, { name: 'forever' })).expiresAt, null);
  const far = inMs(3650 * day);
  t.equal((await createToken(t, alice, { name: 'decade', expiresAt: far })).expiresAt, far);
  await assertNothingChanged(
    t,
    gw,
    async () =>
      expectProblem(
        t,
        await alice.post('/api/v1/tokens', { name: 'x', expiresAt: inMs(-60_000) }),
        422,
        'invalid-expiry',
      ),
    'a past expiry',
  );
});

t.test(
  'machine credentials: provisioning needs the admin role (403 for everyone else, on every machine route)',
  async (t) => {
    const { gw, root, alice } = await gateway(t);
    const credential = await provision(t, root);
    const body = { principal: 'x-bot', name: 'x', apiScopes: ['roles:read'], expiresAt: inMs(day) };
    await assertNothingChanged(
      t,
      gw,
      async () => expectProblem(t, await alice.post('/api/v1/tokens/machine', body), 403, 'forbidden'),
      'POST by a non-admin',
    );
    await assertNothingChanged(
      t,
      gw,
      async () => expectProblem(t, await alice.get('/api/v1/tokens/machine'), 403, 'forbidden'),
      'GET by a non-admin',
    );
    await assertNothingChanged(
      t,
      gw,
      async () =>
        expectProblem(t, await alice.post(`/api/v1/tokens/machine/${credential.id}/rotate`), 403, 'forbidden'),
      'rotate by a non-admin',
    );
    await assertNothingChanged(
      t,
      gw,
      async () => expectProblem(t, await alice.delete(`/api/v1/tokens/machine/${credential.id}`), 403, 'forbidden'),
      'DELETE by a non-admin',
    );
    const auditor = await expectJson<GrantView>(
      t,
      await root.post('/api/v1/roles', { principal: 'alice', role: 'auditor' }),
      201,
    );
    t.ok(auditor.id);
    await assertNothingChanged(
      t,
      gw,
      async () => expectProblem(t, await alice.post('/api/v1/tokens/machine', body), 403, 'forbidden'),
      'POST by an auditor',
    );
    t.equal((await root.post('/api/v1/roles', { principal: 'alice', role: 'admin' })).status, 201);
    t.match(
      await createToken(t, alice, body, '/api/v1/tokens/machine'),
      { principal: 'x-bot', machineOwner: 'alice' },
      'a granted admin provisions',
    );
  },
);

t.test(
  'POST /api/v1/tokens/machine: 201 with the cleartext once; GET /tokens/machine lists every credential, never a secret',
  async (t) => {
    const { gw, root } = await gateway(t);
    const expiresAt = inMs(30 * day);
    const first = await provision(t, root, { apiScopes: ['roles:read', 'audit:read'], expiresAt });
    t.match(first, {
      principal: 'ci-bot',
      machineOwner: 'root',
      name: 'ci',
      apiScopes: ['roles:read', 'audit:read'],
      scopes: [],
      pushScopes: [],
      expiresAt,
      sessionDerived: false,
      rotatedFrom: null,
      revokedAt: null,
      lastUsedAt: null,
    });
    t.match(first.token, secretPattern);
    const second = await provision(t, session(gw, 'root2'), {
      principal: 'deploy-bot',
      name: 'deploy',
      apiScopes: ['adoption:read'],
      expiresAt,
    });
    const response = await root.get('/api/v1/tokens/machine');
    const text = await response.clone().text();
    const listing = await expectJson<TokenView[]>(t, response, 200);
    t.strictSame(
      listing.map((entry) => [entry.id, entry.principal, entry.machineOwner]).sort(),
      [
        [first.id, 'ci-bot', 'root'],
        [second.id, 'deploy-bot', 'root2'],
      ].sort(),
      'every machine credential, whoever provisioned it',
    );
    t.ok(
      listing.every((entry) => 'lastUsedAt' in entry),
      'rows carry lastUsedAt',
    );
    await expectNoSecrets(t, gw, listing, text, [first, second]);

    const alicePat = await createToken(t, session(gw, 'alice'), { name: 'laptop' });
    t.notOk(
      listing.some((entry) => entry.id === alicePat.id),
      'personal tokens are not machine credentials',
    );

    t.match(
      await ledger(gw, 'machine-credential-created'),
      [
        { principal: 'root', actor_type: 'human', token_id: null, source: 'admin', detail: /principal=ci-bot/ },
        { principal: 'root2', actor_type: 'human', detail: /principal=deploy-bot/ },
      ],
      'spec, Events: the actor is the administrator',
    );
  },
);

t.test('rule 6: machine provisioning refuses with 422', async (t) => {
  const { gw, root } = await gateway(t);
  const cases: Array<[string, Record<string, unknown>, string]> = [
    ['an unknown scope', { apiScopes: ['roles:write'] }, 'unknown-scope'],
    ['a misspelled scope', { apiScopes: ['role:read'] }, 'unknown-scope'],
    ['a misspelled scope among good ones', { apiScopes: ['roles:read', 'adit:read'] }, 'unknown-scope'],
    ['*', { apiScopes: ['*'] }, 'unknown-scope'],
    ['all', { apiScopes: ['all'] }, 'unknown-scope'],
    ['an empty apiScopes', { apiScopes: [] }, 'unknown-scope'],
    ['a missing expiresAt', { expiresAt: undefined }, 'missing-expiry'],
    ['a null expiresAt', { expiresAt: null }, 'missing-expiry'],
    ['an expiresAt beyond 90 days', { expiresAt: inMs(91 * day) }, 'lifetime-beyond-cap'],
    ['an expiresAt in the past', { expiresAt: inMs(-60_000) }, 'invalid-expiry'],
  ];
  for (const [label, overrides, code] of cases) {
    const body = { principal: 'ci-bot', name: 'ci', apiScopes: ['roles:read'], expiresAt: inMs(day), ...overrides };
    await assertNothingChanged(
      t,
      gw,
      async () => expectProblem(t, await root.post('/api/v1/tokens/machine', body), 422, code, label),
      label,
    );
  }
  const blank = await root.post('/api/v1/tokens/machine', {
    principal: '   ',
    name: 'ci',
    apiScopes: ['roles:read'],
    expiresAt: inMs(day),
  });
  t.equal(
    blank.status,
    422,
    `a blank principal ("what the ledger attributes its actions to and what a role grant names"): ${await blank.text()}`,
  );
  const missingApiScopes = { principal: 'ci-bot', name: 'ci', expiresAt: inMs(day) };
  await assertNothingChanged(
    t,
    gw,
    async () =>
      expectProblem(
        t,
        await root.post('/api/v1/tokens/machine', missingApiScopes),
        422,
        undefined,
        'no apiScopes field',
      ),
    'no apiScopes field',
  );
  t.match(
    await provision(t, root, { expiresAt: inMs(89 * day) }),
    { principal: 'ci-bot' },
    '89 days is within the default cap',
  );
});

t.test('rule 6 under GATEWAY_TOKENS_MAX_TTL=30d: max-ttl is the machine cap', async (t) => {
  const { gw, root } = await gateway(t, { GATEWAY_TOKENS_MAX_TTL: '30d' });
  await assertNothingChanged(
    t,
    gw,
    async () =>
      expectProblem(
        t,
        await root.post('/api/v1/tokens/machine', {
          principal: 'ci-bot',
          name: 'ci',
          apiScopes: ['roles:read'],
          expiresAt: inMs(31 * day),
        }),
        422,
        'lifetime-beyond-cap',
      ),
    'beyond max-ttl (though within 90 days)',
  );
  const expiresAt = inMs(29 * day);
  t.equal((await provision(t, root, { expiresAt })).expiresAt, expiresAt);
});

t.test(
  'machine rotate keeps principal, name, expiry and every API scope; machine DELETE takes effect on the next request',
  async (t) => {
    const { gw, root } = await gateway(t);
    const expiresAt = inMs(20 * day);
    const old = await provision(t, root, { apiScopes: ['roles:read', 'audit:read'], expiresAt });
    t.equal((await root.post('/api/v1/roles', { principal: 'ci-bot', role: 'admin' })).status, 201);
    t.equal((await machine(gw, old.token!).get('/api/v1/roles')).status, 200, 'the credential works');

    await assertNothingChanged(
      t,
      gw,
      async () => expectProblem(t, await root.post('/api/v1/tokens/machine/999999/rotate'), 404, 'token-not-found'),
      'rotating an unknown credential',
    );
    const pat = await createToken(t, session(gw, 'alice'), { name: 'laptop' });
    await assertNothingChanged(
      t,
      gw,
      async () => expectProblem(t, await root.post(`/api/v1/tokens/machine/${pat.id}/rotate`), 404, 'token-not-found'),
      'rotating a PAT through the machine route',
    );
    await assertNothingChanged(
      t,
      gw,
      async () => expectProblem(t, await root.delete(`/api/v1/tokens/machine/${pat.id}`), 404, 'token-not-found'),
      'deleting a PAT through the machine route',
    );

    const rotated = await expectJson<TokenView>(
      t,
      await session(gw, 'root2').post(`/api/v1/tokens/machine/${old.id}/rotate`),
      200,
      'rotate by another admin',
    );
    t.match(rotated, {
      principal: 'ci-bot',
      name: 'ci',
      expiresAt,
      apiScopes: ['roles:read', 'audit:read'],
      rotatedFrom: old.id,
      revokedAt: null,
    });
    t.match(rotated.token, secretPattern);
    const oldAnswer = await machine(gw, old.token!).get('/api/v1/roles');
    t.equal(oldAnswer.status, 401, 'the old secret no longer authenticates');
    t.equal(
      (await machine(gw, rotated.token!).get('/api/v1/roles')).status,
      200,
      "the new one does, with the same principal's roles",
    );
    await assertNothingChanged(
      t,
      gw,
      async () => expectProblem(t, await root.post(`/api/v1/tokens/machine/${old.id}/rotate`), 409, 'token-not-active'),
      'rotating the revoked one again',
    );

    const deleted = await root.delete(`/api/v1/tokens/machine/${rotated.id}`);
    t.equal(deleted.status, 204);
    const next = await machine(gw, rotated.token!).get('/api/v1/roles');
    t.equal(next.status, 401, 'revoked: effective on the next request');
    t.match(next.headers.get('www-authenticate') ?? '', /^Bearer/);

    t.match(
      await ledger(gw),
      [
        { event: 'machine-credential-created', principal: 'root', actor_type: 'human', token_id: null },
        { event: 'role-granted' },
        { event: 'roles-read', principal: 'ci-bot', actor_type: 'machine', token_id: String(old.id) },
        { event: 'token-created', principal: 'alice' },
        {
          event: 'machine-credential-rotated',
          principal: 'root2',
          actor_type: 'human',
          token_id: null,
          detail: /principal=ci-bot/,
        },
        { event: 'roles-read', principal: 'ci-bot', actor_type: 'machine', token_id: String(rotated.id) },
        {
          event: 'machine-credential-revoked',
          principal: 'root',
          actor_type: 'human',
          token_id: null,
          detail: /principal=ci-bot/,
        },
      ],
      'the ledger, in order',
    );
    t.equal((await ledger(gw)).length, 7, 'and nothing else');
  },
);

t.test('lastUsedAt: set after a successful machine API call, unchanged after a refused one', async (t) => {
  const { gw, root, alice } = await gateway(t);
  t.equal((await root.post('/api/v1/roles', { principal: 'ci-bot', role: 'admin' })).status, 201);
  const credential = await provision(t, root);
  const before = Date.now();
  t.equal((await machine(gw, credential.token!).get('/api/v1/roles')).status, 200);
  const lastUsedAt = await eventually(
    async () => {
      const listing = await expectJson<TokenView[]>(t, await root.get('/api/v1/tokens/machine'), 200);
      return listing.find((entry) => entry.id === credential.id)?.lastUsedAt;
    },
    3000,
    100,
  );
  t.ok(
    Date.parse(lastUsedAt) >= before - 1000 && Date.parse(lastUsedAt) <= Date.now() + 1000,
    'the time of the successful authentication',
  );

  const revoked = await provision(t, root, { name: 'revoked' });
  t.equal((await root.delete(`/api/v1/tokens/machine/${revoked.id}`)).status, 204);
  await assertNothingChanged(
    t,
    gw,
    async () => {
      t.equal((await machine(gw, revoked.token!).get('/api/v1/roles')).status, 401);
    },
    'a revoked credential',
  );
  t.equal((await tokenRow(gw, revoked.id))?.last_used_at, null, 'the revoked credential reads null');

  const expiring = await provision(t, root, { name: 'expiring', expiresAt: inMs(1000) });
  await until(expiring.expiresAt!);
  await assertNothingChanged(
    t,
    gw,
    async () => {
      t.equal((await machine(gw, expiring.token!).get('/api/v1/roles')).status, 401);
    },
    'an expired credential',
  );
  t.equal((await tokenRow(gw, expiring.id))?.last_used_at, null, 'the expired credential reads null');

  const pat = await createToken(t, alice, { name: 'laptop' });
  await assertNothingChanged(
    t,
    gw,
    async () => {
      t.equal((await machine(gw, pat.token!).get('/api/v1/roles')).status, 401);
    },
    'a PAT presented as bearer',
  );
  const [listed] = await expectJson<TokenView[]>(t, await alice.get('/api/v1/tokens'), 200);
  t.equal(listed?.lastUsedAt, null, "the PAT's lastUsedAt is unchanged");
});
