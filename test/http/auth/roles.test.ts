import { join } from 'node:path';
import t from 'tap';
import { z } from 'zod';
import { sql } from '../../../src/adapters/postgres/pool.ts';
import {
  assertNothingChanged,
  expectJson,
  expectProblem,
  ledger,
  registerMarketplace,
  removeMarketplace,
  session,
  type GrantView,
} from '../../support/assert.ts';
import { startTestGateway, type TestGateway } from '../../support/gateway.ts';

const devEnv = { GATEWAY_DEV_INSECURE_AUTH: 'true', GATEWAY_ROLES_ADMINS: 'root' };
type Me = {
  username: string;
  roles: Array<{ role: string; marketplace: string | null; source: string }>;
  claimsTruncated: boolean;
};

const grantRows = (gw: TestGateway) =>
  gw.core.pool.oneFirst(sql.type(z.object({ n: z.number() }))`select count(*)::int as n from role_grants`);

t.test(
  'GET /api/v1/roles: a configuration admin reads 200 and has no grant row ("not grants and do not appear in the list")',
  async (t) => {
    const gw = await startTestGateway(t, devEnv);
    const root = session(gw, 'root');
    t.strictSame(await expectJson(t, await root.get('/api/v1/roles'), 200), []);
    t.equal(await grantRows(gw), 0, 'role_grants is empty');
    t.match(await expectJson<Me>(t, await root.get('/api/v1/me'), 200), {
      username: 'root',
      roles: [{ role: 'admin', marketplace: null, source: 'config' }],
    });
  },
);

t.test('POST /api/v1/roles: 201, the grant is listed, and a role-granted entry is written', async (t) => {
  const gw = await startTestGateway(t, devEnv);
  const root = session(gw, 'root');
  await registerMarketplace(gw, 7, 'acme', 'upstream');
  const auditor = await expectJson<GrantView>(
    t,
    await root.post('/api/v1/roles', { principal: 'bob', role: 'auditor' }),
    201,
    'auditor',
  );
  t.match(auditor, {
    id: Number,
    principal: 'bob',
    role: 'auditor',
    marketplace: null,
    grantedBy: 'root',
    grantedAt: String,
  });
  const approver = await expectJson<GrantView>(
    t,
    await root.post('/api/v1/roles', { principal: 'carol', role: 'approver', marketplace: 'acme' }),
    201,
    'approver',
  );
  t.match(approver, { principal: 'carol', role: 'approver', marketplace: 'acme', grantedBy: 'root' });
  const admin = await expectJson<GrantView>(
    t,
    await root.post('/api/v1/roles', { principal: 'dave', role: 'admin', marketplace: null }),
    201,
    'admin, marketplace null',
  );
  t.match(admin, { role: 'admin', marketplace: null });

  t.strictSame(
    await expectJson(t, await root.get('/api/v1/roles'), 200),
    [auditor, approver, admin],
    'the list shows the grants as answered',
  );
  t.match(await ledger(gw, 'role-granted'), [
    {
      principal: 'root',
      actor_type: 'human',
      source: 'admin',
      marketplace: '-',
      marketplace_id: null,
      token_id: null,
      detail: /bob/,
    },
    { principal: 'root', marketplace: 'acme', marketplace_id: '7', detail: /carol/ },
    { principal: 'root', marketplace: '-', detail: /dave/ },
  ]);
  t.match(
    await expectJson<Me>(t, await session(gw, 'carol').get('/api/v1/me'), 200),
    { roles: [{ role: 'approver', marketplace: 'acme', source: 'grant' }] },
    'the grantee has the role',
  );
  t.equal((await session(gw, 'dave').get('/api/v1/roles')).status, 200, 'a granted admin reads the roles');
});

t.test('DELETE /api/v1/roles/{id}: 204, role-revoked written; an unknown or already revoked id is a 404', async (t) => {
  const gw = await startTestGateway(t, devEnv);
  const root = session(gw, 'root');
  const grant = await expectJson<GrantView>(
    t,
    await root.post('/api/v1/roles', { principal: 'bob', role: 'admin' }),
    201,
  );
  const bob = session(gw, 'bob');
  t.equal((await bob.get('/api/v1/roles')).status, 200, 'bob is admin while granted');
  const deleted = await root.delete(`/api/v1/roles/${grant.id}`);
  t.equal(deleted.status, 204);
  t.equal(await deleted.text(), '');
  t.strictSame(await expectJson(t, await root.get('/api/v1/roles'), 200), []);
  t.match(await ledger(gw, 'role-revoked'), [
    { principal: 'root', actor_type: 'human', marketplace: '-', detail: /bob/ },
  ]);
  await assertNothingChanged(
    t,
    gw,
    async () => expectProblem(t, await bob.get('/api/v1/roles'), 403, 'forbidden'),
    'bob after the revocation',
  );
  await assertNothingChanged(
    t,
    gw,
    async () => expectProblem(t, await root.delete(`/api/v1/roles/${grant.id}`), 404, 'grant-not-found'),
    'deleting it again',
  );
  await assertNothingChanged(
    t,
    gw,
    async () => expectProblem(t, await root.delete('/api/v1/roles/424242'), 404, 'grant-not-found'),
    'an unknown id',
  );
});

t.test('spec, Roles: 403 for a non-admin on GET, POST and DELETE; a refused read records nothing', async (t) => {
  const gw = await startTestGateway(t, devEnv);
  const root = session(gw, 'root');
  const grant = await expectJson<GrantView>(
    t,
    await root.post('/api/v1/roles', { principal: 'audrey', role: 'auditor' }),
    201,
  );
  for (const who of ['alice', 'audrey']) {
    const client = session(gw, who);
    await assertNothingChanged(
      t,
      gw,
      async () => expectProblem(t, await client.get('/api/v1/roles'), 403, 'forbidden'),
      `GET by ${who}`,
    );
    await assertNothingChanged(
      t,
      gw,
      async () =>
        expectProblem(t, await client.post('/api/v1/roles', { principal: who, role: 'admin' }), 403, 'forbidden'),
      `POST by ${who}`,
    );
    await assertNothingChanged(
      t,
      gw,
      async () => expectProblem(t, await client.delete(`/api/v1/roles/${grant.id}`), 403, 'forbidden'),
      `DELETE by ${who}`,
    );
  }
  const noEcho = session(gw, 'root', undefined, { csrf: false });
  await assertNothingChanged(
    t,
    gw,
    async () =>
      expectProblem(t, await noEcho.post('/api/v1/roles', { principal: 'x', role: 'admin' }), 403, 'forbidden'),
    'POST without the CSRF echo',
  );
  await assertNothingChanged(
    t,
    gw,
    async () => expectProblem(t, await gw.fetch('/api/v1/roles'), 401, 'unauthenticated'),
    'GET without a session',
  );
  t.strictSame(await ledger(gw, 'roles-read'), []);
});

t.test('spec, Roles: 404 for an approver grant naming a nonexistent marketplace', async (t) => {
  const gw = await startTestGateway(t, devEnv);
  const root = session(gw, 'root');
  await assertNothingChanged(
    t,
    gw,
    async () =>
      expectProblem(
        t,
        await root.post('/api/v1/roles', { principal: 'bob', role: 'approver', marketplace: 'ghost' }),
        404,
        'marketplace-not-found',
      ),
    'never registered',
  );
  await registerMarketplace(gw, 3, 'old', 'upstream');
  await removeMarketplace(gw, 3, 'old');
  await assertNothingChanged(
    t,
    gw,
    async () =>
      expectProblem(
        t,
        await root.post('/api/v1/roles', { principal: 'bob', role: 'approver', marketplace: 'old' }),
        404,
        'marketplace-not-found',
      ),
    'removed',
  );
});

t.test('spec, Roles: 409 when an identical grant exists', async (t) => {
  const gw = await startTestGateway(t, devEnv);
  const root = session(gw, 'root');
  await registerMarketplace(gw, 1, 'acme', 'upstream');
  await registerMarketplace(gw, 2, 'tools', 'hosted');
  t.equal((await root.post('/api/v1/roles', { principal: 'bob', role: 'approver', marketplace: 'acme' })).status, 201);
  t.equal((await root.post('/api/v1/roles', { principal: 'bob', role: 'auditor' })).status, 201);
  await assertNothingChanged(
    t,
    gw,
    async () =>
      expectProblem(
        t,
        await root.post('/api/v1/roles', { principal: 'bob', role: 'approver', marketplace: 'acme' }),
        409,
        'grant-exists',
      ),
    'the same approver grant',
  );
  await assertNothingChanged(
    t,
    gw,
    async () =>
      expectProblem(t, await root.post('/api/v1/roles', { principal: 'bob', role: 'auditor' }), 409, 'grant-exists'),
    'the same global grant',
  );
  t.equal(
    (await root.post('/api/v1/roles', { principal: 'bob', role: 'approver', marketplace: 'tools' })).status,
    201,
    'another marketplace is not identical',
  );
  t.equal(
    (await root.post('/api/v1/roles', { principal: 'carol', role: 'auditor' })).status,
    201,
    'another principal is not identical',
  );
  t.equal((await expectJson<GrantView[]>(t, await root.get('/api/v1/roles'), 200)).length, 4);
});

t.test(
  'spec, Roles: 422 for a missing or blank principal, an unknown role, an approver without marketplace, a global role with one',
  async (t) => {
    const gw = await startTestGateway(t, devEnv);
    const root = session(gw, 'root');
    await registerMarketplace(gw, 1, 'acme', 'upstream');
    const cases: Array<[string, Record<string, unknown>]> = [
      ['missing principal', { role: 'admin' }],
      ['empty principal', { principal: '', role: 'admin' }],
      ['blank principal', { principal: '   ', role: 'auditor' }],
      ['unknown role', { principal: 'bob', role: 'superuser' }],
      ['role in another case', { principal: 'bob', role: 'Admin' }],
      ['missing role', { principal: 'bob' }],
      ['approver without marketplace', { principal: 'bob', role: 'approver' }],
      ['approver with a null marketplace', { principal: 'bob', role: 'approver', marketplace: null }],
      ['admin with a marketplace', { principal: 'bob', role: 'admin', marketplace: 'acme' }],
      ['auditor with a marketplace', { principal: 'bob', role: 'auditor', marketplace: 'acme' }],
    ];
    for (const [label, body] of cases) {
      await assertNothingChanged(
        t,
        gw,
        async () => expectProblem(t, await root.post('/api/v1/roles', body), 422, undefined, label),
        label,
      );
    }
    t.equal(await grantRows(gw), 0, 'no grant was made');
  },
);

t.test(
  'spec, Events: every authorized read of GET /roles is recorded as roles-read with detail grants={n}',
  async (t) => {
    const gw = await startTestGateway(t, devEnv);
    const root = session(gw, 'root');
    t.equal((await root.get('/api/v1/roles')).status, 200);
    t.equal((await root.post('/api/v1/roles', { principal: 'bob', role: 'auditor' })).status, 201);
    t.equal((await root.post('/api/v1/roles', { principal: 'carol', role: 'admin' })).status, 201);
    t.equal((await root.get('/api/v1/roles')).status, 200);
    t.equal((await session(gw, 'carol').get('/api/v1/roles')).status, 200, 'a granted admin reads too');
    await assertNothingChanged(
      t,
      gw,
      async () => expectProblem(t, await session(gw, 'bob').get('/api/v1/roles'), 403, 'forbidden'),
      'a refused read',
    );
    const reads = await ledger(gw, 'roles-read');
    t.strictSame(
      reads.map((entry) => [entry.principal, entry.detail, entry.actor_type, entry.token_id, entry.marketplace]),
      [
        ['root', 'grants=0', 'human', null, '-'],
        ['root', 'grants=2', 'human', null, '-'],
        ['carol', 'grants=2', 'human', null, '-'],
      ],
      'three authorized reads, three entries, each with the count it saw',
    );
  },
);

t.test('GET /api/v1/me: a role is reported once, under its most durable source', async (t) => {
  const dir = t.testdir({
    'gateway.yaml': [
      'gateway:',
      '  roles:',
      '    claim-mappings:',
      '      - { claim: groups, value: acme-approvers, role: approver, marketplace: acme }',
      '      - { claim: groups, value: platform-admins, role: admin }',
      '      - { claim: groups, value: auditors, role: auditor }',
      '',
    ].join('\n'),
  });
  const env = { ...devEnv, GATEWAY_CONFIG: join(dir, 'gateway.yaml') };

  t.test('a configuration admin also granted admin: source config', async (t) => {
    const gw = await startTestGateway(t, env);
    const root = session(gw, 'root', ['platform-admins']);
    t.equal((await root.post('/api/v1/roles', { principal: 'root', role: 'admin' })).status, 201);
    const me = await expectJson<Me>(t, await root.get('/api/v1/me'), 200);
    t.strictSame(me.roles, [{ role: 'admin', marketplace: null, source: 'config' }]);
    t.match(
      await expectJson<GrantView[]>(t, await root.get('/api/v1/roles'), 200),
      [{ principal: 'root', role: 'admin' }],
      'the grant itself is listed',
    );
  });

  t.test('a granted approver who also holds the claim for the same marketplace: source grant', async (t) => {
    const gw = await startTestGateway(t, env);
    await registerMarketplace(gw, 1, 'acme', 'upstream');
    const root = session(gw, 'root');
    t.equal(
      (await root.post('/api/v1/roles', { principal: 'bob', role: 'approver', marketplace: 'acme' })).status,
      201,
    );
    const bob = await expectJson<Me>(
      t,
      await session(gw, 'bob', ['acme-approvers', 'auditors']).get('/api/v1/me'),
      200,
    );
    t.strictSame(bob.roles, [
      { role: 'approver', marketplace: 'acme', source: 'grant' },
      { role: 'auditor', marketplace: null, source: 'claim' },
    ]);
    const carol = await expectJson<Me>(t, await session(gw, 'carol', ['acme-approvers']).get('/api/v1/me'), 200);
    t.strictSame(
      carol.roles,
      [{ role: 'approver', marketplace: 'acme', source: 'claim' }],
      'the claim alone: source claim',
    );
    const dave = await expectJson<Me>(t, await session(gw, 'dave', ['other']).get('/api/v1/me'), 200);
    t.strictSame(dave.roles, [], 'an unmapped group gives nothing');
  });

  t.test('a claim-mapped admin acts as admin, and is not a grant', async (t) => {
    const gw = await startTestGateway(t, env);
    const erin = session(gw, 'erin', ['x', 'platform-admins']);
    t.strictSame((await expectJson<Me>(t, await erin.get('/api/v1/me'), 200)).roles, [
      { role: 'admin', marketplace: null, source: 'claim' },
    ]);
    t.strictSame(
      await expectJson(t, await erin.get('/api/v1/roles'), 200),
      [],
      'claim roles do not appear in the list',
    );
    t.equal((await erin.post('/api/v1/roles', { principal: 'frank', role: 'auditor' })).status, 201, 'and may grant');
    t.match(await ledger(gw, 'role-granted'), [{ principal: 'erin', actor_type: 'human' }]);
    await assertNothingChanged(
      t,
      gw,
      async () => expectProblem(t, await session(gw, 'erin').get('/api/v1/roles'), 403, 'forbidden'),
      'erin without the group',
    );
  });
});
