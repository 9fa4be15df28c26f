import t from 'tap';
import { z } from 'zod';
import { migrate } from '../../../src/adapters/postgres/migrate.ts';
import { openPool, sql } from '../../../src/adapters/postgres/pool.ts';
import { testPool } from '../../support/database.ts';

const migrations = [
  { version: 1, name: 'one', statements: ['create table es.m_one (id int primary key)'] },
  { version: 2, name: 'two', statements: ['insert into es.m_one values (1)', 'create table es.m_two (id int)'] },
];

t.test('migrations apply once, in order, also when two processes start together', async (t) => {
  const { pool, url } = await testPool(t, { empty: true });
  const other = await openPool(url);
  t.teardown(() => other.end());
  const [a, b] = await Promise.all([migrate(pool, migrations), migrate(other, migrations)]);
  t.strictSame([...a, ...b].sort(), [1, 2], 'each version applied by exactly one of them');
  t.strictSame(await migrate(pool, migrations), [], 'nothing left to apply');
  t.equal(
    await pool.oneFirst(sql.type(z.object({ n: z.number() }))`select count(*)::int as n from es.m_one`),
    1,
    'the insert ran once',
  );
  const recorded = await pool.anyFirst(
    sql.type(z.object({ version: z.number() }))`select version from es.schema_migrations order by version`,
  );
  t.strictSame(recorded, [1, 2]);
});

t.test('a failing migration leaves nothing half-applied', async (t) => {
  const { pool } = await testPool(t, { empty: true });
  const broken = [
    { version: 1, name: 'broken', statements: ['create table es.m_half (id int)', 'select no_such_function()'] },
  ];
  await t.rejects(migrate(pool, broken));
  t.equal(
    await pool.maybeOneFirst(sql.unsafe`select to_regclass('es.m_half')::text`),
    null,
    'the first statement was rolled back',
  );
  t.strictSame(
    await migrate(pool, [{ version: 1, name: 'fixed', statements: ['create table es.m_half (id int)'] }]),
    [1],
    'and it can be applied once fixed',
  );
});
