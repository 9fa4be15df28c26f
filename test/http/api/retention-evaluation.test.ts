// The held-too-long and superseded criteria with the min-idle veto (a SHA fetched from its own marketplace through the
// facade inside the window is kept), GET /api/v1/retention/candidates (dry run, writes nothing, the selecting criterion
// on each), POST /api/v1/retention/evaluate ({selected, acted}), on retention.poll-interval when retention.enabled (on
// the leader, principal system), on demand whatever the scheduler's state. The rules (docs/retention.md): held-too-long
// selects held snapshots older than held-max-age; superseded selects held, rejected or revoked snapshots older than
// superseded-min-age when a later approved snapshot of the same marketplace exists; the min-idle veto removes any
// candidate whose SHA was fetched from its own marketplace through the facade within the window; approved snapshots are
// never eligible. Snapshots are made old by the clock port; the fetch is made with the real git client.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import t, { type Test } from 'tap';
import { trustedSql } from '../../../src/adapters/postgres/pool.ts';
import type { Clock } from '../../../src/adapters/system/clock.ts';
import { devSession } from '../../support/api.ts';
import {
  assertNothingChanged,
  day,
  eventually,
  expectProblem,
  tokenRow,
  inMs,
  ledger,
  machine,
  session,
  settle,
} from '../../support/assert.ts';
import { startTestGateway, type TestGateway } from '../../support/gateway.ts';
import { cleanMarketplace, plantedToken } from '../../support/planted.ts';
import { gitClient, serveUpstream } from '../../support/upstream.ts';

const run = promisify(execFile);
// ENFORCE: a re-vet VIOLATION revokes (the scripted estate's t1).
const env = { GATEWAY_DEV_INSECURE_AUTH: 'true', GATEWAY_ROLES_ADMINS: 'root', GATEWAY_VETTING_REVET_MODE: 'ENFORCE' };

/** The gateway's clock, `offset` ahead of the wall clock (the facade's fetches stay on the wall clock). */
function movableClock() {
  let offset = 0;
  const now = () => new Date(Date.now() + offset);
  const clock: Clock = { now, instant: () => now().toISOString() };
  return { clock, moveTo: (ms: number) => void (offset = ms) };
}

type Candidate = { snapshotId: number; marketplace: string; sha: string; state: string; criterion: string };
type Snap = { id: number; sha: string; state: string };

/** Every snapshot row, the quarantine refs of every marketplace, the store head and the ledger: what a dry run must not change. */
async function estate(gw: TestGateway) {
  const head = await settle(gw);
  const rows = await gw.core.pool.anyFirst(trustedSql(`select row_to_json(s)::text from snapshots s order by id`));
  const ids = (await gw.core.pool.anyFirst(trustedSql(`select id::text from marketplaces order by id`))) as string[];
  const refs: string[] = [];
  for (const id of ids) {
    const repo = gw.core.gitStore.quarantinePath(Number(id));
    refs.push((await run('git', ['-C', repo, 'for-each-ref', '--format=%(refname) %(objectname)'])).stdout);
  }
  return { head, rows, refs, ledger: await ledger(gw) };
}

async function ingest(t: Test, root: ReturnType<typeof devSession>, name: string): Promise<Snap> {
  const answer = await root.post(`/api/v1/marketplaces/${name}/ingest`);
  t.equal(answer.status, 201, `ingest ${name}`);
  return answer.body as Snap;
}

/**
 * The scripted estate, all captured now (the wall clock):
 * - tidy: t1 approved under a waiver, cloned by alice, revoked by a re-vet once the waiver goes; t2 (the credential
 *   gone from the tree, still in its history) approved under a waiver; t3 held, after t2.
 * - acme: a1 held; a2 approved, after it.
 * - beta: b1 rejected, no approved snapshot.
 * - gone: g0 held; g1 approved, after it; then the marketplace is removed, which withdraws g1 (revoked
 *   administratively) and leaves g0 held in a removed marketplace.
 */
async function scriptedEstate(t: Test, gw: TestGateway) {
  const root = devSession(gw, 'root');
  const tidyUp = await serveUpstream(
    t,
    cleanMarketplace({ 'plugins/tidy/notes.txt': `token for the demo:\n${plantedToken}\n` }),
    'tidy',
  );
  t.equal((await root.post('/api/v1/marketplaces', { name: 'tidy', url: tidyUp.url })).status, 201);
  const t1 = await ingest(t, root, 'tidy');
  const finding = (await root.get(`/api/v1/snapshots/${t1.id}/vetting`)).body.uncovered[0];
  const waiver = (
    await root.post(`/api/v1/snapshots/${t1.id}/waivers`, {
      ruleId: finding.ruleId,
      scope: 'SNAPSHOT',
      justification: 'demo token',
      expiresAt: inMs(3_600_000),
    })
  ).body;
  t.equal((await root.post(`/api/v1/snapshots/${t1.id}/approve`)).status, 200, 't1 approved under the waiver');
  const token = (await devSession(gw, 'alice').post('/api/v1/tokens', { name: 'laptop' })).body.token as string;
  t.ok((await gitClient(t, token).clone(`${gw.url}/git/tidy`)).ok, 'alice clones tidy at t1 (real git client)');
  await root.delete(`/api/v1/waivers/${waiver.id}`);
  t.match((await root.post(`/api/v1/snapshots/${t1.id}/revet`)).body, { revoked: true }, 't1 revoked by re-vet');
  await tidyUp.commit({ 'plugins/tidy/notes.txt': null });
  const t2 = await ingest(t, root, 'tidy');
  // t1 is no longer served, so approving t2 would serve the token again as history: vetting says so, and the
  // scripted estate accepts it under a waiver.
  const inHistory = (await root.get(`/api/v1/snapshots/${t2.id}/vetting`)).body.uncovered[0];
  t.match(inHistory, { connector: 'history', location: /^plugins\/tidy\/notes\.txt@[0-9a-f]{40}:2$/ });
  await root.post(`/api/v1/snapshots/${t2.id}/waivers`, {
    ruleId: inHistory.ruleId,
    scope: 'SNAPSHOT',
    justification: 'the demo token stays in history',
    expiresAt: inMs(400 * 86_400_000),
  });
  t.equal((await root.post(`/api/v1/snapshots/${t2.id}/approve`)).status, 200, 't2 approved');
  await tidyUp.commit({ 'plugins/tidy/CHANGES.md': 'three\n' });
  const t3 = await ingest(t, root, 'tidy');

  const acmeUp = await serveUpstream(t, cleanMarketplace(), 'acme');
  t.equal((await root.post('/api/v1/marketplaces', { name: 'acme', url: acmeUp.url })).status, 201);
  const a1 = await ingest(t, root, 'acme');
  await acmeUp.commit({ 'plugins/tidy/CHANGES.md': 'two\n' });
  const a2 = await ingest(t, root, 'acme');
  t.equal((await root.post(`/api/v1/snapshots/${a2.id}/approve`)).status, 200, 'a2 approved');

  const betaUp = await serveUpstream(t, cleanMarketplace(), 'beta');
  t.equal((await root.post('/api/v1/marketplaces', { name: 'beta', url: betaUp.url })).status, 201);
  const b1 = await ingest(t, root, 'beta');
  t.equal((await root.post(`/api/v1/snapshots/${b1.id}/reject`)).status, 200, 'b1 rejected');

  const goneUp = await serveUpstream(t, cleanMarketplace(), 'gone');
  t.equal((await root.post('/api/v1/marketplaces', { name: 'gone', url: goneUp.url })).status, 201);
  const g0 = await ingest(t, root, 'gone');
  await goneUp.commit({ 'plugins/tidy/CHANGES.md': 'two\n' });
  const g1 = await ingest(t, root, 'gone');
  t.equal((await root.post(`/api/v1/snapshots/${g1.id}/approve`)).status, 200, 'g1 approved');
  t.equal((await root.delete('/api/v1/marketplaces/gone', { reason: 'retired' })).status, 200, 'gone removed');
  return { root, t1, t2, t3, a1, a2, b1, g0, g1 };
}

const picked = (candidates: Candidate[]) => candidates.map((c) => [c.snapshotId, c.criterion]);

t.test('the criteria, the veto, the dry run and the pass over a scripted estate', async (t) => {
  const time = movableClock();
  // min-idle 60d: alice's clone (on the wall clock) stays inside the window at +40d, outside at +95d.
  const gw = await startTestGateway(t, { ...env, GATEWAY_RETENTION_MIN_IDLE: '60d' }, { clock: time.clock });
  const { root, t1, t3, a1, b1, g0, g1 } = await scriptedEstate(t, gw);
  const candidates = async (query = '') => {
    const answer = await root.get(`/api/v1/retention/candidates${query}`);
    t.equal(answer.status, 200, `candidates${query}`);
    return answer.body as Candidate[];
  };

  t.strictSame(await candidates(), [], 'nothing is old yet');

  time.moveTo(40 * day);
  t.strictSame(
    picked(await candidates()),
    [[a1.id, 'superseded']],
    'at +40d: a1 (held, a later approved a2); t1 is superseded but was fetched from tidy inside min-idle (vetoed); ' +
      "t3 is newer than tidy's approved t2; b1 is rejected with no approved snapshot in beta; g0's later " +
      'approved g1 was withdrawn with its marketplace',
  );

  const vetoed = await root.post('/api/v1/retention/evaluate?marketplace=tidy');
  t.strictSame(vetoed.body, { selected: 0, acted: 0 }, 'at +40d a pass over tidy selects nothing');
  t.match(
    (await ledger(gw, 'retention-evaluated')).at(-1),
    {
      marketplace: 'tidy',
      detail: /^selected=0 acted=0 vetoed=1 held-too-long=0 superseded=0;/,
    },
    'the veto kept t1 (superseded, fetched by alice through the facade inside min-idle)',
  );

  time.moveTo(95 * day);
  const before = await estate(gw);
  const all = await candidates();
  t.strictSame(
    picked(all),
    [
      [t1.id, 'superseded'],
      [t3.id, 'held-too-long'],
      [a1.id, 'held-too-long'],
      [g0.id, 'held-too-long'],
    ],
    'at +95d: the fetch is outside min-idle; held past held-max-age is held-too-long first; g0 held in a ' +
      'removed marketplace; g1, withdrawn, is revoked (never held) with no later approved snapshot',
  );
  t.notOk(
    all.some((c) => c.snapshotId === g1.id),
    'withdrawn g1 is no candidate',
  );
  t.match(all[0], { marketplace: 'tidy', sha: t1.sha, state: 'revoked', withdrawn: false, lastFetch: /^\d{4}-/ });
  t.strictSame(picked(await candidates('?marketplace=acme')), [[a1.id, 'held-too-long']], '?marketplace=');
  t.strictSame(
    picked(await candidates('?marketplace=gone')),
    [[g0.id, 'held-too-long']],
    '?marketplace= names a removed marketplace too',
  );
  t.strictSame(await estate(gw), before, 'the dry run changed nothing: rows, quarantine refs, store head, ledger');
  t.notOk(
    (await ledger(gw, 'retention-evaluated')).some((e) => /trigger=scheduled/.test(e.detail ?? '')),
    'gateway.retention.enabled is false: no scheduled pass',
  );

  t.test('POST evaluate soft-deletes as retention-policy and records one retention-evaluated', async (t) => {
    const acme = await root.post('/api/v1/retention/evaluate?marketplace=acme');
    t.equal(acme.status, 200);
    t.strictSame(acme.body, { selected: 1, acted: 1 });
    const rest = await root.post('/api/v1/retention/evaluate');
    t.strictSame(rest.body, { selected: 3, acted: 3 }, "g0 too: a removed marketplace's snapshot is soft-deleted");
    const rows = await gw.core.pool.any(
      trustedSql(`select id::int, deleted_reason, deleted_at is not null as deleted from snapshots order by id`),
    );
    const deleted = rows.filter((r) => r.deleted).map((r) => [r.id, r.deleted_reason]);
    t.strictSame(deleted, [
      [t1.id, 'superseded'],
      [t3.id, 'held-too-long'],
      [a1.id, 'held-too-long'],
      [g0.id, 'held-too-long'],
    ]);
    t.notOk(rows.find((r) => r.id === b1.id)?.deleted, 'b1 kept');
    const deletions = await ledger(gw, 'snapshot-soft-deleted');
    t.equal(deletions.length, 4);
    t.ok(
      deletions.every((e) => e.principal === 'retention-policy' && e.actor_type === 'system'),
      'spec, Events: policy deletions carry actor retention-policy',
    );
    t.match((await ledger(gw, 'retention-evaluated')).slice(1), [
      { principal: 'root', marketplace: 'acme', detail: /^selected=1 acted=1 vetoed=0 .*trigger=on-demand$/ },
      { principal: 'root', marketplace: '-', detail: /^selected=3 acted=3 vetoed=0 held-too-long=2 superseded=1;/ },
    ]);
    t.strictSame(await candidates(), [], 'a soft-deleted snapshot is no candidate');
    t.strictSame((await root.post('/api/v1/retention/evaluate')).body, { selected: 0, acted: 0 }, 'a pass again');
  });

  t.test('every refusal changes nothing', async (t) => {
    await root.post('/api/v1/roles', { principal: 'dana', role: 'auditor' });
    await root.post('/api/v1/roles', { principal: 'bot', role: 'admin' });
    const botIds: number[] = [];
    const bot = async (apiScopes: string[]) => {
      const minted = await root.post('/api/v1/tokens/machine', {
        principal: 'bot',
        name: `bot ${apiScopes.join(' ')}`,
        apiScopes,
        expiresAt: new Date(time.clock.now().getTime() + 10 * day).toISOString(), // on the gateway's clock
      });
      botIds.push(minted.body.id as number);
      return machine(gw, minted.body.token as string);
    };
    const reader = await bot(['retention:read']);
    const other = await bot(['audit:read']);
    // Each credential used once first: its use is recorded (token-used) at most once a minute, off the request
    // path, so it is settled before the refusals' "nothing changed" snapshots (it raced under load).
    t.equal((await reader.get('/api/v1/retention/candidates')).status, 200, 'retention:read reaches the candidates');
    t.equal((await other.get('/api/v1/audit')).status, 200, 'audit:read reaches the ledger');
    await eventually(async () =>
      (await Promise.all(botIds.map((id) => tokenRow(gw, id)))).every((row) => row?.last_used_at != null),
    );
    const refusals: Array<[string, () => Promise<Response>, number, string]> = [
      [
        'candidates by a user with no role',
        () => session(gw, 'alice').get('/api/v1/retention/candidates'),
        403,
        'forbidden',
      ],
      ['evaluate by an auditor', () => session(gw, 'dana').post('/api/v1/retention/evaluate'), 403, 'forbidden'],
      [
        'evaluate by a machine (no scope reaches it), even an admin one',
        () => reader.post('/api/v1/retention/evaluate'),
        403,
        'forbidden',
      ],
      [
        'candidates by a machine without retention:read',
        () => other.get('/api/v1/retention/candidates'),
        403,
        'forbidden',
      ],
      [
        'candidates of an unknown marketplace',
        () => session(gw, 'root').get('/api/v1/retention/candidates?marketplace=nope'),
        404,
        'marketplace-not-found',
      ],
      [
        'evaluate of an unknown marketplace',
        () => session(gw, 'root').post('/api/v1/retention/evaluate?marketplace=nope'),
        404,
        'marketplace-not-found',
      ],
    ];
    for (const [what, call, status, code] of refusals) {
      await assertNothingChanged(t, gw, async () => expectProblem(t, await call(), status, code), what);
    }
    t.equal((await session(gw, 'dana').get('/api/v1/retention/candidates')).status, 200, 'an auditor reads them');
  });
});

t.test(
  'scheduled passes (principal system); retention.superseded false and held-max-age 0 disable the criteria',
  async (t) => {
    const time = movableClock();
    time.moveTo(400 * day);
    const gw = await startTestGateway(
      t,
      {
        ...env,
        GATEWAY_RETENTION_ENABLED: 'true',
        GATEWAY_RETENTION_POLL_INTERVAL: '1s',
        GATEWAY_RETENTION_SUPERSEDED: 'false',
        GATEWAY_RETENTION_HELD_MAX_AGE: '0s',
      },
      { clock: time.clock },
    );
    const root = devSession(gw, 'root');
    const up = await serveUpstream(t, cleanMarketplace(), 'acme');
    await root.post('/api/v1/marketplaces', { name: 'acme', url: up.url });
    const a1 = await ingest(t, root, 'acme');
    await up.commit({ 'plugins/tidy/CHANGES.md': 'two\n' });
    const a2 = await ingest(t, root, 'acme');
    t.equal((await root.post(`/api/v1/snapshots/${a2.id}/approve`)).status, 200);
    const passes = async () =>
      (await ledger(gw, 'retention-evaluated')).filter((e) => /trigger=scheduled/.test(e.detail ?? ''));
    const seen = (await passes()).length;
    await eventually(async () => (await passes()).length >= seen + 2 || undefined, 10_000);
    t.match((await passes()).at(-1), { principal: 'system', actor_type: 'system', detail: /^selected=0 acted=0/ });
    t.strictSame((await root.get('/api/v1/retention/candidates')).body, [], 'a1 is held 400 days, superseded: kept');
    const row = await gw.core.pool.oneFirst(trustedSql(`select deleted_at from snapshots where id = ${a1.id}`));
    t.equal(row, null, 'a1 was not soft-deleted');
  },
);
