import t, { type Test } from 'tap';
import type { Interceptor } from '../../../src/adapters/postgres/pool.ts';
import { checkHoldings, checkHoldingsInDatabase } from '../../../src/application/access/holdings.use-case.ts';
import { compactionPass } from '../../../src/application/retention/compaction.duty.ts';
import { devSession } from '../../support/api.ts';
import { startTestGateway, type TestGateway } from '../../support/gateway.ts';
import { marketplaceFiles, serveUpstream } from '../../support/upstream.ts';

// The revocation check answers from the gateway's memory (decision 438): on every pair, the answer the
// snapshots read model gives (capturesOfPairs + answerHolding), across a revocation, a re-approval over it,
// a marketplace's removal and a compaction's purge; and a request reads neither the snapshots nor, once a
// token was used, the tokens.

let observing: string[] | null = null;
const observer: Interceptor = {
  name: 'holdings-memory-queries',
  beforeQueryExecution: (_context, query) => {
    observing?.push(query.sql.replace(/\s+/g, ' ').trim());
    return null;
  },
};

type Snapshot = { id: number; sha: string; marketplaceId: number; purgeAfter?: string };

/** As re-vetting appends it (the gateway has no revoke route). */
async function revoke(gw: TestGateway, marketplace: string, snapshot: Snapshot) {
  const at = new Date().toISOString();
  const data = {
    snapshotId: snapshot.id,
    marketplaceId: snapshot.marketplaceId,
    marketplace,
    sha: snapshot.sha,
    reason: 'secret found',
    administrative: false,
    revokedAt: at,
    revokedBy: 'revet-policy',
  };
  const metadata = { principal: 'revet-policy', actorType: 'system' as const, correlationId: 'revet', at };
  await gw.core.store.append(
    `marketplace-${snapshot.marketplaceId}`,
    [{ type: 'snapshot-revoked', data, metadata }],
    'any',
  );
  await gw.settled();
}

const basic = (token: string) => `Basic ${Buffer.from(`x:${token}`).toString('base64')}`;

/** Every pair answers in memory as in the read model, over HTTP too, and the HTTP check reads no snapshot. */
async function agree(t: Test, gw: TestGateway, token: string, pairs: Array<{ marketplace: string; sha: string }>) {
  const all = () => true;
  const database = await checkHoldingsInDatabase(gw.deps, pairs, all);
  t.strictSame(await checkHoldings(gw.deps, pairs, all), database, 'the memory answers as the read model');
  const queries: string[] = [];
  observing = queries;
  const answer = await gw.app.inject({
    method: 'POST',
    url: '/status/v1/snapshots',
    payload: { holdings: pairs },
    headers: { authorization: basic(token) },
  });
  observing = null;
  t.equal(answer.statusCode, 200);
  const results = (answer.json() as { results: Array<Record<string, unknown>> }).results;
  t.strictSame(
    results.map(({ state, revokedAt, approvedOverReversedRevocation }) => ({
      state,
      revokedAt,
      approvedOverReversedRevocation,
    })),
    database,
    'over HTTP too',
  );
  // Reads only: the token's first use is recorded behind the answer, and its projection may write
  // access_tokens.last_used_at before the window closes.
  const reads = queries.filter((sql) => /^\s*(select|with)\b/i.test(sql) && /\b(snapshots|access_tokens)\b/.test(sql));
  t.strictSame(reads, [], 'the check read neither the snapshots nor the tokens');
  return database.map((answer) => answer.state);
}

t.test('the memory answers every pair as the read model, across revocation, removal and purge', async (t) => {
  const gw = await startTestGateway(
    t,
    { GATEWAY_DEV_INSECURE_AUTH: 'true', GATEWAY_ROLES_ADMINS: 'root', GATEWAY_CATALOG_ENABLED: 'false' },
    { poolInterceptors: [observer] },
  );
  const api = devSession(gw, 'root');
  const acmeUpstream = await serveUpstream(t, marketplaceFiles('acme', ['alpha']), 'acme');
  const goneUpstream = await serveUpstream(t, marketplaceFiles('gone', ['beta']), 'gone');
  t.equal((await api.post('/api/v1/marketplaces', { name: 'acme', url: acmeUpstream.url })).status, 201);
  t.equal((await api.post('/api/v1/marketplaces', { name: 'gone', url: goneUpstream.url })).status, 201);
  const ingest = async (name: string) => (await api.post(`/api/v1/marketplaces/${name}/ingest`)).body as Snapshot;
  const approve = async (s: Snapshot) => t.equal((await api.post(`/api/v1/snapshots/${s.id}/approve`)).status, 200);

  const first = await ingest('acme');
  await approve(first);
  await acmeUpstream.commit({ 'plugins/alpha/v2.md': 'v2\n' });
  const second = await ingest('acme');
  await approve(second);
  await acmeUpstream.commit({ 'plugins/alpha/v3.md': 'v3\n' });
  const held = await ingest('acme');
  const gone = await ingest('gone');
  await approve(gone);
  const token = (await api.post('/api/v1/tokens', { name: 'client' })).body.token as string;

  const shas = [first.sha, second.sha, held.sha, gone.sha, 'f'.repeat(40)];
  const pairs = ['acme', 'gone', 'nowhere'].flatMap((marketplace) => shas.map((sha) => ({ marketplace, sha })));
  const acme = (states: string[]) => states.slice(0, 4);

  // Used once (its lookup is kept), then every check below reads nothing.
  await gw.app.inject({
    method: 'POST',
    url: '/status/v1/snapshots',
    payload: { holdings: [] },
    headers: { authorization: basic(token) },
  });
  t.strictSame(acme(await agree(t, gw, token, pairs)), ['approved', 'approved', 'unknown', 'unknown'], 'at first');

  await revoke(gw, 'acme', first);
  t.strictSame(acme(await agree(t, gw, token, pairs)), ['revoked', 'approved', 'unknown', 'unknown'], 'revoked');

  await approve(first);
  const reapproved = await checkHoldings(gw.deps, [{ marketplace: 'acme', sha: first.sha }], () => true);
  t.strictSame(reapproved, [{ state: 'approved', revokedAt: null, approvedOverReversedRevocation: true }]);
  await agree(t, gw, token, pairs);

  t.equal((await api.delete('/api/v1/marketplaces/gone', { reason: 'retired' })).status, 200, 'gone removed');
  await gw.settled();
  const afterRemoval = await agree(t, gw, token, pairs);
  t.equal(afterRemoval[5 + 3], 'revoked', "the removed marketplace's commit answers revoked (withdrawn)");

  // A revoked snapshot and a held one, deleted and purged by compaction: the revoked commit ages out.
  await revoke(gw, 'acme', second);
  t.strictSame(acme(await agree(t, gw, token, pairs)), ['approved', 'revoked', 'unknown', 'unknown'], 'before purge');
  let purgeAfter = '';
  for (const snapshot of [second, held]) {
    const deleted = await api.delete(`/api/v1/snapshots/${snapshot.id}`);
    t.equal(deleted.status, 200, `snapshot ${snapshot.id} deleted`);
    purgeAfter = (deleted.body as Snapshot).purgeAfter!;
  }
  const ahead = Date.parse(purgeAfter) - Date.now() + 3_600_000;
  const clock = { now: () => new Date(Date.now() + ahead), instant: () => new Date(Date.now() + ahead).toISOString() };
  const meta = { principal: 'system', actorType: 'system' as const, at: clock.instant(), correlationId: 'purge' };
  t.match(await compactionPass({ ...gw.deps, clock }, meta), { acted: 2 }, 'both purged');
  await gw.settled();
  t.strictSame(acme(await agree(t, gw, token, pairs)), ['approved', 'unknown', 'unknown', 'unknown'], 'purged');
});
