import { join } from 'node:path';
import t from 'tap';
import { loadConfig } from '../../../src/adapters/config/load.ts';
import { devSession } from '../../support/api.ts';
import { testDatabase } from '../../support/database.ts';
import { startOnConfig, type TestGateway } from '../../support/gateway.ts';
import { marketplaceFiles, serveUpstream } from '../../support/upstream.ts';

// Two replicas on one database, each answering the revocation check from its own memory (decision 438): a
// token revoked through one is refused by the other within a second, an expired one at once, and a snapshot
// revoked through one answers revoked on the other within a second. The second replica does not lead: it
// runs no projection, and learns of each change from the event stream.

const basic = (token: string) => `Basic ${Buffer.from(`x:${token}`).toString('base64')}`;

async function check(gw: TestGateway, token: string, holdings: Array<{ marketplace: string; sha: string }>) {
  const answer = await gw.app.inject({
    method: 'POST',
    url: '/status/v1/snapshots',
    payload: { holdings },
    headers: { authorization: basic(token) },
  });
  const states = answer.statusCode === 200 ? (answer.json() as { results: Array<{ state: string }> }).results : [];
  return { status: answer.statusCode, states: states.map((r) => r.state) };
}

/** Milliseconds until `done` holds, asking every 20 ms; fails past 5 s. */
async function msUntil(done: () => Promise<boolean>): Promise<number> {
  const start = performance.now();
  while (!(await done())) {
    if (performance.now() - start > 5000) throw new Error('not within 5 s');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return performance.now() - start;
}

t.test('a revocation through one replica is answered by the other within a second', async (t) => {
  const { url } = await testDatabase(t);
  const dir = t.testdir({ a: {}, b: {} });
  let offsetMs = 0;
  const clock = {
    now: () => new Date(Date.now() + offsetMs),
    instant: () => new Date(Date.now() + offsetMs).toISOString(),
  };
  const configOf = (name: string) =>
    loadConfig({
      env: {
        GATEWAY_DATABASE_URL: url,
        GATEWAY_DATA_DIR: join(dir, name),
        PORT: '0',
        GATEWAY_LOG_LEVEL: 'silent',
        GATEWAY_DEV_INSECURE_AUTH: 'true',
        GATEWAY_ROLES_ADMINS: 'root',
        GATEWAY_CATALOG_ENABLED: 'false',
        GATEWAY_PROJECTIONS_WAIT_TIMEOUT: '30s',
      },
      cwd: process.cwd(),
    });
  const a = await startOnConfig(await configOf('a'));
  t.teardown(() => a.close());
  const b = await startOnConfig(await configOf('b'), { clock });
  t.teardown(() => b.close());
  t.ok(a.leadership.isLeader && !b.leadership.isLeader, 'the first replica leads, the second does not');

  const api = devSession(a, 'root');
  const upstream = await serveUpstream(t, marketplaceFiles('acme', ['alpha']), 'acme');
  t.equal((await api.post('/api/v1/marketplaces', { name: 'acme', url: upstream.url })).status, 201);
  const snapshot = (await api.post('/api/v1/marketplaces/acme/ingest')).body as {
    id: number;
    sha: string;
    marketplaceId: number;
  };
  const issued = (await api.post('/api/v1/tokens', { name: 'client' })).body as { id: number; token: string };
  const pair = [{ marketplace: 'acme', sha: snapshot.sha }];
  t.strictSame(await check(b, issued.token, pair), { status: 200, states: ['unknown'] }, 'held: unknown on both');
  t.equal((await api.post(`/api/v1/snapshots/${snapshot.id}/approve`)).status, 200);

  const approvedOnB = await msUntil(async () => (await check(b, issued.token, pair)).states[0] === 'approved');
  t.ok(approvedOnB < 1000, `the approval reached the second replica (${Math.round(approvedOnB)} ms)`);

  const at = new Date().toISOString();
  const data = {
    snapshotId: snapshot.id,
    marketplaceId: snapshot.marketplaceId,
    marketplace: 'acme',
    sha: snapshot.sha,
    reason: 'secret found',
    administrative: false,
    revokedAt: at,
    revokedBy: 'revet-policy',
  };
  const metadata = { principal: 'revet-policy', actorType: 'system' as const, correlationId: 'revet', at };
  await a.core.store.append(
    `marketplace-${snapshot.marketplaceId}`,
    [{ type: 'snapshot-revoked', data, metadata }],
    'any',
  );
  const revokedOnB = await msUntil(async () => (await check(b, issued.token, pair)).states[0] === 'revoked');
  t.ok(revokedOnB < 1000, `the snapshot answers revoked on the second replica (${Math.round(revokedOnB)} ms)`);

  t.equal((await api.delete(`/api/v1/tokens/${issued.id}`)).status, 204, 'revoked through the first replica');
  const refusedOnB = await msUntil(async () => (await check(b, issued.token, pair)).status === 401);
  t.ok(refusedOnB < 1000, `the token is refused by the second replica (${Math.round(refusedOnB)} ms)`);
  t.equal((await check(a, issued.token, pair)).status, 401, 'and by the first, at once');

  const expiresAt = new Date(Date.now() + 3_600_000).toISOString();
  const expiring = (await api.post('/api/v1/tokens', { name: 'expiring', expiresAt })).body as { token: string };
  await msUntil(async () => (await check(b, expiring.token, pair)).status === 200);
  offsetMs = 2 * 3_600_000;
  t.equal((await check(b, expiring.token, pair)).status, 401, 'an expired token is refused at its first use after');
});
