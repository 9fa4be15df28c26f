import t from 'tap';
import { z } from 'zod';
import { sql, trustedSql, type DatabasePool } from '../../../src/adapters/postgres/pool.ts';
import { readModelTables } from '../../../src/projections/registry.ts';
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

t.test('a rebuild from position 0 gives every read model row back identically (DESIGN.md 3)', async (t) => {
  const { pool, store, runner } = await testCore(t);
  const registered = (id: number, name: string) => ({
    type: 'marketplace-registered',
    data: { marketplaceId: id, name, origin: id % 2 ? 'upstream' : 'hosted', url: id % 2 ? `https://example.test/${name}.git` : null, pushPolicy: id % 2 ? null : 'append-only', registeredAt: `2026-03-0${id}T10:00:00.000Z`, registeredBy: 'alice' },
    metadata: metadata(),
  });
  await store.append('marketplace-1', [registered(1, 'acme')], 'no-stream');
  await store.append('marketplace-2', [registered(2, 'tools')], 'no-stream');
  await store.append('marketplacename-acme', [{ type: 'marketplace-name-reserved', data: { name: 'acme', marketplaceId: 1 }, metadata: metadata() }], 'no-stream');
  for (let i = 0; i < 30; i++) {
    await store.append('access-1', [
      { type: 'info-refs', data: { marketplaceId: 1, marketplace: 'acme', ref: 'refs/heads/main', sha: sha('a'), credentialKind: 'pat' }, metadata: metadata({ source: `127.0.0.${i % 4}`, credentialId: i % 3, principal: `user${i % 5}` }) },
      { type: 'upload-pack', data: { marketplaceId: 1, marketplace: 'acme', credentialKind: i % 2 ? 'pat' : 'idp', wants: [{ sha: sha('a'), ref: 'refs/heads/main' }, { sha: sha('b'), ref: `refs/snapshots/${sha('b')}` }] }, metadata: metadata({ source: '127.0.0.9', actorType: 'machine' }) },
    ], 'any');
  }
  await store.append('marketplace-1', [{ type: 'marketplace-removed', data: { marketplaceId: 1, name: 'acme', reason: 'retired', removedAt: '2026-03-09T10:00:00.000Z', removedBy: 'bob', withdrawnSnapshotIds: [4, 5] }, metadata: metadata({ principal: 'bob' }) }], 0n);
  await store.append('marketplace-3', [registered(3, 'acme')], 'no-stream');
  await store.append('future-1', [{ type: 'not-yet-known', data: {}, metadata: metadata() }], 'no-stream');

  const head = await runner.catchUp();
  t.equal(head, await store.head(), 'caught up to the head');
  const before = await dump(pool);
  t.equal(before.ledger_entries?.length, 2 + 30 * 3 + 2, 'ledger: registrations, 30 info-refs, 60 upload-pack wants, removal, re-registration');
  t.equal(before.marketplaces?.length, 3);
  const ids = await pool.anyFirst(sql.type(z.object({ id: z.bigint() }))`select id from ledger_entries order by id`);
  t.strictSame(ids, ids.map((_, i) => BigInt(i + 1)), 'ledger ids are 1..n in event order');
  const removed = await pool.one(sql.type(z.object({ detail: z.string(), principal: z.string(), marketplace_id: z.bigint() }))`
    select detail, principal, marketplace_id from ledger_entries where event = 'marketplace-removed'`);
  t.strictSame(removed, { detail: 'withdrew 2 approved snapshots; retired', principal: 'bob', marketplace_id: 1n });

  const reached = await runner.rebuild();
  t.equal(reached, head);
  t.strictSame(await dump(pool), before, 'identical rows, ids and timestamps after the rebuild');
  const status = await runner.status();
  t.ok(status.every((s) => s.lag === 0n && s.position === head), 'every checkpoint at the head');
});

t.test('a version bump rebuilds that projection alone at prepare()', async (t) => {
  const { pool, store, runner } = await testCore(t);
  await store.append('marketplace-1', [{ type: 'marketplace-registered', data: { marketplaceId: 1, name: 'acme', origin: 'hosted', url: null, pushPolicy: 'append-only', registeredAt: '2026-03-01T10:00:00.000Z', registeredBy: 'a' }, metadata: metadata() }], 'no-stream');
  await runner.catchUp();
  await pool.query(sql.unsafe`update projection_checkpoints set version = 0 where name = 'marketplaces'`);
  t.strictSame(await runner.prepare(), ['marketplaces'], 'only the projection whose version differs');
  t.equal((await runner.status()).find((s) => s.name === 'marketplaces')?.position, 0n, 'its checkpoint is back at 0');
  await runner.catchUp();
  t.equal(await pool.oneFirst(sql.unsafe`select count(*)::int from marketplaces`), 1, 'and it refills from the store');
});
