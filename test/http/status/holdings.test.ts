import t, { type Test } from 'tap';
import type { Interceptor } from '../../../src/adapters/postgres/pool.ts';
import { devSession } from '../../support/api.ts';
import { startTestGateway, type TestGateway } from '../../support/gateway.ts';
import { marketplaceFiles, serveUpstream } from '../../support/upstream.ts';

// The revocation check (POST /status/v1/snapshots, docs/facade.md): a full request of
// 256 pairs, every kind of answer mixed, is answered in request order without reading the snapshots.

let observing: string[] | null = null;
const observer: Interceptor = {
  name: 'holdings-query-count',
  beforeQueryExecution: (context, query) => {
    if (observing && context.transactionId === null) observing.push(query.sql.replace(/\s+/g, ' ').trim());
    return null;
  },
};

type Snapshot = { id: number; sha: string; state: string };
type Result = {
  marketplace: string;
  sha: string;
  state: string;
  revokedAt: string | null;
  approvedOverReversedRevocation: boolean;
};

/** As re-vetting appends it (the gateway has no revoke route). */
async function revoke(gw: TestGateway, marketplaceId: number, marketplace: string, snapshot: Snapshot) {
  const at = new Date().toISOString();
  await gw.core.store.append(
    `marketplace-${marketplaceId}`,
    [
      {
        type: 'snapshot-revoked',
        data: {
          snapshotId: snapshot.id,
          marketplaceId,
          marketplace,
          sha: snapshot.sha,
          reason: 'secret found',
          administrative: false,
          revokedAt: at,
          revokedBy: 'revet-policy',
        },
        metadata: { principal: 'revet-policy', actorType: 'system', correlationId: 'revet', at },
      },
    ],
    'any',
  );
  await gw.settled();
}

async function check(gw: TestGateway, token: string, holdings: unknown[]) {
  const answer = await gw.app.inject({
    method: 'POST',
    url: '/status/v1/snapshots',
    payload: { holdings },
    headers: { authorization: `Basic ${Buffer.from(`x:${token}`).toString('base64')}` },
  });
  return { status: answer.statusCode, results: (answer.json() as { results: Result[] }).results };
}

async function ingestApproved(t: Test, api: ReturnType<typeof devSession>, name: string, approve = true) {
  const snapshot = (await api.post(`/api/v1/marketplaces/${name}/ingest`)).body as Snapshot;
  if (approve) t.equal((await api.post(`/api/v1/snapshots/${snapshot.id}/approve`)).status, 200, `approved ${name}`);
  return snapshot;
}

t.test('256 pairs of every kind: the expected answers, in request order, from memory', async (t) => {
  const gw = await startTestGateway(
    t,
    {
      GATEWAY_DEV_INSECURE_AUTH: 'true',
      GATEWAY_ROLES_ADMINS: 'root',
      GATEWAY_CATALOG_ENABLED: 'false',
      GATEWAY_VETTING_WAIVER_SWEEP_INTERVAL: '24h',
    },
    { poolInterceptors: [observer] },
  );
  const api = devSession(gw, 'root');
  const acmeUpstream = await serveUpstream(t, marketplaceFiles('acme', ['alpha']), 'acme');
  const goneUpstream = await serveUpstream(t, marketplaceFiles('gone', ['beta']), 'gone');
  const acme = (await api.post('/api/v1/marketplaces', { name: 'acme', url: acmeUpstream.url })).body as { id: number };
  t.equal((await api.post('/api/v1/marketplaces', { name: 'gone', url: goneUpstream.url })).status, 201);

  const approved = await ingestApproved(t, api, 'acme');
  await acmeUpstream.commit({ 'plugins/alpha/v2.md': 'v2\n' });
  const revoked = await ingestApproved(t, api, 'acme');
  await revoke(gw, acme.id, 'acme', revoked);
  await acmeUpstream.commit({ 'plugins/alpha/v3.md': 'v3\n' });
  const reapproved = await ingestApproved(t, api, 'acme');
  await revoke(gw, acme.id, 'acme', reapproved);
  t.equal((await api.post(`/api/v1/snapshots/${reapproved.id}/approve`)).status, 200, 'revoked → approved again');
  await acmeUpstream.commit({ 'plugins/alpha/v4.md': 'v4\n' });
  const held = await ingestApproved(t, api, 'acme', false);
  await acmeUpstream.commit({ 'plugins/alpha/v5.md': 'v5\n' });
  const rejected = await ingestApproved(t, api, 'acme', false);
  t.equal((await api.post(`/api/v1/snapshots/${rejected.id}/reject`)).status, 200, 'rejected');

  const withdrawn = await ingestApproved(t, api, 'gone');
  await goneUpstream.commit({ 'plugins/beta/v2.md': 'v2\n' });
  const heldWhenRemoved = await ingestApproved(t, api, 'gone', false);
  t.equal((await api.delete('/api/v1/marketplaces/gone', { reason: 'retired' })).status, 200, 'gone removed');
  await gw.settled();

  const unknownSha = 'f'.repeat(40);
  const revokedAt = /^\d{4}-\d\d-\d\dT/;
  // [marketplace as sent, sha, state, revokedAt, approvedOverReversedRevocation]
  const kinds: Array<[string, string, string, RegExp | null, boolean]> = [
    ['acme', approved.sha, 'approved', null, false],
    ['acme.git', approved.sha, 'approved', null, false],
    ['acme', revoked.sha, 'revoked', revokedAt, false],
    ['acme', reapproved.sha, 'approved', null, true],
    ['acme', held.sha, 'unknown', null, false],
    ['acme', rejected.sha, 'unknown', null, false],
    ['acme', unknownSha, 'unknown', null, false],
    ['acme', withdrawn.sha, 'unknown', null, false],
    ['gone', withdrawn.sha, 'revoked', revokedAt, false],
    ['gone.git', withdrawn.sha, 'revoked', revokedAt, false],
    ['gone', heldWhenRemoved.sha, 'unknown', null, false],
    ['gone', approved.sha, 'unknown', null, false],
    ['nowhere', approved.sha, 'unknown', null, false],
  ];
  // Every kind many times, interleaved so that request order matters, to the 256 limit.
  const asked = Array.from({ length: 256 }, (_, i) => kinds[(i * 5) % kinds.length]!);
  const token = (await api.post('/api/v1/tokens', { name: 'client' })).body.token as string;

  const queries: string[] = [];
  observing = queries;
  const answer = await check(
    gw,
    token,
    asked.map(([marketplace, sha]) => ({ marketplace, sha })),
  );
  observing = null;
  t.equal(answer.status, 200);
  t.equal(answer.results.length, 256, 'one result per pair');
  const mismatches = answer.results.flatMap((result, i) => {
    const [marketplace, sha, state, at, over] = asked[i]!;
    const ok =
      result.marketplace === marketplace &&
      result.sha === sha &&
      result.state === state &&
      (at === null ? result.revokedAt === null : at.test(result.revokedAt ?? '')) &&
      result.approvedOverReversedRevocation === over;
    return ok ? [] : [{ i, asked: asked[i], result }];
  });
  t.strictSame(mismatches, [], 'every pair answers as expected, echoed as sent');
  t.equal(
    new Set(answer.results.filter((r) => r.sha === revoked.sha).map((r) => r.revokedAt)).size,
    1,
    'a revoked pair answers the same revokedAt each time it is asked',
  );

  // Answered from the gateway's memory of the captures (decision 438): no read of the snapshots at all.
  const snapshotReads = queries.filter((sql) => /\bsnapshots\b/.test(sql));
  t.equal(snapshotReads.length, 0, `no read of the snapshots for 256 pairs (${snapshotReads.length} seen)`);

  const scoped = (await api.post('/api/v1/tokens', { name: 'scoped', scopes: ['acme'] })).body.token as string;
  const scopedAnswer = await check(gw, scoped, [
    { marketplace: 'acme', sha: approved.sha },
    { marketplace: 'gone', sha: withdrawn.sha },
    { marketplace: 'acme', sha: revoked.sha },
  ]);
  t.equal(scopedAnswer.status, 200);
  t.strictSame(
    scopedAnswer.results.map((r) => r.state),
    ['approved', 'unknown', 'revoked'],
    'a scoped token: out of scope reads unknown, in scope answers',
  );

  const empty = await check(gw, token, []);
  t.strictSame([empty.status, empty.results], [200, []], 'no pairs, no results');
});
