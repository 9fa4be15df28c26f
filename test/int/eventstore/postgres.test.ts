import t from 'tap';
import { PostgresEventStore } from '../../../src/adapters/eventstore/postgres/postgres-event-store.ts';
import { Listener } from '../../../src/adapters/postgres/listener.ts';
import { testPool } from '../../support/database.ts';
import { eventStoreContract } from './contract.ts';

const openStore = async (t: Parameters<typeof testPool>[0], pollIntervalMs = 5_000) => {
  const { pool, url } = await testPool(t);
  const listener = new Listener(url);
  t.teardown(() => listener.close());
  return PostgresEventStore.open(pool, { listener, pollIntervalMs });
};

// A long poll interval: live delivery in the contract must come from the notification.
t.test('contract', async (t) => eventStoreContract(t, (t) => openStore(t)));

t.test('positions are gap-free from 1 (DESIGN.md: gap-free global position)', async (t) => {
  const store = await openStore(t);
  const metadata = { principal: 'p', actorType: 'system' as const, correlationId: 'c', at: '2026-01-01T00:00:00.000Z' };
  await Promise.all(
    Array.from({ length: 20 }, (_, i) => store.append(`gap-${i % 3}`, [{ type: 'x', data: { i }, metadata }], 'any')),
  );
  await store.append('gap-0', [{ type: 'x', data: {}, metadata }], 'no-stream').catch(() => {});
  const positions = (await store.readAll(0n, 1000)).map((e) => e.position);
  t.strictSame(
    positions,
    Array.from({ length: 20 }, (_, i) => BigInt(i + 1)),
    'a refused append leaves no hole',
  );
});

t.test('grouped appends: one append that the database refuses fails alone', async (t) => {
  const store = await openStore(t);
  const metadata = { principal: 'p', actorType: 'system' as const, correlationId: 'c', at: '2026-01-01T00:00:00.000Z' };
  // Fired together, these travel in one grouped call; jsonb refuses the NUL character in one of them.
  const results = await Promise.allSettled(
    Array.from({ length: 12 }, (_, i) =>
      store.append(
        `group-${i}`,
        [{ type: 'x', data: { text: i === 5 ? 'bad\u0000' : `ok${i}` }, metadata }],
        'no-stream',
      ),
    ),
  );
  t.equal(results[5]?.status, 'rejected', 'the bad append is refused');
  t.equal(results.filter((r) => r.status === 'fulfilled').length, 11, 'the others commit');
  const stored = await store.readAll(0n, 100);
  t.equal(stored.length, 11);
  t.strictSame(
    stored.map((e) => e.position),
    stored.map((_, i) => BigInt(i + 1)),
    'still gap-free',
  );
  await t.rejects(
    store.append('big', [{ type: 'x', data: { n: 1n }, metadata }], 'no-stream'),
    TypeError,
    'an unserialisable event rejects, never throws',
  );
});
