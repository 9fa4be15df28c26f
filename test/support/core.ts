import pino from 'pino';
import type { Test } from 'tap';
import type { NewEvent } from '../../src/adapters/eventstore/port.ts';
import { PostgresEventStore } from '../../src/adapters/eventstore/postgres/postgres-event-store.ts';
import { Listener } from '../../src/adapters/postgres/listener.ts';
import { projections as allProjections } from '../../src/projections/registry.ts';
import type { Projection } from '../../src/projections/runner/projection.ts';
import { ProjectionRunner } from '../../src/projections/runner/runner.ts';
import { ProjectionWaiter } from '../../src/projections/runner/wait-for.ts';
import { testPool } from './database.ts';

export const silentLogger = pino({ level: 'silent' });

/** Event store, runner and waiter on a database of the test's own. */
export async function testCore(t: Test, options: { projections?: readonly Projection[]; waitTimeoutMs?: number } = {}) {
  const { pool, url } = await testPool(t);
  const listener = new Listener(url);
  t.teardown(() => listener.close());
  const store = await PostgresEventStore.open(pool, { listener });
  const projections = options.projections ?? allProjections;
  const runner = new ProjectionRunner(pool, store, projections, { batchSize: 100, idlePollMs: 1000, logger: silentLogger });
  await runner.prepare();
  const waiter = new ProjectionWaiter(pool, listener, projections.map((p) => p.name), { timeoutMs: options.waitTimeoutMs ?? 5000 });
  await waiter.start();
  t.teardown(async () => { waiter.stop(); await runner.stop(); });
  return { pool, url, listener, store, runner, waiter };
}

export const metadata = (overrides: Partial<NewEvent['metadata']> = {}): NewEvent['metadata'] => ({
  principal: 'alice', actorType: 'human', correlationId: 'corr', at: '2026-03-01T10:00:00.000Z', ...overrides,
});
