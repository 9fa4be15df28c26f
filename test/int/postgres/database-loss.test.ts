import { mkdtempSync, chmodSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import pino from 'pino';
import t from 'tap';
import { AdvisoryLock } from '../../../src/adapters/postgres/advisory-lock.ts';
import { startEmbeddedPostgres } from '../../../src/adapters/postgres/embedded.ts';
import { Listener } from '../../../src/adapters/postgres/listener.ts';
import { openPool, sql } from '../../../src/adapters/postgres/pool.ts';
import { isDatabaseUnavailable } from '../../../src/adapters/postgres/unavailable.ts';
import { isAlive } from '../../../src/adapters/system/data-dir-lock.ts';
import { Leadership } from '../../../src/projections/runner/leader.ts';

// A PostgreSQL server of this test's own, killed and brought back: the errors its loss produces are
// classified as "database unavailable" and those of a healthy server are not; the pool, the LISTEN
// connection and the leader lock (the parts an external database relies on) come back on their own.

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const rejection = async (promise: Promise<unknown>): Promise<unknown> => {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
};
async function until<T>(what: string, probe: () => Promise<T | null | false>): Promise<T> {
  for (let attempt = 0; attempt < 300; attempt++) {
    const value = await probe().catch(() => null);
    if (value !== null && value !== false) return value;
    await delay(100);
  }
  throw new Error(`gave up waiting for ${what}`);
}

t.test('the loss of the database is recognised, and pool, LISTEN and leader lock recover', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'gateway-loss-pg-'));
  chmodSync(dir, 0o755); // the server runs as the postgres user when the tests run as root
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const restarts: number[] = [];
  const server = await startEmbeddedPostgres({
    directory: join(dir, 'postgres'),
    log: () => {},
    supervision: { onRestarted: (attempt) => restarts.push(attempt) },
  });
  t.teardown(() => server.stop());
  const pool = await openPool(server.url, { maximumPoolSize: 3 });
  t.teardown(() => pool.end());

  // A healthy server's failures are the request's, not the database's.
  await pool.query(sql.unsafe`create table loss_probe (id int primary key)`);
  await pool.query(sql.unsafe`insert into loss_probe values (1)`);
  const healthy = [
    await rejection(pool.query(sql.unsafe`insert into loss_probe values (1)`)),
    await rejection(pool.query(sql.unsafe`select from no_such_table`)),
    await rejection(pool.query(sql.unsafe`select 1/0`)),
    await rejection(
      pool.transaction(async (tx) => {
        await tx.query(sql.unsafe`set local statement_timeout = 1`);
        await tx.query(sql.unsafe`select pg_sleep(1)`);
      }),
    ),
    new Error('something else'),
    new TypeError('x is undefined'),
    null,
    'a string',
  ];
  for (const error of healthy) t.notOk(isDatabaseUnavailable(error), `not unavailable: ${String(error)}`);

  // A backend terminated under a connection of the pool (57P01, slonik's BackendTerminatedError).
  const terminated = await rejection(
    pool.connect(async (connection) => {
      const pid = await connection.oneFirst(sql.unsafe`select pg_backend_pid()`);
      await pool.query(sql.unsafe`select pg_terminate_backend(${pid as number})`);
      await connection.query(sql.unsafe`select 1`);
    }),
  );
  t.ok(isDatabaseUnavailable(terminated), `a terminated backend: ${String(terminated)}`);

  // A connection that never completes: pg's connection timeout.
  const silent = createServer(() => {});
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  t.teardown(() => silent.close());
  const silentPort = (silent.address() as { port: number }).port;
  const timedOut = await rejection(
    new pg.Client({ host: '127.0.0.1', port: silentPort, connectionTimeoutMillis: 200 }).connect(),
  );
  t.ok(isDatabaseUnavailable(timedOut), `a connection timeout: ${String(timedOut)}`);

  const notifications: string[] = [];
  const listener = new Listener(server.url);
  t.teardown(() => listener.close());
  await listener.on('loss_channel', (payload) => notifications.push(payload));
  let starts = 0;
  let stops = 0;
  const lock = new AdvisoryLock(server.url, 4242n);
  const leadership = new Leadership(
    lock,
    [{ start: () => void starts++, stop: async () => void stops++ }],
    pino({ level: 'silent' }),
    200,
  );
  t.ok(await leadership.start(), 'leading before the loss');
  t.teardown(() => leadership.stop());

  const postmaster = Number.parseInt(readFileSync(join(dir, 'postgres', 'postmaster.pid'), 'utf8'), 10);
  process.kill(postmaster, 'SIGKILL');
  while (isAlive(postmaster)) await delay(5);
  const lost = await rejection(pool.query(sql.unsafe`select 1`));
  t.ok(isDatabaseUnavailable(lost), `a query while the server is gone: ${String(lost)}`);
  const refused = await rejection(new pg.Client({ connectionString: server.url }).connect());
  t.ok(isDatabaseUnavailable(refused), `a connection while the server is gone: ${String(refused)}`);

  await until('the restart', async () => restarts.length > 0);
  t.equal(
    await until('the pool', () => pool.oneFirst(sql.unsafe`select count(*)::int from loss_probe`)),
    1,
    'the pool reconnects on the same URL and the data survived (crash recovery)',
  );
  t.ok(await until('the leader lock', async () => starts === 2 && leadership.isLeader), 'the leader lock is re-taken');
  t.equal(stops, 1, 'the duties stopped once when the lock was lost');
  await until('the LISTEN connection', async () => listener.connected);
  await until('a notification', async () => {
    await pool.query(sql.unsafe`select pg_notify('loss_channel', 'after')`);
    await delay(50);
    return notifications.includes('after');
  });
  t.ok(notifications.includes('after'), 'notifications arrive again: the channel was listened to anew');
  const holder = new AdvisoryLock(server.url, 4242n);
  t.notOk(await holder.tryAcquire(() => {}), 'the lock is really held by the leader again');
  await holder.release();
});
