import t, { type Test } from 'tap';
import { devSession } from '../../support/api.ts';
import { eventually, inMs } from '../../support/assert.ts';
import { cleanMarketplace, plantedToken } from '../../support/planted.ts';
import { replicaAdmin, testReplicas, type Replica, type ReplicaStorage } from '../../support/replicas.ts';
import { gitClient, marketplaceFiles, serveUpstream } from '../../support/upstream.ts';

// Tests run two gateway processes on one PostgreSQL [...]: an approval through replica
// A is cloned from replica B; kill -9 of the leader hands projections and schedules to the other replica
// [...]; a revocation through B stops A from serving the commit.
// "Every replica serves HTTP. Projections, reactors and schedules run on exactly one replica at
// a time, chosen by a PostgreSQL advisory lock [...]. A command on any replica waits on the shared
// checkpoints, so the answer is the same wherever it lands."
const session = (replica: Replica) => devSession(replica, replicaAdmin);
// What a replica on another storage may take to catch up; on a shared directory it serves at once.
const servedWithin = 15_000;

/** The storage of a variant's replicas, made for one test (a bucket of its own); unset: a shared directory. */
export type StorageFor = (t: Test) => Promise<(root: string) => ReplicaStorage>;

/** HEAD of a clone through `replica`, once it serves one; the clone's directory with it. */
async function clonedHead(client: ReturnType<typeof gitClient>, replica: Replica, name: string) {
  return eventually(async () => {
    const clone = await client.clone(`${replica.url}/git/${name}`);
    if (!clone.ok) return null;
    return (await client.run(['rev-parse', 'HEAD'], clone.dir)).stdout;
  }, servedWithin);
}

const refsOn = async (client: ReturnType<typeof gitClient>, replica: Replica, name: string) =>
  (await client.run(['ls-remote', `${replica.url}/git/${name}`])).stdout
    .split('\n')
    .filter(Boolean)
    .map((line) => line.split('\t').reverse().join(' '))
    .sort();

/** The three scenarios above, on the replicas' storage of `variant`. */
export function replicaScenarios(variant: string, storageFor?: StorageFor): void {
  const start = async (t: Test, env?: Record<string, string>) =>
    testReplicas(t, { ...(storageFor ? { storage: await storageFor(t) } : {}), ...(env ? { env } : {}) });

  t.test(`${variant}: an approval through replica A is cloned from replica B, and so is the next one`, async (t) => {
    const set = await start(t);
    const [a, b] = set.replicas as [Replica, Replica];
    t.ok(set.leader(), 'one replica holds the leader lock');
    const onA = session(a);
    const upstream = await serveUpstream(t, marketplaceFiles('acme', ['alpha']));

    t.equal((await onA.post('/api/v1/marketplaces', { name: 'acme', url: upstream.url })).status, 201);
    const v1 = (await onA.post('/api/v1/marketplaces/acme/ingest')).body;
    t.equal((await onA.post(`/api/v1/snapshots/${v1.id}/approve`)).status, 200, 'approved through A');

    const token = await session(b).post('/api/v1/tokens', { name: 'clone from B' });
    t.equal(token.status, 201, 'a personal token issued through B');
    const client = gitClient(t, token.body.token);
    t.equal(await clonedHead(client, b, 'acme'), v1.sha, 'B serves the commit approved through A');
    const listed = (await session(b).get('/api/v1/marketplaces')).body;
    t.match(listed, [{ name: 'acme', servedSha: v1.sha }], "B's read models answer what A's command decided");

    // B has served acme, so it holds its refs in memory: the next approval through A must still reach it.
    await upstream.commit({ 'plugins/alpha/NEW.md': 'v2\n' });
    const v2 = (await onA.post('/api/v1/marketplaces/acme/ingest')).body;
    t.equal((await onA.post(`/api/v1/snapshots/${v2.id}/approve`)).status, 200);
    t.not(v2.sha, v1.sha);
    // On the object store B follows by polling the bucket (within 2 s, bench/replicas.ts): wait that long at most.
    const servedByB = async (sha: string) =>
      eventually(async () => ((await clonedHead(client, b, 'acme')) === sha ? sha : null), 5_000, 100).catch(() =>
        clonedHead(client, b, 'acme'),
      );
    t.equal(await servedByB(v2.sha), v2.sha, 'B serves the new tip');
    t.strictSame(
      await refsOn(client, b, 'acme'),
      [
        `HEAD ${v2.sha}`,
        `refs/heads/main ${v2.sha}`,
        `refs/snapshots/${v1.sha} ${v1.sha}`,
        `refs/snapshots/${v2.sha} ${v2.sha}`,
      ].sort(),
      'spec, Facade rule 2: B advertises HEAD, main and both approved snapshots',
    );
  });

  t.test(`${variant}: kill -9 of the leader hands projections and schedules to the survivor`, async (t) => {
    const set = await start(t, {
      // A command that lands during the failover waits for the survivor's projections instead of answering
      // projection-lag after the default 5 s.
      GATEWAY_PROJECTIONS_WAIT_TIMEOUT: '60s',
      // Every second, so the survivor's schedule shows without waiting for a quarter hour.
      GATEWAY_SYNC_SCHEDULE: '* * * * * *',
    });
    const leader = await eventually(async () => set.leader(), 10_000);
    const survivor = set.replicas.find((replica) => replica !== leader)!;
    t.equal(survivor.leadingSince, null, 'the other replica does not lead');
    const api = session(survivor);
    const upstream = await serveUpstream(t, marketplaceFiles('acme', ['alpha']));
    t.equal((await api.post('/api/v1/marketplaces', { name: 'acme', url: upstream.url })).status, 201);
    const v1 = (await api.post('/api/v1/marketplaces/acme/ingest')).body;
    t.equal((await api.post(`/api/v1/snapshots/${v1.id}/approve`)).status, 200);
    t.equal((await api.put('/api/v1/marketplaces/acme/sync', { mode: 'scheduled' })).status, 200);

    await leader.kill();
    t.notOk(leader.alive(), `the leader (replica ${leader.name}) is gone`);
    // A command through the survivor right after the kill: appended at once, answered once projections run again.
    const registered = await api.post('/api/v1/marketplaces', { name: 'hosted-one', origin: 'hosted' });
    t.equal(registered.status, 201, `the command gets its answer: ${registered.text}`);
    t.match(registered.body, { name: 'hosted-one', forge: 'hosted' });
    await eventually(async () => set.leader() === survivor, 30_000);
    t.pass(`replica ${survivor.name} took the leader lock`);
    const names = (await api.get('/api/v1/marketplaces')).body.map((m: { name: string }) => m.name);
    t.strictSame(names.sort(), ['acme', 'hosted-one'], "the survivor's read models moved on");

    // Schedules: only the survivor runs the scheduled ingestion now.
    const tip = await upstream.commit({ 'plugins/alpha/LATER.md': 'after the failover\n' });
    const scheduled = await eventually(async () => {
      const acme = (await api.get('/api/v1/marketplaces')).body.find((m: { name: string }) => m.name === 'acme');
      return acme?.snapshots.find((s: { upstreamSha?: string; sha: string }) => (s.upstreamSha ?? s.sha) === tip);
    }, 30_000);
    t.match(scheduled, { state: 'held', ingestedBy: 'scheduler' }, "the survivor's schedule ingested the new commit");

    // The killed replica comes back as a follower and serves as before.
    await leader.start();
    t.equal(leader.leadingSince, null, 'the restarted replica does not take the lock the survivor holds');
    t.equal(set.leader(), survivor);
    const client = gitClient(t, (await api.post('/api/v1/tokens', { name: 'clone' })).body.token);
    t.equal(await clonedHead(client, leader, 'acme'), v1.sha, 'the restarted replica serves the approved commit');
  });

  // Clean but for one credential: approvable only under a waiver (as test/http/vetting/revet.test.ts).
  const withSecret = () => cleanMarketplace({ 'plugins/tidy/notes.txt': `token for the demo:\n${plantedToken}\n` });

  async function approvedUnderWaiverOn(t: Test, replica: Replica) {
    const api = session(replica);
    const upstream = await serveUpstream(t, withSecret());
    t.equal((await api.post('/api/v1/marketplaces', { name: 'tidy', url: upstream.url })).status, 201);
    const snapshot = (await api.post('/api/v1/marketplaces/tidy/ingest')).body;
    const finding = (await api.get(`/api/v1/snapshots/${snapshot.id}/vetting`)).body.uncovered[0];
    const waiver = await api.post(`/api/v1/snapshots/${snapshot.id}/waivers`, {
      ruleId: finding.ruleId,
      scope: 'SNAPSHOT',
      justification: 'demo token',
      expiresAt: inMs(3_600_000),
    });
    t.equal(waiver.status, 201);
    t.equal(
      (await api.post(`/api/v1/snapshots/${snapshot.id}/approve`)).status,
      200,
      'approved while the waiver holds',
    );
    return { snapshot, waiver: waiver.body };
  }

  t.test(`${variant}: a revocation through B stops A from serving the commit`, async (t) => {
    const set = await start(t, { GATEWAY_VETTING_REVET_MODE: 'ENFORCE' });
    const [a, b] = set.replicas as [Replica, Replica];
    const { snapshot, waiver } = await approvedUnderWaiverOn(t, a);
    const client = gitClient(t, (await session(a).post('/api/v1/tokens', { name: 'clone' })).body.token);
    t.equal(await clonedHead(client, a, 'tidy'), snapshot.sha, 'A serves the approved commit');
    t.equal(await clonedHead(client, b, 'tidy'), snapshot.sha, 'so does B');

    // Approved | re-vet with classification VIOLATION in ENFORCE mode | revoked | [...] refs removed
    const onB = session(b);
    t.equal((await onB.delete(`/api/v1/waivers/${waiver.id}`)).status, 200, 'the waiver revoked through B');
    const revet = await onB.post(`/api/v1/snapshots/${snapshot.id}/revet`);
    t.match(revet.body, { classification: 'VIOLATION', revoked: true, mode: 'ENFORCE' }, 'revoked through B');

    await eventually(async () => !(await client.clone(`${a.url}/git/tidy`)).ok, servedWithin);
    t.pass('A no longer serves tidy');
    t.strictSame(await refsOn(client, a, 'tidy'), [], 'A advertises nothing');
    const dir = `${client.home}/fresh`;
    await client.run(['init', '--quiet', dir]);
    const fetched = await client.run(['-c', 'protocol.version=2', 'fetch', `${a.url}/git/tidy`, snapshot.sha], dir);
    t.notOk(fetched.ok, 'the real client asking A for the revoked sha is refused');
    const listed = (await session(a).get('/api/v1/marketplaces')).body;
    t.match(listed, [{ name: 'tidy', servedSha: null, snapshots: [{ id: snapshot.id, state: 'revoked' }] }]);
  });
}
