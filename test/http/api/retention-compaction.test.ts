import { execFileSync } from 'node:child_process';
import t, { type Test } from 'tap';
import { appendFacts } from '../../../src/adapters/eventstore/append-facts.ts';
import { sql } from '../../../src/adapters/postgres/pool.ts';
import type { Clock } from '../../../src/adapters/system/clock.ts';
import { compactionPass } from '../../../src/application/retention/compaction.duty.ts';
import { softDeleteSnapshot } from '../../../src/application/snapshots/deletion.use-case.ts';
import { fact } from '../../../src/domain/events.ts';
import type { CommandMeta } from '../../../src/domain/kernel/decider.ts';
import { streams } from '../../../src/domain/kernel/streams.ts';
import {
  assertNothingChanged,
  day,
  eventually,
  expectJson,
  expectProblem,
  hour,
  inMs,
  ledger,
  machine,
  session,
  settle,
  tokenRow,
  type Client,
} from '../../support/assert.ts';
import { startTestGateway, type TestGateway } from '../../support/gateway.ts';
import { gitIn, marketplaceFiles, serveUpstream } from '../../support/upstream.ts';

// SoftDeleted → Purged on a compaction pass once purgeAfter elapsed: quarantine
// ref removed, row deleted, ledger keeps the record; Limits: "Abandoned staging references are removed only when no
// live snapshot row names their commit and they have been observed longer than staging-ref-max-age. Webhook
// deliveries delivered or failed and last updated more than 30 days ago are swept on compaction; pending ones
// never"; Endpoints: "POST /api/v1/retention/compact: one compaction pass now; 200 {selected, acted}"; Roles:
// "retention passes: admin"; Scopes: "No scope and no role reaches: ... retention evaluate and compact".

const env = { GATEWAY_DEV_INSECURE_AUTH: 'true', GATEWAY_ROLES_ADMINS: 'root', GATEWAY_WEBHOOKS_ENABLED: 'false' };

type Snapshot = { id: number; marketplaceId: number; sha: string; state: string; purgeAfter?: string };

const meta = (): CommandMeta => ({
  principal: 'system',
  actorType: 'system',
  at: new Date().toISOString(),
  correlationId: 'compaction-test',
});

/** The clock port, `offsetMs` ahead of the system's. */
const clockAhead = (offsetMs: number): Clock => ({
  now: () => new Date(Date.now() + offsetMs),
  instant: () => new Date(Date.now() + offsetMs).toISOString(),
});

/** A compaction pass as the leader runs it, on the gateway's own ports with the clock moved `offsetMs` ahead. */
const passAt = (gw: TestGateway, offsetMs: number, retention: Partial<TestGateway['deps']['retention']> = {}) =>
  compactionPass(
    { ...gw.deps, clock: clockAhead(offsetMs), retention: { ...gw.deps.retention, ...retention } },
    meta(),
  );

const present = (repo: string, object: string) =>
  gitIn(repo, 'cat-file', '-e', object).then(
    () => true,
    () => false,
  );

const refs = async (repo: string, prefix: string) =>
  (await gitIn(repo, 'for-each-ref', '--format=%(refname)', prefix)).split('\n').filter((r) => r !== '');

async function ingested(t: Test, root: Client, name: string, status = 201): Promise<Snapshot> {
  return expectJson<Snapshot>(t, await root.post(`/api/v1/marketplaces/${name}/ingest`), status);
}

t.test('purge: the refs and the objects only the purged commit reached leave quarantine', async (t) => {
  const gw = await startTestGateway(t, env);
  const root = session(gw, 'root');
  const upstream = await serveUpstream(t, marketplaceFiles('acme', ['alpha']), 'acme');
  await expectJson(t, await root.post('/api/v1/marketplaces', { name: 'acme', url: upstream.url }), 201);
  const first = await ingested(t, root, 'acme');
  await expectJson(t, await root.post(`/api/v1/snapshots/${first.id}/approve`), 200, 'the first is approved');
  await upstream.commit({ 'plugins/alpha/notes.md': 'only the second commit has this line\n' }, 'second');
  const second = await ingested(t, root, 'acme');
  const repo = gw.core.gitStore.quarantinePath(first.marketplaceId);
  const onlySecond = await gitIn(repo, 'rev-parse', `${second.sha}:plugins/alpha/notes.md`);
  const shared = await gitIn(repo, 'rev-parse', `${second.sha}:plugins/alpha/.claude-plugin/plugin.json`);
  t.equal(shared, await gitIn(repo, 'rev-parse', `${first.sha}:plugins/alpha/.claude-plugin/plugin.json`));

  const deleted = await expectJson<Snapshot>(t, await root.delete(`/api/v1/snapshots/${second.id}`), 200);
  const due = Date.parse(deleted.purgeAfter!) - Date.now();

  t.test('inside the restore window a pass purges nothing', async (t) => {
    t.strictSame(await passAt(gw, due - hour), {
      selected: 0,
      acted: 0,
      swept: { stagingRefs: 0, deliveries: 0, externalCaches: 0 },
    });
    t.ok(await present(repo, onlySecond), 'the content stays');
    t.ok((await refs(repo, 'refs/quarantine/')).includes(`refs/quarantine/${second.sha}`), 'its ref stays');
    t.equal((await ledger(gw, 'snapshot-purged')).length, 0, 'no purge recorded');
  });

  t.test('past purgeAfter: refs removed, objects pruned, the approved commit keeps what it shares', async (t) => {
    t.match(await passAt(gw, due + hour), { selected: 1, acted: 1 });
    t.notOk((await refs(repo, 'refs/quarantine/')).includes(`refs/quarantine/${second.sha}`), 'ref removed');
    t.notOk(await present(repo, second.sha), 'git cat-file -e: the purged commit is gone');
    t.notOk(await present(repo, onlySecond), 'the blob only it reached is gone');
    t.ok(await present(repo, first.sha), 'the approved commit stays');
    t.ok(await present(repo, shared), 'a blob it shares with the approved commit stays');
    const [entry] = await ledger(gw, 'snapshot-purged');
    t.match(
      entry,
      { principal: 'system', marketplace: 'acme', detail: `snapshot ${second.id}: quarantine ref removed` },
      'the ledger keeps the record',
    );
    const row = await gw.core.pool.maybeOne(sql.unsafe`select id from snapshots where id = ${second.id}`);
    t.equal(row, null, 'the row is deleted');
  });

  t.test('a second pass finds nothing to do and records nothing', async (t) => {
    const before = await gw.core.store.head();
    t.strictSame(await passAt(gw, due + hour), {
      selected: 0,
      acted: 0,
      swept: { stagingRefs: 0, deliveries: 0, externalCaches: 0 },
    });
    t.equal(await gw.core.store.head(), before, 'no event appended');
  });
});

t.test('a pass cut off after removing the ref is finished by the next one', async (t) => {
  const gw = await startTestGateway(t, env);
  const root = session(gw, 'root');
  const upstream = await serveUpstream(t, marketplaceFiles('crash', ['alpha']), 'crash');
  await expectJson(t, await root.post('/api/v1/marketplaces', { name: 'crash', url: upstream.url }), 201);
  const held = await ingested(t, root, 'crash');
  const deleted = await expectJson<Snapshot>(t, await root.delete(`/api/v1/snapshots/${held.id}`), 200);
  const repo = gw.core.gitStore.quarantinePath(held.marketplaceId);
  // What a crashed pass leaves: the ref gone, nothing pruned, no purge recorded.
  await gitIn(repo, 'update-ref', '-d', `refs/quarantine/${held.sha}`);
  t.ok(await present(repo, held.sha), 'the objects are still there');
  t.match(await passAt(gw, Date.parse(deleted.purgeAfter!) - Date.now() + 1000), { selected: 1, acted: 1 });
  t.notOk(await present(repo, held.sha), 'pruned');
  t.equal((await ledger(gw, 'snapshot-purged')).length, 1, 'recorded once');
});

t.test("a removed marketplace's withdrawn snapshot: content purged, row kept, never selected again", async (t) => {
  const gw = await startTestGateway(t, env);
  const root = session(gw, 'root');
  const upstream = await serveUpstream(t, marketplaceFiles('gone', ['alpha']), 'gone');
  await expectJson(t, await root.post('/api/v1/marketplaces', { name: 'gone', url: upstream.url }), 201);
  const snap = await ingested(t, root, 'gone');
  await expectJson(t, await root.post(`/api/v1/snapshots/${snap.id}/approve`), 200);
  await expectJson(t, await root.request('DELETE', '/api/v1/marketplaces/gone', { reason: 'retired' }), 200);
  const deleted = await softDeleteSnapshot(gw.deps, null, snap.id, 'superseded', meta());
  const due = Date.parse(deleted.purgeAfter!) - Date.now() + 1000;
  t.match(await passAt(gw, due), { selected: 1, acted: 1 });
  const repo = gw.core.gitStore.quarantinePath(snap.marketplaceId);
  t.notOk(await present(repo, snap.sha), 'its content leaves quarantine');
  await gw.settled();
  t.ok(
    await gw.core.pool.exists(sql.unsafe`select 1 from snapshots where id = ${snap.id}`),
    'spec: "The row of an administratively withdrawn snapshot is never permanently removed"',
  );
  t.strictSame(await passAt(gw, due), {
    selected: 0,
    acted: 0,
    swept: { stagingRefs: 0, deliveries: 0, externalCaches: 0 },
  });
});

t.test("a crashed ingest's staging ref is swept only after staging-ref-max-age", async (t) => {
  const gw = await startTestGateway(t, env);
  const root = session(gw, 'root');
  const upstream = await serveUpstream(t, marketplaceFiles('stage', ['alpha']), 'stage');
  await expectJson(t, await root.post('/api/v1/marketplaces', { name: 'stage', url: upstream.url }), 201);
  const live = await ingested(t, root, 'stage');
  const repo = gw.core.gitStore.quarantinePath(live.marketplaceId);
  // An ingest cut off mid-fetch: its commit in quarantine under refs/staging/<ms, base 36>-<pid> (git-store.ts).
  const orphan = orphanCommit(repo);
  const stagingOf = (ms: number) => `refs/staging/${ms.toString(36)}-424242`;
  const abandoned = stagingOf(Date.now() - hour);
  const namesLive = stagingOf(Date.now() - 2 * hour);
  await gitIn(repo, 'update-ref', abandoned, orphan.commit);
  await gitIn(repo, 'update-ref', namesLive, live.sha);

  t.test('younger than the max age (24h by default): kept', async (t) => {
    t.match(await passAt(gw, 22 * hour), { swept: { stagingRefs: 0 } });
    t.strictSame((await refs(repo, 'refs/staging/')).sort(), [abandoned, namesLive].sort());
    t.equal((await ledger(gw, 'staging-refs-swept')).length, 0, 'nothing recorded');
  });

  t.test('zero or negative disables the sweep', async (t) => {
    t.match(await passAt(gw, 400 * day, { stagingRefMaxAgeMs: 0 }), { swept: { stagingRefs: 0 } });
    t.match(await passAt(gw, 400 * day, { stagingRefMaxAgeMs: -hour }), { swept: { stagingRefs: 0 } });
    t.equal((await refs(repo, 'refs/staging/')).length, 2);
  });

  t.test('older: removed and pruned, unless a live snapshot row names its commit', async (t) => {
    t.match(await passAt(gw, 24 * hour), { swept: { stagingRefs: 1 } });
    t.strictSame(await refs(repo, 'refs/staging/'), [namesLive], 'the ref naming a live snapshot stays');
    t.notOk(await present(repo, orphan.commit), 'the abandoned commit is pruned');
    t.notOk(await present(repo, orphan.blob), 'and its blob');
    t.ok(await present(repo, live.sha), 'the live snapshot keeps its content');
    const [entry] = await ledger(gw, 'staging-refs-swept');
    t.match(entry, { principal: 'system', detail: new RegExp(`^1 abandoned staging refs removed: .*${abandoned}`) });
  });
});

/** A commit no snapshot names, with a blob of its own, as an interrupted fetch leaves it. */
function orphanCommit(repo: string): { commit: string; blob: string } {
  const git = (args: string[], input?: string) =>
    execFileSync('git', ['-C', repo, ...args], { input, encoding: 'utf8' }).trim();
  const blob = git(['hash-object', '-w', '--stdin'], `abandoned ${Math.random()}\n`);
  const tree = git(['mktree'], `100644 blob ${blob}\tabandoned.txt\n`);
  const commit = git(['-c', 'user.name=up', '-c', 'user.email=up@example.test', 'commit-tree', tree, '-m', 'x']);
  return { commit, blob };
}

t.test('deliveries delivered or failed more than 30 days ago are swept; pending never', async (t) => {
  const gw = await startTestGateway(t, env);
  const root = session(gw, 'root');
  for (let i = 0; i < 4; i += 1)
    await expectJson(
      t,
      await root.post('/api/v1/webhooks', { url: `http://127.0.0.1:9/hook${i}`, events: ['marketplace.registered'] }),
      201,
    );
  const upstream = await serveUpstream(t, marketplaceFiles('hooks', ['alpha']), 'hooks');
  await expectJson(t, await root.post('/api/v1/marketplaces', { name: 'hooks', url: upstream.url }), 201);
  await gw.settled();
  const ids = (
    await gw.core.pool.anyFirst(sql.unsafe`select id from webhook_deliveries where state = 'pending' order by id`)
  ).map(Number);
  t.equal(ids.length, 4, 'one pending delivery per subscriber');
  // Made old by their attempts' own instants, appended as the dispatcher records them.
  const attempts: Array<['delivered' | 'failed' | 'retrying', number]> = [
    ['delivered', 40 * day],
    ['failed', 31 * day],
    ['delivered', 29 * day],
    ['retrying', 60 * day],
  ];
  for (const [index, [outcome, ago]] of attempts.entries()) {
    const at = new Date(Date.now() - ago).toISOString();
    const attempted = fact('webhook-delivery-attempted', {
      deliveryId: ids[index]!,
      attempt: 1,
      outcome,
      status: outcome === 'delivered' ? 200 : 500,
      error: outcome === 'delivered' ? null : 'HTTP 500',
      nextAttemptAt: outcome === 'retrying' ? at : null,
      at,
    });
    const metadata = { principal: 'webhook-dispatch', actorType: 'system' as const, correlationId: 'old', at };
    await appendFacts(gw.core.store, streams.delivery(ids[index]!), [attempted], metadata, 'any');
  }
  await gw.settled();

  t.match(await passAt(gw, 0), { swept: { deliveries: 2 } });
  const left = await gw.core.pool.any(sql.unsafe`select id, state from webhook_deliveries order by id`);
  t.strictSame(
    left.map((r) => [Number(r.id), r.state]),
    [
      [ids[2], 'delivered'],
      [ids[3], 'pending'],
    ],
    'the 29-day-old delivery and the pending one stay',
  );
  const [entry] = await ledger(gw, 'webhook-deliveries-swept');
  t.match(entry, { principal: 'system', detail: /^2 delivered or failed webhook deliveries last updated before / });
  const head = await gw.core.store.head();
  t.match(await passAt(gw, 0), { swept: { deliveries: 0 } });
  t.equal(await gw.core.store.head(), head, 'a pass that sweeps nothing records nothing');
});

t.test('the leader compacts on gateway.retention.compaction-interval when retention is enabled', async (t) => {
  let offsetMs = 0;
  const clock: Clock = {
    now: () => new Date(Date.now() + offsetMs),
    instant: () => new Date(Date.now() + offsetMs).toISOString(),
  };
  const scheduled = { ...env, GATEWAY_RETENTION_ENABLED: 'true', GATEWAY_RETENTION_COMPACTION_INTERVAL: '200ms' };
  const gw = await startTestGateway(t, scheduled, { clock });
  const root = session(gw, 'root');
  const upstream = await serveUpstream(t, marketplaceFiles('timed', ['alpha']), 'timed');
  await expectJson(t, await root.post('/api/v1/marketplaces', { name: 'timed', url: upstream.url }), 201);
  const held = await ingested(t, root, 'timed');
  const deleted = await expectJson<Snapshot>(t, await root.delete(`/api/v1/snapshots/${held.id}`), 200);
  t.equal((await ledger(gw, 'snapshot-purged')).length, 0, 'not purged inside the window');
  offsetMs = Date.parse(deleted.purgeAfter!) - Date.now() + 1000;
  const [entry] = await eventually(async () => {
    const entries = await ledger(gw, 'snapshot-purged');
    return entries.length > 0 && entries;
  }, 10_000);
  t.match(entry, { principal: 'system', marketplace: 'timed' }, 'purged by the scheduled pass');
  const repo = gw.core.gitStore.quarantinePath(held.marketplaceId);
  t.notOk(await present(repo, held.sha), 'and its content pruned');
});

t.test('POST /api/v1/retention/compact: admin only, no machine scope; 200 {selected, acted}', async (t) => {
  const gw = await startTestGateway(t, env);
  const root = session(gw, 'root');
  const token = await expectJson<{ id: number; token: string }>(
    t,
    await root.post('/api/v1/tokens/machine', {
      principal: 'root',
      name: 'every-scope bot',
      apiScopes: ['marketplaces:read', 'snapshots:read', 'retention:read', 'vetting:run'],
      expiresAt: inMs(10 * day),
    }),
    201,
  );
  const bot = machine(gw, token.token);
  await expectJson(t, await bot.get('/api/v1/marketplaces'), 200, 'the bot in use');
  // Its use is recorded off the request path (token-used): waited for, so the refusals below are alone.
  await eventually(async () => (await tokenRow(gw, token.id))?.last_used_at);
  await settle(gw);
  await assertNothingChanged(t, gw, async () => {
    await expectProblem(t, await session(gw, 'alice').post('/api/v1/retention/compact'), 403, 'forbidden', 'alice');
    await expectProblem(t, await bot.post('/api/v1/retention/compact'), 403, 'forbidden');
  });
  t.strictSame(await expectJson(t, await root.post('/api/v1/retention/compact'), 200), {
    selected: 0,
    acted: 0,
    swept: { stagingRefs: 0, deliveries: 0, externalCaches: 0 },
  });
});
