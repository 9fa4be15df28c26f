// The addressed snapshot and the approval's inputs are read in one statement that builds each record in SQL:
// every record must equal the one the table's own query gives (timestamps with microseconds, nulls, json
// columns, removed marketplaces, a grant on a removed marketplace, a purged withdrawn snapshot).
import t from 'tap';
import { GitStore } from '../../../src/adapters/git/git-store.ts';
import { sql } from '../../../src/adapters/postgres/pool.ts';
import { marketplaceById } from '../../../src/projections/marketplaces/marketplaces.queries.ts';
import { policyRules } from '../../../src/projections/policy/policy.queries.ts';
import { projectionsFor } from '../../../src/projections/registry.ts';
import { grantsOf } from '../../../src/projections/roles/roles.queries.ts';
import { addressedRead, approvalRead } from '../../../src/projections/snapshots/addressed.queries.ts';
import { snapshotById, withdrawnShas } from '../../../src/projections/snapshots/snapshots.queries.ts';
import { latestRun, waiversOf } from '../../../src/projections/vetting/vetting.queries.ts';
import { testCore } from '../../support/core.ts';

const tables = ['snapshots', 'marketplaces', 'roles', 'vetting', 'policy'];

t.test('the one-statement reads give the records the tables’ own queries give', async (t) => {
  const projections = projectionsFor({ gitStore: new GitStore(t.testdir()) }).filter((p) => tables.includes(p.name));
  const { pool } = await testCore(t, { projections });
  await pool.query(sql.unsafe`
    insert into marketplaces (id, name, origin, url, created_at, registered_by, removed_at, description,
      upstream_updated_at, last_ingest_at, last_ingest_outcome, last_ingest_reason, sync_mode, selection) values
    (1, 'acme', 'upstream', 'https://example.test/acme.git', '2026-03-01 10:00:00.123456+00', 'root',
      '2026-03-05 09:00:00.999999+00', 'the first acme', null, '2026-03-04 11:11:11.5+00', 'failed', 'gone', 'scheduled',
      '{"include": ["code-*"], "exclude": [], "setAt": "2026-03-02T10:00:00.000Z", "setBy": "root"}'),
    (2, 'acme', 'upstream', 'https://example.test/acme.git', '2026-03-06 10:00:00+00', 'root', null, null,
      '2026-03-06 10:00:00.000001+00', null, null, null, 'on-demand', null)`);
  await pool.query(sql.unsafe`
    insert into snapshots (id, marketplace_id, sha, upstream_sha, state, violation, created_at, ingested_by, decided_by,
      decided_at, decision_reason, approved_at, revoked_by, revoked_at, administrative, deleted_at, deleted_reason,
      purge_after, unresolved, left_out) values
    (10, 1, ${'a'.repeat(40)}, ${'a'.repeat(40)}, 'revoked', null, '2026-03-01 10:00:01.000500+00', 'root', 'bob',
      '2026-03-01 12:00:00+00', null, '2026-03-01 12:00:00+00', 'carol', '2026-03-02 12:00:00.777777+00', true,
      '2026-03-03 00:00:00+00', 'withdrawn', '2026-03-10 00:00:00+00', '[]', '[]'),
    (20, 2, ${'b'.repeat(40)}, ${'c'.repeat(40)}, 'held', 'too big', '2026-03-06 10:00:01.654321+00', null, null,
      null, null, null, null, null, false, null, null, null,
      '[{"plugin": "gone", "source": {"source": "github", "repo": "o/r"}, "reason": "404"}]',
      '[{"plugin": "legacy", "reason": "excluded"}]'),
    (21, 2, ${'a'.repeat(40)}, ${'a'.repeat(40)}, 'rejected', null, '2026-03-06 10:00:02+00', null, null,
      null, null, null, null, null, true, null, null, null, '[]', '[]')`);
  await pool.query(sql.unsafe`
    insert into purged_snapshots (id, marketplace_id, sha, purged_at) values (10, 1, ${'a'.repeat(40)}, '2026-03-11 00:00:00.000123+00')`);
  await pool.query(sql.unsafe`
    insert into role_grants (id, principal, role, marketplace, marketplace_id, granted_by, granted_at) values
    (1, 'alice', 'approver', 'acme', 1, 'root', '2026-03-01 10:00:00.5+00'),
    (2, 'alice', 'approver', 'acme', 2, 'root', '2026-03-06 10:00:00.25+00'),
    (3, 'alice', 'auditor', null, null, 'root', '2026-03-06 10:00:00+00'),
    (4, 'bob', 'admin', null, null, 'root', '2026-03-06 10:00:00+00')`);
  await pool.query(sql.unsafe`
    insert into vetting_runs (run_id, snapshot_id, marketplace_id, sha, trigger, outcome, mode, started_at, finished_at,
      chain, verdicts) values
    (1, 20, 2, ${'b'.repeat(40)}, 'ingest', 'BLOCKED', 'all', '2026-03-06 10:00:03+00', '2026-03-06 10:00:04+00',
      '["secrets"]', '[{"connector": "secrets", "state": "FAIL", "findings": []}]'),
    (2, 20, 2, ${'b'.repeat(40)}, 're-vet', 'PASSED', 'all', '2026-03-06 11:00:03.123999+00',
      '2026-03-06 11:00:04.000001+00', '["secrets", "license"]', '[]')`);
  await pool.query(sql.unsafe`
    insert into waivers (id, marketplace_id, marketplace, snapshot_id, rule_id, scope, scope_value, justification,
      approved_by, created_at, expires_at, revoked_at, revoked_by) values
    (1, 2, 'acme', 20, 'secrets/aws', 'snapshot', ${'b'.repeat(40)}, 'a test key', 'bob', '2026-03-06 10:30:00.1+00',
      '2026-04-06 10:30:00+00', null, null),
    (2, 2, 'acme', 20, 'license/none', 'plugin', 'tool', 'internal', 'bob', '2026-03-06 10:31:00+00',
      '2026-04-06 10:31:00+00', '2026-03-07 00:00:00.999+00', 'carol'),
    (3, 1, 'acme', 10, 'secrets/aws', 'snapshot', ${'a'.repeat(40)}, 'other marketplace', 'bob',
      '2026-03-01 10:30:00+00', '2026-04-01 10:30:00+00', null, null)`);
  await pool.query(sql.unsafe`
    insert into policy_rules (id, name, description, expression, enabled, created_by, created_at, updated_by,
      updated_at) values
    (1, 'zeta', 'off', 'true', false, 'root', '2026-03-01 10:00:00+00', null, null),
    (2, 'beta', 'on', 'plugins.size() < 300', true, 'root', '2026-03-01 10:00:00.000009+00', 'bob',
      '2026-03-02 10:00:00.0101+00'),
    (3, 'alpha', 'on', 'true', true, 'root', '2026-03-01 10:00:00+00', null, null)`);

  for (const id of [10, 20, 21]) {
    const snapshot = await snapshotById(pool, id);
    const marketplace = await marketplaceById(pool, snapshot!.marketplaceId);
    const addressed = await addressedRead(pool, id);
    t.strictSame(addressed.snapshot, snapshot, `snapshot ${id}`);
    t.strictSame(addressed.marketplace, marketplace, `the marketplace of snapshot ${id}`);
    t.equal(addressed.purgedAt, id === 10 ? '2026-03-11T00:00:00.000Z' : null, `the purge of snapshot ${id}`);

    for (const principal of ['alice', 'bob', 'nobody']) {
      const read = await approvalRead(pool, id, principal);
      t.strictSame(
        { snapshot: read.snapshot, marketplace: read.marketplace, purgedAt: read.purgedAt },
        addressed,
        `the same address ${id}`,
      );
      t.strictSame(read.grants, await grantsOf(pool, principal), `${principal}'s grants (${id})`);
      t.strictSame(read.run, await latestRun(pool, id), `the latest run of ${id}`);
      t.strictSame(read.waivers, await waiversOf(pool, marketplace!.id), `the waivers of ${id}'s marketplace`);
      t.strictSame(
        [...read.withdrawnShas].sort(),
        (await withdrawnShas(pool, marketplace!.name)).sort(),
        `the withdrawn commits of ${id}'s name`,
      );
      t.strictSame(read.rules, await policyRules(pool, true), 'the enabled rules');
    }
  }
  t.strictSame(
    (await approvalRead(pool, 20, 'alice')).grants.map((g) => g.grantId),
    [2, 3],
    'none on the removed one',
  );

  const unknown = await approvalRead(pool, 99, 'alice');
  t.strictSame(
    { snapshot: unknown.snapshot, marketplace: unknown.marketplace, purgedAt: unknown.purgedAt, run: unknown.run },
    { snapshot: null, marketplace: null, purgedAt: null, run: null },
    'an unknown snapshot reads as nothing',
  );
  t.strictSame(await addressedRead(pool, 99), { snapshot: null, marketplace: null, purgedAt: null });
});
