// Time travel (docs/audit-time-travel.md): GET /api/v1/audit/served?at=<ISO-8601>: for each marketplace (and the
// catalog) the commit it served at that instant; GET /api/v1/snapshots/{id}/holders?at=: every identity that
// had fetched that commit by that instant, with first and last fetch ... Both answered from the event
// history, auditor or admin. The answers must match a scripted history of approvals, revocations and
// clones.
import t, { type Test } from 'tap';
import { trustedSql } from '../../../src/adapters/postgres/pool.ts';
import { ProjectionRunner } from '../../../src/projections/runner/runner.ts';
import { timeTravelProjection } from '../../../src/projections/time-travel/time-travel.projection.ts';
import {
  eventually,
  expectJson,
  expectProblem,
  inMs,
  day,
  machine,
  session,
  settle,
  sleep,
} from '../../support/assert.ts';
import type { Client } from '../../support/assert.ts';
import { silentLogger } from '../../support/core.ts';
import { startTestGateway, type TestGateway } from '../../support/gateway.ts';
import { gitClient, marketplaceFiles, serveUpstream } from '../../support/upstream.ts';

const env = { GATEWAY_DEV_INSECURE_AUTH: 'true', GATEWAY_ROLES_ADMINS: 'root' };

type Served = {
  at: string;
  marketplaces: Array<{
    marketplace: string;
    marketplaceId: number;
    sha: string | null;
    snapshotId: number | null;
    since: string | null;
  }>;
  catalog: { name: string; sha: string | null; since: string } | null;
};
type Holder = {
  principal: string;
  firstFetch: string;
  lastFetch: string;
  fetches: number;
  credentialKinds: string[];
  via: string[];
};
type Holders = { at: string; snapshotId: number; marketplace: string; sha: string; holders: Holder[] };
type Snapshot = { id: number; sha: string };

async function ingestAndApprove(t: Test, root: Client, name: string): Promise<Snapshot> {
  const snapshot = await expectJson<Snapshot>(t, await root.post(`/api/v1/marketplaces/${name}/ingest`), 201);
  await expectJson(t, await root.post(`/api/v1/snapshots/${snapshot.id}/approve`), 200, `approve ${name}`);
  return snapshot;
}

/** The catalog's sha once it differs from `not` (null: withdrawn), read from the ledger's catalog-rebuilt. */
async function catalogAfter(gw: TestGateway, not: string | null | undefined): Promise<string | null> {
  const sha = await eventually(async () => {
    await settle(gw);
    const rows = await gw.core.pool.any(
      trustedSql(`select coalesce(sha, '') as sha from ledger_entries where event = 'catalog-rebuilt' order by id desc
        limit 1`),
    );
    const latest = (rows[0] as { sha: string } | undefined)?.sha;
    return latest === undefined || latest === (not ?? undefined) || (latest === '' && not === null)
      ? undefined
      : latest;
  }, 10_000);
  return sha === '' ? null : sha;
}

/** An instant after everything so far was recorded, and before anything next is. */
async function instant(gw: TestGateway): Promise<string> {
  await settle(gw);
  await sleep(5);
  const at = new Date().toISOString();
  await sleep(5);
  return at;
}

/** First and last upload-pack of a commit by a principal through one repository, as the ledger has them. */
async function fetchedOnLedger(gw: TestGateway, principal: string, repo: string, sha: string) {
  const row = (await gw.core.pool.one(
    trustedSql(`select min(ts) as first, max(ts) as last, count(*)::int as n from ledger_entries
      where event = 'upload-pack' and principal = '${principal}' and marketplace = '${repo}' and sha = '${sha}'`),
  )) as { first: string; last: string; n: number };
  return { firstFetch: row.first, lastFetch: row.last, fetches: row.n };
}

t.test('served and holders over a scripted history of approvals, clones, a revocation and a removal', async (t) => {
  const gw = await startTestGateway(t, env);
  const root = session(gw, 'root');
  const at: Record<string, string> = {};
  at.T0 = await instant(gw);
  const acmeUpstream = await serveUpstream(t, marketplaceFiles('acme', ['alpha']), 'acme');
  const betaUpstream = await serveUpstream(t, marketplaceFiles('beta', ['bravo']), 'beta');
  const acme = await expectJson<{ id: number }>(
    t,
    await root.post('/api/v1/marketplaces', { name: 'acme', url: acmeUpstream.url }),
    201,
  );
  await expectJson(t, await root.post('/api/v1/marketplaces', { name: 'beta', url: betaUpstream.url }), 201);
  at.T1 = await instant(gw);
  const a1 = await ingestAndApprove(t, root, 'acme');
  const k1 = await catalogAfter(gw, undefined);
  at.T2 = await instant(gw);
  const b1 = await ingestAndApprove(t, root, 'beta');
  const k2 = await catalogAfter(gw, k1);
  at.T3 = await instant(gw);

  const clients = Object.fromEntries(
    await Promise.all(
      ['alice', 'bob', 'carol', 'dana'].map(async (who) => {
        const { token } = await expectJson<{ token: string }>(
          t,
          await session(gw, who).post('/api/v1/tokens', { name: `${who} laptop` }),
          201,
        );
        return [who, gitClient(t, token)] as const;
      }),
    ),
  ) as Record<'alice' | 'bob' | 'carol' | 'dana', ReturnType<typeof gitClient>>;
  const clone = async (who: keyof typeof clients, repo: string) =>
    t.ok((await clients[who].clone(`${gw.url}/git/${repo}`)).ok, `${who} clones ${repo}`);
  await clone('alice', 'acme');
  await clone('bob', 'acme');
  await clone('alice', 'acme');
  await clone('dana', 'catalog');
  at.T4 = await instant(gw);
  await acmeUpstream.commit({ 'plugins/alpha/README.md': 'two\n' });
  const a2 = await ingestAndApprove(t, root, 'acme');
  const k3 = await catalogAfter(gw, k2);
  at.T5 = await instant(gw);
  await clone('carol', 'acme');
  // A ref advertisement transfers nothing: bob's ls-remote makes him no holder of a2.
  t.ok((await clients.bob.run(['ls-remote', `${gw.url}/git/acme`])).ok, 'bob ls-remote acme');
  at.T6 = await instant(gw);
  await gw.core.store.append(
    `marketplace-${acme.id}`,
    [
      {
        type: 'snapshot-revoked',
        data: {
          snapshotId: a2.id,
          marketplaceId: acme.id,
          marketplace: 'acme',
          sha: a2.sha,
          reason: 'secret found',
          administrative: false,
          revokedAt: new Date().toISOString(),
          revokedBy: 'revet-policy',
        },
        metadata: { principal: 'revet-policy', actorType: 'system', correlationId: 'revet', at: inMs(0) },
      },
    ],
    'any',
  );
  const k4 = await catalogAfter(gw, k3);
  at.T7 = await instant(gw);
  await expectJson(t, await root.request('DELETE', '/api/v1/marketplaces/beta', { reason: 'retired' }), 200);
  t.equal(await catalogAfter(gw, k4), null, 'nothing served: the catalog is withdrawn');
  at.T8 = await instant(gw);

  const served = async (when: string) =>
    expectJson<Served>(t, await root.get(`/api/v1/audit/served?at=${encodeURIComponent(when)}`), 200, `served ${when}`);
  const short = (answer: Served) => ({
    marketplaces: answer.marketplaces.map((m) => [m.marketplace, m.sha, m.snapshotId]),
    catalog: answer.catalog && answer.catalog.sha,
  });
  const script: Record<string, ReturnType<typeof short>> = {
    T0: { marketplaces: [], catalog: null },
    T1: {
      marketplaces: [
        ['acme', null, null],
        ['beta', null, null],
      ],
      catalog: null,
    },
    T2: {
      marketplaces: [
        ['acme', a1.sha, a1.id],
        ['beta', null, null],
      ],
      catalog: k1,
    },
    T3: {
      marketplaces: [
        ['acme', a1.sha, a1.id],
        ['beta', b1.sha, b1.id],
      ],
      catalog: k2,
    },
    T4: {
      marketplaces: [
        ['acme', a1.sha, a1.id],
        ['beta', b1.sha, b1.id],
      ],
      catalog: k2,
    },
    T5: {
      marketplaces: [
        ['acme', a2.sha, a2.id],
        ['beta', b1.sha, b1.id],
      ],
      catalog: k3,
    },
    T6: {
      marketplaces: [
        ['acme', a2.sha, a2.id],
        ['beta', b1.sha, b1.id],
      ],
      catalog: k3,
    },
    // Revoking the tip removes refs/heads/main; it does not move back to a1.
    T7: {
      marketplaces: [
        ['acme', null, null],
        ['beta', b1.sha, b1.id],
      ],
      catalog: k4,
    },
    // Beta is unserved and unlisted; the catalog withdrawn.
    T8: { marketplaces: [['acme', null, null]], catalog: null },
  };
  const holders = async (snapshot: Snapshot, when: string) =>
    (
      await expectJson<Holders>(
        t,
        await root.get(`/api/v1/snapshots/${snapshot.id}/holders?at=${encodeURIComponent(when)}`),
        200,
        `holders of ${snapshot.id} at ${when}`,
      )
    ).holders;
  const direct = async (
    who: string,
    repo: string,
    sha: string,
    via = repo === 'catalog' ? 'catalog' : 'marketplace',
  ) => ({ principal: who, ...(await fetchedOnLedger(gw, who, repo, sha)), credentialKinds: ['pat'], via: [via] });
  const a1Holders = [
    await direct('alice', 'acme', a1.sha),
    await direct('bob', 'acme', a1.sha),
    await direct('dana', 'catalog', k2!),
  ];

  const answers = async () => ({
    served: Object.fromEntries(await Promise.all(Object.entries(at).map(async ([k, v]) => [k, await served(v)]))),
    a1: [await holders(a1, at.T3!), await holders(a1, at.T4!), await holders(a1, at.T8!)],
    a2: [await holders(a2, at.T5!), await holders(a2, at.T6!), await holders(a2, at.T8!)],
    b1: [await holders(b1, at.T3!), await holders(b1, at.T8!)],
  });
  const before = await answers();

  t.test('served?at= matches the script at every instant', async (t) => {
    for (const [name, expected] of Object.entries(script)) t.strictSame(short(before.served[name]!), expected, name);
    const t2 = before.served.T2!;
    t.equal(t2.at, at.T2, 'the instant asked about is echoed');
    t.ok(t2.marketplaces[0]!.since! <= at.T2! && t2.marketplaces[0]!.since! > at.T1!, 'since: the approval');
    t.equal(t2.catalog?.name, 'catalog');
    const now = await expectJson<Served>(t, await root.get('/api/v1/audit/served'), 200, 'no at: now');
    t.strictSame(short(now), script.T8, 'default at = now');
  });

  t.test('holders?at= per snapshot: nobody before a fetch, then the right identities', async (t) => {
    t.strictSame(before.a1[0], [], 'a1 before any fetch');
    t.strictSame(before.a1[1], a1Holders, 'a1 after the clones: alice twice, bob, dana through the catalog');
    t.equal(before.a1[1]![0]!.fetches, 2, 'alice fetched a1 twice');
    t.ok(before.a1[1]![0]!.firstFetch < before.a1[1]![0]!.lastFetch, 'her first fetch before her last');
    t.strictSame(before.a1[2], a1Holders, 'carol fetched a2, not a1; revocation and removal change no holder');
    t.strictSame(before.a2[0], [], 'a2 before carol');
    t.strictSame(before.a2[1], [await direct('carol', 'acme', a2.sha)], 'carol; not bob (ls-remote only)');
    t.strictSame(before.a2[2], before.a2[1], 'the holders of a revoked snapshot: whom to reach');
    t.strictSame(before.b1, [[], [await direct('dana', 'catalog', k2!)]], 'b1 only through the catalog');
  });

  t.test(
    'auditor or admin; no machine scope; 401 without a caller; bad instants 422; unknown snapshot 404',
    async (t) => {
      for (const path of ['/api/v1/audit/served', `/api/v1/snapshots/${a1.id}/holders`]) {
        await expectProblem(t, await session(gw, 'alice').get(path), 403, 'forbidden');
        t.equal((await gw.fetch(path)).status, 401, `${path} without a caller`);
      }
      await expectJson(t, await root.post('/api/v1/roles', { principal: 'erin', role: 'auditor' }), 201);
      t.strictSame(
        short(await expectJson<Served>(t, await session(gw, 'erin').get(`/api/v1/audit/served?at=${at.T3}`), 200)),
        script.T3,
        'an auditor',
      );
      await expectJson(t, await root.post('/api/v1/roles', { principal: 'reader-bot', role: 'auditor' }), 201);
      const { token } = await expectJson<{ token: string }>(
        t,
        await root.post('/api/v1/tokens/machine', {
          principal: 'reader-bot',
          name: 'bot',
          apiScopes: ['audit:read'],
          expiresAt: inMs(10 * day),
        }),
        201,
      );
      await expectProblem(t, await machine(gw, token).get('/api/v1/audit/served'), 403, 'forbidden');
      for (const bad of ['yesterday', '2026-13-01T00:00:00Z', '2026-01-01', '2026-01-01T00:00:00'])
        await expectProblem(t, await root.get(`/api/v1/audit/served?at=${bad}`), 422, 'invalid-request');
      await expectProblem(t, await root.get(`/api/v1/snapshots/${a1.id}/holders?at=never`), 422, 'invalid-request');
      await expectProblem(t, await root.get('/api/v1/snapshots/999999/holders'), 404, 'snapshot-not-found');
      const offset = await root.get(`/api/v1/audit/served?at=${encodeURIComponent(at.T2!.replace('Z', '+00:00'))}`);
      t.strictSame(short(await expectJson<Served>(t, offset, 200)), script.T2, 'an offset instant');
    },
  );
  // Last: the gateway's runner is stopped for it.
  t.test('a rebuild of the read model gives the same answers', async (t) => {
    await gw.core.runner.stop();
    const runner = new ProjectionRunner(gw.core.pool, gw.core.store, [timeTravelProjection], {
      batchSize: 7,
      idlePollMs: 1000,
      logger: silentLogger,
    });
    const count = async () => gw.core.pool.oneFirst(trustedSql('select count(*) from time_travel_fetches'));
    const rows = await count();
    await runner.rebuild();
    t.equal(await count(), rows, 'the same fetch rows');
    t.strictSame(await answers(), before, 'every answer, batch size 7');
  });
});
