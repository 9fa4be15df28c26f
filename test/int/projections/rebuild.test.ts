import t from 'tap';
import { z } from 'zod';
import { sql, trustedSql, type DatabasePool } from '../../../src/adapters/postgres/pool.ts';
import { GitStore } from '../../../src/adapters/git/git-store.ts';
import { projectionsFor, readModelTables } from '../../../src/projections/registry.ts';
import { metadata, testCore } from '../../support/core.ts';

const sha = (c: string) => c.repeat(40);

/** Every row of every read model, in primary-key order, as JSON text. */
async function dump(pool: DatabasePool): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  for (const table of readModelTables()) {
    const rows = await pool.anyFirst(trustedSql(`select row_to_json(x)::text as j from ${table} x order by 1`));
    out[table] = rows as string[];
  }
  return out;
}

/** Soft deletion, restore and purge on marketplace 2: the marks and the purge replay exactly. */
function deletionHistory() {
  const mp2 = { marketplaceId: 2, marketplace: 'tools' };
  const held = (id: number, c: string) => ({
    type: 'snapshot-captured',
    data: {
      ...mp2,
      snapshotId: id,
      sha: sha(c),
      upstreamSha: sha(c),
      state: 'held',
      violation: null,
      capturedAt: '2026-03-04T12:00:00.000Z',
      ingestedBy: 'alice',
      trigger: 'on-demand',
      committedAt: null,
      description: null,
    },
    metadata: metadata(),
  });
  const softDeleted = (id: number, c: string, reason: string, by: string) => ({
    type: 'snapshot-soft-deleted',
    data: {
      ...mp2,
      snapshotId: id,
      sha: sha(c),
      reason,
      deletedAt: '2026-03-05T12:00:00.000Z',
      deletedBy: by,
      purgeAfter: '2026-03-19T12:00:00.000Z',
    },
    metadata: metadata({ principal: by, actorType: by === 'root' ? 'human' : 'system' }),
  });
  return [
    softDeleted(11, 'd', 'superseded', 'retention-policy'),
    held(12, 'e'),
    softDeleted(12, 'e', 'manual', 'root'),
    {
      type: 'snapshot-restored',
      data: { ...mp2, snapshotId: 12, sha: sha('e'), restoredAt: '2026-03-06T12:00:00.000Z', restoredBy: 'root' },
      metadata: metadata({ principal: 'root' }),
    },
    held(13, 'f'),
    softDeleted(13, 'f', 'held-too-long', 'retention-policy'),
    {
      type: 'snapshot-purged',
      data: { ...mp2, snapshotId: 13, sha: sha('f'), withdrawn: false, purgedAt: '2026-03-20T00:00:00.000Z' },
      metadata: metadata({ principal: 'system', actorType: 'system' }),
    },
  ];
}

// Publication acts on git repositories (tested with real clones elsewhere); every other read model is here.
const readModelProjections = (t: Parameters<typeof testCore>[0]) =>
  projectionsFor({ gitStore: new GitStore(t.testdir()) }).filter((p) => p.name !== 'publication');

t.test('a rebuild from position 0 gives every read model row back identically (DESIGN.md 3)', async (t) => {
  const { pool, store, runner } = await testCore(t, { projections: readModelProjections(t) });
  const registered = (id: number, name: string) => ({
    type: 'marketplace-registered',
    data: {
      marketplaceId: id,
      name,
      origin: id % 2 ? 'upstream' : 'hosted',
      url: id % 2 ? `https://example.test/${name}.git` : null,
      pushPolicy: id % 2 ? null : 'append-only',
      registeredAt: `2026-03-0${id}T10:00:00.000Z`,
      registeredBy: 'alice',
    },
    metadata: metadata(),
  });
  await store.append('marketplace-1', [registered(1, 'acme')], 'no-stream');
  await store.append('marketplace-2', [registered(2, 'tools')], 'no-stream');
  await store.append(
    'marketplacename-acme',
    [{ type: 'marketplace-name-reserved', data: { name: 'acme', marketplaceId: 1 }, metadata: metadata() }],
    'no-stream',
  );
  for (let i = 0; i < 30; i++) {
    await store.append(
      'access-1',
      [
        {
          type: 'info-refs',
          data: { marketplaceId: 1, marketplace: 'acme', ref: 'refs/heads/main', sha: sha('a'), credentialKind: 'pat' },
          metadata: metadata({ source: `127.0.0.${i % 4}`, credentialId: i % 3, principal: `user${i % 5}` }),
        },
        {
          type: 'upload-pack',
          data: {
            marketplaceId: 1,
            marketplace: 'acme',
            credentialKind: i % 2 ? 'pat' : 'idp',
            wants: [
              { sha: sha('a'), ref: 'refs/heads/main' },
              { sha: sha('b'), ref: `refs/snapshots/${sha('b')}` },
            ],
          },
          metadata: metadata({ source: '127.0.0.9', actorType: 'machine' }),
        },
      ],
      'any',
    );
  }
  await store.append(
    'marketplace-1',
    [
      {
        type: 'marketplace-removed',
        data: {
          marketplaceId: 1,
          name: 'acme',
          reason: 'retired',
          removedAt: '2026-03-09T10:00:00.000Z',
          removedBy: 'bob',
          withdrawnSnapshotIds: [4, 5],
        },
        metadata: metadata({ principal: 'bob' }),
      },
    ],
    0n,
  );
  await store.append('marketplace-3', [registered(3, 'acme')], 'no-stream');
  await store.append('future-1', [{ type: 'not-yet-known', data: {}, metadata: metadata() }], 'no-stream');
  // Snapshots and ingest outcomes of marketplace 2.
  const snap = (id: number, c: string) => ({ ...mp2, snapshotId: id, sha: sha(c), upstreamSha: sha(c) });
  const mp2 = { marketplaceId: 2, marketplace: 'tools' };
  await store.append(
    'marketplace-2',
    [
      {
        type: 'snapshot-captured',
        data: {
          ...snap(10, 'c'),
          state: 'held',
          violation: null,
          capturedAt: '2026-03-03T10:00:00.000Z',
          ingestedBy: 'alice',
          trigger: 'on-demand',
          committedAt: '2026-03-02T10:00:00.000Z',
          description: 'Tools',
        },
        metadata: metadata(),
      },
      {
        type: 'ingest-succeeded',
        data: {
          ...mp2,
          at: '2026-03-03T10:00:00.000Z',
          snapshotId: 10,
          sha: sha('c'),
          created: true,
          trigger: 'on-demand',
        },
        metadata: metadata(),
      },
      {
        type: 'snapshot-approved',
        data: {
          ...mp2,
          snapshotId: 10,
          sha: sha('c'),
          approvedAt: '2026-03-03T11:00:00.000Z',
          approvedBy: 'bob',
          overrideReason: null,
        },
        metadata: metadata({ principal: 'bob' }),
      },
      {
        type: 'snapshot-captured',
        data: {
          ...snap(11, 'd'),
          state: 'rejected',
          violation: 'plugin source escapes',
          capturedAt: '2026-03-04T10:00:00.000Z',
          ingestedBy: 'scheduler',
          trigger: 'scheduled',
          committedAt: null,
          description: null,
        },
        metadata: metadata({ principal: 'scheduler', actorType: 'system' }),
      },
      {
        type: 'ingest-failed',
        data: {
          ...mp2,
          at: '2026-03-05T10:00:00.000Z',
          reason: 'upstream unreadable',
          rootCause: 'connection refused',
          nextStep: 'check the URL',
          trigger: 'webhook',
        },
        metadata: metadata({ principal: 'webhook', actorType: 'system' }),
      },
      {
        type: 'snapshot-revoked',
        data: {
          ...snap(10, 'c'),
          reason: 'secret found',
          administrative: false,
          revokedAt: '2026-03-06T10:00:00.000Z',
          revokedBy: 'revet-policy',
        },
        metadata: metadata({ principal: 'revet-policy', actorType: 'system' }),
      },
      // Deletion marks come from events. 11 stays soft-deleted, 12 is restored, 13 purged.
      ...deletionHistory(),
      {
        type: 'marketplace-push-scopes-removed',
        data: { marketplaceId: 2, name: 'tools', tokenIds: [20] },
        metadata: metadata(),
      },
    ],
    'any',
  );
  // Tokens and roles.
  const issued = (id: number, kind: string, extra: Record<string, unknown> = {}) => ({
    type: 'token-issued',
    data: {
      tokenId: id,
      kind,
      owner: 'alice',
      principal: kind === 'machine' ? 'ci-bot' : 'alice',
      name: `t${id}`,
      digest: `d${id}`,
      scopes: ['tools'],
      pushScopes: kind === 'personal' ? ['tools'] : [],
      apiScopes: kind === 'machine' ? ['audit:read'] : [],
      expiresAt: '2027-01-01T00:00:00.000Z',
      rotatedFrom: null,
      issuedAt: '2026-03-01T10:00:00.000Z',
      issuedBy: 'alice',
      ...extra,
    },
    metadata: metadata(),
  });
  await store.append(
    'token-20',
    [
      issued(20, 'personal'),
      { type: 'token-used', data: { tokenId: 20, usedAt: '2026-03-02T10:00:00.000Z' }, metadata: metadata() },
    ],
    'no-stream',
  );
  await store.append(
    'token-21',
    [
      issued(21, 'machine'),
      {
        type: 'token-revoked',
        data: {
          tokenId: 21,
          kind: 'machine',
          owner: 'alice',
          principal: 'ci-bot',
          name: 't21',
          cause: 'rotated',
          revokedAt: '2026-03-03T10:00:00.000Z',
          revokedBy: 'alice',
        },
        metadata: metadata(),
      },
    ],
    'no-stream',
  );
  await store.append('token-22', [issued(22, 'machine', { rotatedFrom: 21 })], 'no-stream');
  await store.append(
    'roles-grants',
    [
      {
        type: 'role-granted',
        data: {
          grantId: 1,
          principal: 'bob',
          role: 'approver',
          marketplace: 'tools',
          marketplaceId: 2,
          grantedBy: 'alice',
          grantedAt: '2026-03-01T10:00:00.000Z',
        },
        metadata: metadata(),
      },
      {
        type: 'role-granted',
        data: {
          grantId: 2,
          principal: 'carol',
          role: 'auditor',
          marketplace: null,
          marketplaceId: null,
          grantedBy: 'alice',
          grantedAt: '2026-03-01T10:00:00.000Z',
        },
        metadata: metadata(),
      },
      {
        type: 'role-revoked',
        data: {
          grantId: 2,
          principal: 'carol',
          role: 'auditor',
          marketplace: null,
          marketplaceId: null,
          revokedBy: 'alice',
          revokedAt: '2026-03-02T10:00:00.000Z',
        },
        metadata: metadata(),
      },
    ],
    'no-stream',
  );
  await store.append(
    'reads-roles',
    [
      {
        type: 'roles-read',
        data: { grants: 1 },
        metadata: metadata({ credentialId: 22, actorType: 'machine', principal: 'ci-bot' }),
      },
    ],
    'no-stream',
  );

  // Vetting runs, chain settings, toggles, waivers and policy rules.
  const verdict = {
    verdictId: 1,
    connector: 'secrets',
    position: 0,
    state: 'FAIL',
    detail: null,
    reportUrl: null,
    findings: [{ id: 'secrets-aws', severity: 'HIGH', location: 'plugins/a/x.env:3', message: 'key' }],
  };
  const meta = metadata();
  const day = (d: number, hour = 10) => `2026-03-${String(d).padStart(2, '0')}T${hour}:00:00.000Z`;
  const run = {
    runId: 7,
    snapshotId: 10,
    ...mp2,
    sha: sha('c'),
    trigger: 'ingestion',
    outcome: 'BLOCKED',
    mode: 'run-all',
  };
  await store.append(
    'vetting-10',
    [
      {
        type: 'vetting-completed',
        metadata: meta,
        data: { ...run, startedAt: day(3), finishedAt: day(3, 11), chain: ['secrets'], verdicts: [verdict] },
      },
    ],
    'no-stream',
  );
  const toggled = (vetter: string, marketplaceId: number | null, enabled: boolean) => ({
    vetter,
    scope: marketplaceId === null ? 'global' : 'marketplace',
    marketplaceId,
    marketplace: marketplaceId === null ? null : 'tools',
    enabled,
    reason: 'why',
  });
  await store.append(
    'vettingsettings-global',
    [
      { type: 'vetting-chain-order-changed', data: { order: ['secrets', 'manifest'], reason: 'r' }, metadata: meta },
      { type: 'vetting-chain-mode-changed', data: { mode: 'stop-on-failure', reason: 'r' }, metadata: meta },
      {
        type: 'vetter-toggled',
        metadata: { ...meta, principal: 'carol', at: day(4) },
        data: toggled('secrets', null, false),
      },
      { type: 'vetter-toggled', data: toggled('license', 2, true), metadata: meta },
    ],
    'no-stream',
  );
  const waiverOf = { ...mp2, ruleId: 'secrets-aws' };
  const waiver = (id: number) => ({
    waiverId: id,
    ...waiverOf,
    snapshotId: 10,
    scope: 'PATH',
    scopeValue: 'plugins/a',
    justification: 'test key',
    approvedBy: 'bob',
    createdAt: day(3, 12),
    expiresAt: day(10, 12),
  });
  await store.append(
    'waivers-2',
    [
      { type: 'waiver-created', data: waiver(30), metadata: meta },
      { type: 'waiver-created', data: waiver(31), metadata: meta },
      {
        type: 'waiver-revoked',
        data: { waiverId: 30, ...waiverOf, revokedAt: day(4), revokedBy: 'b' },
        metadata: meta,
      },
      { type: 'waiver-lapsed', data: { waiverId: 31, ...waiverOf, expiresAt: day(10, 12) }, metadata: meta },
    ],
    'no-stream',
  );
  const rule = (id: number, name: string) => ({
    ruleId: id,
    name,
    description: 'd',
    expression: 'size(hooks) > 0',
    enabled: true,
  });
  const created = { createdBy: 'root', createdAt: day(1) };
  await store.append(
    'policyrules-global',
    [
      { type: 'policy-rule-created', data: { ...rule(1, 'no-hooks'), ...created }, metadata: meta },
      { type: 'policy-rule-created', data: { ...rule(2, 'gone'), ...created }, metadata: meta },
      {
        type: 'policy-rule-updated',
        metadata: meta,
        data: { ...rule(1, 'no-hooks'), enabled: false, updatedBy: 'bob', updatedAt: day(2) },
      },
      { type: 'policy-rule-deleted', data: { ruleId: 2, name: 'gone' }, metadata: meta },
    ],
    'no-stream',
  );

  const head = await runner.catchUp();
  t.equal(head, await store.head(), 'caught up to the head');
  const before = await dump(pool);
  t.equal(before.vetting_runs?.length, 1);
  t.strictSame(before.vetting_settings, ['{"id":1,"mode":"stop-on-failure","chain_order":["secrets", "manifest"]}']);
  t.equal(before.vetter_toggles?.length, 2);
  t.match(before.waivers, [/"revoked_by":"b".*"lapse_recorded":false/, /"revoked_at":null.*"lapse_recorded":true/]);
  t.match(before.policy_rules, [/"enabled":false,"created_by":"root".*"updated_by":"bob"/]);
  t.equal(before.policy_rules?.length, 1);
  t.equal(before.marketplaces?.length, 3);
  t.equal(before.snapshots?.length, 3, 'snapshot 13 purged: its row is gone');
  t.match(
    before.snapshots?.[1],
    /"id":11,.*"deleted_at":"2026-03-05T12:00:00\+00:00","deleted_reason":"superseded","purge_after":"2026-03-19T12:00:00\+00:00"/,
  );
  t.match(before.snapshots?.[2], /"id":12,.*"deleted_at":null,"deleted_reason":null,"purge_after":null/);
  t.match(before.purged_snapshots, [/"id":13,"marketplace_id":2/]);
  t.equal(before.access_tokens?.length, 3);
  t.equal(before.role_grants?.length, 1);
  t.ok(
    (before.ledger_entries?.length ?? 0) > 2 + 30 * 3 + 2,
    'ledger: registrations, 30 info-refs, 60 upload-pack wants, removal, lifecycle, tokens, roles',
  );
  const ids = await pool.anyFirst(sql.type(z.object({ id: z.bigint() }))`select id from ledger_entries order by id`);
  t.strictSame(
    ids,
    ids.map((_, i) => BigInt(i + 1)),
    'ledger ids are 1..n in event order',
  );
  const removed = await pool.one(sql.type(
    z.object({ detail: z.string(), principal: z.string(), marketplace_id: z.bigint() }),
  )`
    select detail, principal, marketplace_id from ledger_entries where event = 'marketplace-removed'`);
  t.strictSame(removed, { detail: 'withdrew 2 approved snapshots; retired', principal: 'bob', marketplace_id: 1n });

  const reached = await runner.rebuild();
  t.equal(reached, head);
  t.strictSame(await dump(pool), before, 'identical rows, ids and timestamps after the rebuild');
  const status = await runner.status();
  t.ok(
    status.every((s) => s.lag === 0n && s.position === head),
    'every checkpoint at the head',
  );
});

t.test('a version bump rebuilds that projection alone at prepare()', async (t) => {
  const { pool, store, runner } = await testCore(t, { projections: readModelProjections(t) });
  await store.append(
    'marketplace-1',
    [
      {
        type: 'marketplace-registered',
        data: {
          marketplaceId: 1,
          name: 'acme',
          origin: 'hosted',
          url: null,
          pushPolicy: 'append-only',
          registeredAt: '2026-03-01T10:00:00.000Z',
          registeredBy: 'a',
        },
        metadata: metadata(),
      },
    ],
    'no-stream',
  );
  await runner.catchUp();
  await pool.query(sql.unsafe`update projection_checkpoints set version = 0 where name = 'marketplaces'`);
  t.strictSame(await runner.prepare(), ['marketplaces'], 'only the projection whose version differs');
  t.equal((await runner.status()).find((s) => s.name === 'marketplaces')?.position, 0n, 'its checkpoint is back at 0');
  await runner.catchUp();
  t.equal(await pool.oneFirst(sql.unsafe`select count(*)::int from marketplaces`), 1, 'and it refills from the store');
});
