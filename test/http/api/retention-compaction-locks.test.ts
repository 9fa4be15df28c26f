import { execFileSync } from 'node:child_process';
import t from 'tap';
import type { Clock } from '../../../src/adapters/system/clock.ts';
import { compactionPass } from '../../../src/application/retention/compaction.duty.ts';
import type { CommandMeta } from '../../../src/domain/kernel/decider.ts';
import { expectJson, ledger, session } from '../../support/assert.ts';
import { startTestGateway, type TestGateway } from '../../support/gateway.ts';
import { gitIn, marketplaceFiles, serveUpstream } from '../../support/upstream.ts';

// Purge ... (their refs and, after git gc --prune, objects no other live ref reaches leave the
// quarantine). Ingestion writes objects into a per-marketplace quarantine bare repository and pins each
// captured commit with a quarantine ref before the capture event is appended; every replica serves HTTP (an
// ingest may run anywhere) while schedules run on exactly one replica (compaction; docs/architecture.md). An ingest
// holds its quarantine's lock shared from its first object until its capture is recorded; compaction prunes a
// repository only under the exclusive lock, taken without waiting, and skips a busy one until the next pass.

const env = { GATEWAY_DEV_INSECURE_AUTH: 'true', GATEWAY_ROLES_ADMINS: 'root', GATEWAY_WEBHOOKS_ENABLED: 'false' };
const hour = 3_600_000;

type Snapshot = { id: number; marketplaceId: number; sha: string; purgeAfter?: string };

const meta = (): CommandMeta => ({
  principal: 'system',
  actorType: 'system',
  at: new Date().toISOString(),
  correlationId: 'compaction-locks-test',
});

const clockAhead = (offsetMs: number): Clock => ({
  now: () => new Date(Date.now() + offsetMs),
  instant: () => new Date(Date.now() + offsetMs).toISOString(),
});

const passAt = (gw: TestGateway, offsetMs: number) =>
  compactionPass({ ...gw.deps, clock: clockAhead(offsetMs) }, meta());

const present = (repo: string, object: string) =>
  gitIn(repo, 'cat-file', '-e', object).then(
    () => true,
    () => false,
  );

t.test('a repository an ingest holds is skipped by a pass and purged by the next once released', async (t) => {
  const gw = await startTestGateway(t, env);
  const root = session(gw, 'root');
  const upstream = await serveUpstream(t, marketplaceFiles('busy', ['alpha']), 'busy');
  await expectJson(t, await root.post('/api/v1/marketplaces', { name: 'busy', url: upstream.url }), 201);
  const held = await expectJson<Snapshot>(t, await root.post('/api/v1/marketplaces/busy/ingest'), 201);
  const deleted = await expectJson<Snapshot>(t, await root.delete(`/api/v1/snapshots/${held.id}`), 200);
  const due = Date.parse(deleted.purgeAfter!) - Date.now() + hour;
  const repo = gw.core.gitStore.quarantinePath(held.marketplaceId);

  // What an ingest of the marketplace on any replica holds while it writes objects no ref reaches yet.
  const skipped = await gw.deps.quarantineLocks.shared(held.marketplaceId, async () => {
    // While shared, an exclusive attempt is refused at once, from any connection (another replica's).
    const attempt = await gw.deps.quarantineLocks.tryExclusive(held.marketplaceId, async () => 'ran');
    t.strictSame(attempt, { acquired: false }, 'the exclusive lock is not granted while an ingest holds it');
    return passAt(gw, due);
  });
  t.strictSame(
    skipped,
    { selected: 1, acted: 0, swept: { stagingRefs: 0, deliveries: 0, externalCaches: 0 } },
    'selected, not purged',
  );
  t.ok(await present(repo, held.sha), 'the busy repository is untouched: its objects stay');
  t.ok(
    (await gitIn(repo, 'for-each-ref', '--format=%(refname)', 'refs/quarantine/')).includes(held.sha),
    'and its pin',
  );
  t.equal((await ledger(gw, 'snapshot-purged')).length, 0, 'no purge recorded');

  t.match(await passAt(gw, due), { selected: 1, acted: 1 }, 'released: the next pass purges it');
  t.notOk(await present(repo, held.sha), 'git cat-file -e: pruned');
  t.equal((await ledger(gw, 'snapshot-purged')).length, 1, 'recorded once');
});

t.test('another marketplace is not held up by a busy one', async (t) => {
  const gw = await startTestGateway(t, env);
  const root = session(gw, 'root');
  const snaps: Snapshot[] = [];
  for (const name of ['first', 'second']) {
    const upstream = await serveUpstream(t, marketplaceFiles(name, ['alpha']), name);
    await expectJson(t, await root.post('/api/v1/marketplaces', { name, url: upstream.url }), 201);
    const snap = await expectJson<Snapshot>(t, await root.post(`/api/v1/marketplaces/${name}/ingest`), 201);
    snaps.push(await expectJson<Snapshot>(t, await root.delete(`/api/v1/snapshots/${snap.id}`), 200));
  }
  const [busy, free] = snaps as [Snapshot, Snapshot];
  const due = Date.parse(free.purgeAfter!) - Date.now() + hour;
  const result = await gw.deps.quarantineLocks.shared(busy.marketplaceId, () => passAt(gw, due));
  t.match(result, { selected: 2, acted: 1 });
  t.ok(await present(gw.core.gitStore.quarantinePath(busy.marketplaceId), busy.sha), 'the busy one keeps its content');
  t.notOk(await present(gw.core.gitStore.quarantinePath(free.marketplaceId), free.sha), 'the other is purged');
});

t.test('ingests running while compaction passes prune the same repository keep every object', async (t) => {
  const gw = await startTestGateway(t, env);
  const root = session(gw, 'root');
  const upstream = await serveUpstream(t, marketplaceFiles('race', ['alpha']), 'race');
  await expectJson(t, await root.post('/api/v1/marketplaces', { name: 'race', url: upstream.url }), 201);
  const first = await expectJson<Snapshot>(t, await root.post('/api/v1/marketplaces/race/ingest'), 201);
  const repo = gw.core.gitStore.quarantinePath(first.marketplaceId);
  const captured: Snapshot[] = [];
  for (let round = 0; round < 4; round += 1) {
    // Each round: a new upstream commit with fresh blobs (loose objects: under fetch.unpackLimit).
    await upstream.commit({ [`plugins/alpha/notes-${round}.md`]: `round ${round}: ${'x'.repeat(round * 50)}\n` });
    const ingest = root.post('/api/v1/marketplaces/race/ingest');
    let done = false;
    void ingest.finally(() => (done = true));
    let passes = 0;
    do {
      // Before each pass an abandoned staging ref two days old, so that every pass has something to prune.
      const stale = `refs/staging/${(Date.now() - 48 * hour).toString(36)}-${round * 1000 + passes + 1}`;
      await gitIn(repo, 'update-ref', stale, orphanCommit(repo, round));
      await passAt(gw, 0);
      passes += 1;
    } while (!done);
    t.comment(`round ${round}: ${passes} compaction passes ran during the ingest`);
    captured.push(await expectJson<Snapshot>(t, await ingest, 201, `round ${round}: the ingest succeeds`));
  }
  for (const snap of [first, ...captured]) {
    const objects = (await gitIn(repo, 'rev-list', '--objects', snap.sha)).split('\n').map((l) => l.split(' ')[0]!);
    const missing = execFileSync('git', ['-C', repo, 'cat-file', '--batch-check'], {
      input: objects.join('\n') + '\n',
      encoding: 'utf8',
    })
      .split('\n')
      .filter((line) => line.endsWith(' missing'));
    t.strictSame(missing, [], `snapshot ${snap.id}: every object of its commit is present (${objects.length})`);
  }
  t.equal(await gitIn(repo, 'fsck', '--connectivity-only', '--no-dangling'), '', 'git fsck finds nothing broken');
});

/** A commit no snapshot names, with a blob of its own, as an interrupted fetch leaves it. */
function orphanCommit(repo: string, round: number): string {
  const git = (args: string[], input?: string) =>
    execFileSync('git', ['-C', repo, ...args], { input, encoding: 'utf8' }).trim();
  const blob = git(['hash-object', '-w', '--stdin'], `abandoned ${round} ${Math.random()}\n`);
  const tree = git(['mktree'], `100644 blob ${blob}\tabandoned.txt\n`);
  return git(['-c', 'user.name=up', '-c', 'user.email=up@example.test', 'commit-tree', tree, '-m', 'x']);
}
