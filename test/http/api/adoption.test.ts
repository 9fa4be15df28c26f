// Adoption (docs/audit-time-travel.md: GET /api/v1/adoption?days=, GET /api/v1/adoption/staleness): the numbers match a
// hand count over a scripted set of clones by three identities; counts only upload-pack entries, the catalog under its
// own name, days clamped to 1..365.
import t, { type Test } from 'tap';
import type { RecordedEvent } from '../../../src/adapters/eventstore/port.ts';
import { trustedSql } from '../../../src/adapters/postgres/pool.ts';
import { adoptionProjection } from '../../../src/projections/adoption/adoption.projection.ts';
import {
  marketplaceIdentities,
  snapshotAdoption,
  staleFetches,
} from '../../../src/projections/adoption/adoption.queries.ts';
import {
  assertNothingChanged,
  day,
  eventually,
  expectJson,
  expectProblem,
  inMs,
  machine,
  session,
  settle,
  type Client,
} from '../../support/assert.ts';
import { metadata, testCore } from '../../support/core.ts';
import { startTestGateway, type TestGateway } from '../../support/gateway.ts';
import { gitClient, marketplaceFiles, serveUpstream } from '../../support/upstream.ts';

const env = { GATEWAY_DEV_INSECURE_AUTH: 'true', GATEWAY_ROLES_ADMINS: 'root' };

type SnapshotEntry = { sha: string; fetches: number; identities: number; lastFetch: string; current: boolean };
type Entry = {
  marketplace: string;
  servedSha: string | null;
  fetches: number;
  identities: number;
  lastFetch: string;
  snapshots: SnapshotEntry[];
};
type Stale = { principal: string; marketplace: string; sha: string; lastFetch: string; servedSha: string | null };

async function ingestAndApprove(t: Test, root: Client, name: string): Promise<string> {
  const snapshot = await expectJson<{ id: number; sha: string }>(
    t,
    await root.post(`/api/v1/marketplaces/${name}/ingest`),
    201,
    `ingest ${name}`,
  );
  await expectJson(t, await root.post(`/api/v1/snapshots/${snapshot.id}/approve`), 200, `approve ${name}`);
  return snapshot.sha;
}

async function catalogSha(t: Test, root: Client, not?: string): Promise<string> {
  return eventually(async () => {
    const response = await root.get('/api/v1/catalog');
    if (response.status !== 200) return undefined;
    const { sha } = (await response.json()) as { sha: string };
    return sha === not ? undefined : sha;
  });
}

/** The latest upload-pack ledger entry of a principal and marketplace (optionally of one commit). */
async function lastOnLedger(gw: TestGateway, principal: string, marketplace: string, sha?: string): Promise<string> {
  await settle(gw);
  const ts = await gw.core.pool.oneFirst(
    trustedSql(
      `select max(ts)::text from ledger_entries where event = 'upload-pack' and principal = '${principal}'
       and marketplace = '${marketplace}'${sha === undefined ? '' : ` and sha = '${sha}'`}`,
    ),
  );
  return new Date(ts as string).toISOString();
}

const latest = (...instants: string[]) => instants.reduce((a, b) => (a > b ? a : b));

t.test('adoption over scripted clones by three identities', async (t) => {
  const gw = await startTestGateway(t, env);
  const root = session(gw, 'root');
  const acmeUpstream = await serveUpstream(t, marketplaceFiles('acme', ['alpha']), 'acme');
  const betaUpstream = await serveUpstream(t, marketplaceFiles('beta', ['bravo']), 'beta');
  await expectJson(t, await root.post('/api/v1/marketplaces', { name: 'acme', url: acmeUpstream.url }), 201);
  await expectJson(t, await root.post('/api/v1/marketplaces', { name: 'beta', url: betaUpstream.url }), 201);
  const a1 = await ingestAndApprove(t, root, 'acme');
  const b1 = await ingestAndApprove(t, root, 'beta');
  // The catalog's build follows an approval: c1 is the revision with both.
  await gw.settled();
  const c1 = await catalogSha(t, root);

  const clients = Object.fromEntries(
    await Promise.all(
      ['alice', 'bob', 'carol'].map(async (who) => {
        const { token } = await expectJson<{ token: string }>(
          t,
          await session(gw, who).post('/api/v1/tokens', { name: `${who} laptop` }),
          201,
        );
        return [who, gitClient(t, token)] as const;
      }),
    ),
  );
  const { alice, bob, carol } = clients as Record<'alice' | 'bob' | 'carol', ReturnType<typeof gitClient>>;
  const clone = async (client: ReturnType<typeof gitClient>, repo: string) =>
    t.ok((await client.clone(`${gw.url}/git/${repo}`)).ok, `clone ${repo}`);

  // The script. acme at a1: alice twice, bob once; beta: carol once; the catalog at c1: alice once.
  await clone(alice, 'acme');
  await clone(alice, 'acme');
  await clone(bob, 'acme');
  await clone(carol, 'beta');
  await clone(alice, 'catalog');
  // A ref advertisement alone transfers no content: carol's ls-remote of acme is not adoption.
  t.ok((await carol.run(['ls-remote', `${gw.url}/git/acme`])).ok, 'ls-remote acme');
  // The served tip moves: acme a2 (and the catalog follows, c2); bob clones acme again.
  await acmeUpstream.commit({ 'plugins/alpha/README.md': 'two\n' });
  const a2 = await ingestAndApprove(t, root, 'acme');
  await gw.settled();
  const c2 = await catalogSha(t, root, c1);
  await clone(bob, 'acme');
  await settle(gw);

  const aliceAcme = await lastOnLedger(gw, 'alice', 'acme');
  const bobA1 = await lastOnLedger(gw, 'bob', 'acme', a1);
  const bobA2 = await lastOnLedger(gw, 'bob', 'acme', a2);
  const carolBeta = await lastOnLedger(gw, 'carol', 'beta');
  const aliceCatalog = await lastOnLedger(gw, 'alice', 'catalog');
  const expected: Entry[] = [
    {
      marketplace: 'acme',
      servedSha: a2,
      fetches: 4,
      identities: 2,
      lastFetch: bobA2,
      snapshots: [
        { sha: a2, fetches: 1, identities: 1, lastFetch: bobA2, current: true },
        { sha: a1, fetches: 3, identities: 2, lastFetch: latest(aliceAcme, bobA1), current: false },
      ],
    },
    {
      marketplace: 'beta',
      servedSha: b1,
      fetches: 1,
      identities: 1,
      lastFetch: carolBeta,
      snapshots: [{ sha: b1, fetches: 1, identities: 1, lastFetch: carolBeta, current: true }],
    },
    {
      marketplace: 'catalog',
      servedSha: c2,
      fetches: 1,
      identities: 1,
      lastFetch: aliceCatalog,
      snapshots: [{ sha: c1, fetches: 1, identities: 1, lastFetch: aliceCatalog, current: false }],
    },
  ];
  const report = async (query = '') =>
    expectJson<Entry[]>(t, await root.get(`/api/v1/adoption${query}`), 200, `GET /api/v1/adoption${query}`);

  t.test('the report matches the hand count', async (t) => {
    t.strictSame(await report(), expected, 'ordered by marketplace name; default window 30 days');
    const uploads = Number(
      await gw.core.pool.oneFirst(trustedSql(`select count(*) from ledger_entries where event = 'upload-pack'`)),
    );
    t.equal(uploads, 6, 'one upload-pack entry per clone: the fetch totals are the ledger entries');
    t.ok(
      Number(await gw.core.pool.oneFirst(trustedSql(`select count(*) from ledger_entries where event = 'info-refs'`))) >
        6,
      'the ls-remote is on the ledger as info-refs, and is not counted',
    );
  });

  t.test('staleness: exactly the identities whose latest fetch was not the served tip', async (t) => {
    t.strictSame(await expectJson<Stale[]>(t, await root.get('/api/v1/adoption/staleness'), 200), [
      { principal: 'alice', marketplace: 'acme', sha: a1, lastFetch: aliceAcme, servedSha: a2 },
      { principal: 'alice', marketplace: 'catalog', sha: c1, lastFetch: aliceCatalog, servedSha: c2 },
    ]);
  });

  t.test('roles and scopes: auditor or admin; machines need adoption:read', async (t) => {
    for (const path of ['/api/v1/adoption', '/api/v1/adoption/staleness']) {
      await assertNothingChanged(
        t,
        gw,
        async () => expectProblem(t, await session(gw, 'alice').get(path), 403, 'forbidden'),
        `${path} by a non-auditor`,
      );
    }
    await expectJson(t, await root.post('/api/v1/roles', { principal: 'dana', role: 'auditor' }), 201);
    await expectJson(t, await root.post('/api/v1/roles', { principal: 'reader-bot', role: 'auditor' }), 201);
    t.strictSame(await expectJson(t, await session(gw, 'dana').get('/api/v1/adoption'), 200), expected, 'an auditor');
    const credential = async (apiScopes: string[]) =>
      (
        await expectJson<{ token: string }>(
          t,
          await root.post('/api/v1/tokens/machine', {
            principal: 'reader-bot',
            name: `bot ${apiScopes.join(' ') || 'none'}`,
            apiScopes,
            expiresAt: inMs(10 * day),
          }),
          201,
        )
      ).token;
    const scoped = machine(gw, await credential(['adoption:read']));
    const unscoped = machine(gw, await credential(['audit:read']));
    t.strictSame(await expectJson(t, await scoped.get('/api/v1/adoption'), 200), expected, 'adoption:read');
    await expectJson(t, await scoped.get('/api/v1/adoption/staleness'), 200, 'adoption:read: staleness');
    for (const path of ['/api/v1/adoption', '/api/v1/adoption/staleness']) {
      const problem = await expectProblem(t, await unscoped.get(path), 403, 'forbidden');
      t.match(problem.detail, /adoption:read/, `${path} without the scope`);
    }
  });

  t.test('the OpenAPI document describes both endpoints and their entries', async (t) => {
    const doc = await expectJson<{ paths: Record<string, { get?: { responses?: Record<string, unknown> } }> }>(
      t,
      await root.get('/v3/api-docs'),
      200,
    );
    const answer = (path: string) => JSON.stringify(doc.paths[path]?.get?.responses?.['200'] ?? null);
    t.match(answer('/api/v1/adoption'), /"servedSha".*"snapshots".*"current"/s, 'report entries');
    t.match(answer('/api/v1/adoption/staleness'), /"principal".*"servedSha"/s, 'staleness entries');
  });

  t.test('days: a window of whole UTC days ending today, clamped to 1..365', async (t) => {
    // The gateway's clock cannot be moved, so time passes in the read model: beta's fetches are moved
    // 300 days back and the catalog's 400.
    for (const [marketplace, ago] of [
      ['beta', 300],
      ['catalog', 400],
    ] as const) {
      const shift = `interval '${ago} days'`;
      await gw.core.pool.query(
        trustedSql(`update adoption_daily set day = day - ${ago}, last_fetch = last_fetch - ${shift}
          where marketplace = '${marketplace}'`),
      );
      await gw.core.pool.query(
        trustedSql(`update adoption_identity_days set day = day - ${ago} where marketplace = '${marketplace}'`),
      );
      for (const table of ['adoption_snapshot_fetchers', 'adoption_latest'])
        await gw.core.pool.query(
          trustedSql(`update ${table} set last_fetch = last_fetch - ${shift} where marketplace = '${marketplace}'`),
        );
    }
    const names = async (query: string) => (await report(query)).map((entry) => entry.marketplace);
    t.strictSame(await names(''), ['acme'], 'default 30 days');
    t.strictSame(await names('?days=1'), ['acme'], 'today');
    t.strictSame(await names('?days=0'), ['acme'], '0 is clamped to 1');
    t.strictSame(await names('?days=-5'), ['acme'], 'a negative window is clamped to 1');
    t.strictSame(await names('?days=300'), ['acme'], 'the 300th day back is outside 300 days');
    t.strictSame(await names('?days=301'), ['acme', 'beta'], 'and inside 301');
    t.strictSame(await names('?days=365'), ['acme', 'beta']);
    t.strictSame(await names('?days=9999'), ['acme', 'beta'], '9999 is clamped to 365: 400 days back is outside');
    const beta = (await report('?days=301')).find((entry) => entry.marketplace === 'beta')!;
    t.equal(beta.fetches, 1);
    t.equal(beta.identities, 1);
    t.strictSame(
      (await expectJson<Stale[]>(t, await root.get('/api/v1/adoption/staleness'), 200)).map((s) => s.marketplace),
      ['acme', 'catalog'],
      'staleness is window-free',
    );
    // Like every integer query of the API (TypeBox converts the query string): not a number is 422, a
    // fraction is truncated.
    await assertNothingChanged(
      t,
      gw,
      async () => expectProblem(t, await root.get('/api/v1/adoption?days=abc'), 422, 'invalid-request'),
      'days=abc',
    );
    t.strictSame(await names('?days=301.5'), ['acme', 'beta'], '301.5 reads as 301');
  });
});

// The projection on its own, with events recorded on days the test chooses (the gateway's clock is the
// wall clock): a principal's later fetch moves it to a later day, a fetch of several objects counts each,
// an advertisement counts nothing, and the latest fetch decides staleness.
t.test('the adoption projection over fetches on chosen days', async (t) => {
  const { pool } = await testCore(t, { projections: [adoptionProjection] });
  const a0 = 'a0'.repeat(20);
  const a1 = 'a1'.repeat(20);
  const a2 = 'a2'.repeat(20);
  let position = 0n;
  const recorded = (principal: string, at: string, type: 'upload-pack' | 'info-refs', data: object): RecordedEvent => {
    position += 1n;
    return {
      id: `e${position}`,
      streamId: 'access-1',
      revision: position,
      position,
      type,
      data: { marketplaceId: 1, marketplace: 'acme', credentialKind: 'pat', ...data },
      metadata: { ...metadata({ principal }), actorType: 'human' },
      recordedAt: at,
    } as RecordedEvent;
  };
  const fetched = (principal: string, at: string, ...wants: Array<{ sha: string; ref: string | null }>) =>
    recorded(principal, at, 'upload-pack', { wants });
  const apply = (...events: RecordedEvent[]) => pool.transaction((tx) => adoptionProjection.apply(tx, events));
  const main = (sha: string) => ({ sha, ref: 'refs/heads/main' });
  await apply(
    fetched('alice', '2026-01-01T10:00:00.000Z', main(a1)),
    fetched('bob', '2026-01-02T23:59:59.000Z', main(a1)),
  );
  await apply(fetched('alice', '2026-01-05T00:00:00.000Z', main(a1)));
  await apply(
    fetched('bob', '2026-01-06T08:00:00.000Z', { sha: a0, ref: null }, main(a2)),
    recorded('carol', '2026-01-06T09:00:00.000Z', 'info-refs', { ref: 'refs/heads/main', sha: a2 }),
  );
  const report = async (since: string) =>
    (await snapshotAdoption(pool, since)).map((r) => [r.sha.slice(0, 2), r.fetches, r.identities, r.lastFetch]);
  t.strictSame(await report('2026-01-01'), [
    ['a0', 1, 1, '2026-01-06T08:00:00.000Z'],
    ['a2', 1, 1, '2026-01-06T08:00:00.000Z'],
    ['a1', 3, 2, '2026-01-05T00:00:00.000Z'],
  ]);
  t.strictSame(
    (await report('2026-01-03')).find((r) => r[0] === 'a1'),
    ['a1', 1, 1, '2026-01-05T00:00:00.000Z'],
    "from 2026-01-03: alice's fetch of the 5th; bob's last fetch of a1 (the 2nd, 23:59:59 UTC) is outside",
  );
  t.strictSame(await report('2026-01-06'), [
    ['a0', 1, 1, '2026-01-06T08:00:00.000Z'],
    ['a2', 1, 1, '2026-01-06T08:00:00.000Z'],
  ]);
  t.strictSame([...(await marketplaceIdentities(pool, '2026-01-03'))], [['acme', 2]]);
  t.strictSame([...(await marketplaceIdentities(pool, '2026-01-06'))], [['acme', 1]], 'carol only asked for refs');
  const stale = async (served: Array<[string, string]>) =>
    (await staleFetches(pool, new Map(served))).map((r) => [r.principal, r.sha.slice(0, 2), r.lastFetch]);
  t.strictSame(await stale([['acme', a2]]), [['alice', 'a1', '2026-01-05T00:00:00.000Z']]);
  t.strictSame(await stale([['acme', a0]]), [['alice', 'a1', '2026-01-05T00:00:00.000Z']], 'bob took a0 too');
  t.strictSame(
    await stale([]),
    [
      ['alice', 'a1', '2026-01-05T00:00:00.000Z'],
      ['bob', 'a2', '2026-01-06T08:00:00.000Z'],
    ],
    'nothing served: every identity, with the object its fetch took on main',
  );
});
