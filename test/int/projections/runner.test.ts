import t from 'tap';
import { z } from 'zod';
import { runCommand } from '../../../src/application/kernel/run-command.ts';
import { AdvisoryLock } from '../../../src/adapters/postgres/advisory-lock.ts';
import { sql } from '../../../src/adapters/postgres/pool.ts';
import { marketplaceDecider } from '../../../src/domain/marketplace/marketplace.decider.ts';
import { execute } from '../../../src/application/kernel/execute.ts';
import { Rejected } from '../../../src/application/kernel/rejected.ts';
import { Leadership } from '../../../src/projections/runner/leader.ts';
import { ProjectionLag } from '../../../src/projections/runner/wait-for.ts';
import { liveMarketplaces } from '../../../src/projections/marketplaces/marketplaces.queries.ts';
import { meta } from '../../support/decider-spec.ts';
import { silentLogger, testCore } from '../../support/core.ts';

const register = (marketplaceId: number, name: string) => ({
  type: 'register-marketplace' as const,
  data: { marketplaceId, name, origin: 'upstream' as const, url: `https://example.test/${name}.git`, pushPolicy: null },
  meta: meta(),
});

t.test('execute answers after the read model shows the change (read-your-writes)', async (t) => {
  const core = await testCore(t);
  core.runner.start();
  await execute(core, marketplaceDecider, 'marketplace-1', register(1, 'acme'), ['marketplaces']);
  t.strictSame(
    (await liveMarketplaces(core.pool)).map((m) => m.name),
    ['acme'],
    'visible as soon as execute returns',
  );
  const refused = await execute(core, marketplaceDecider, 'marketplace-1', register(1, 'acme'), ['marketplaces']).catch(
    (e: unknown) => e,
  );
  t.type(refused, Rejected);
  t.equal((refused as Rejected).rejection.code, 'conflict');
  t.equal(await core.store.head(), 1n, 'the refusal appended nothing');
});

t.test('waitFor gives up with ProjectionLag when the projections do not advance', async (t) => {
  const core = await testCore(t, { waitTimeoutMs: 300 });
  const { position } = await runCommand(core.store, marketplaceDecider, 'marketplace-1', register(1, 'acme'));
  const lag = await core.waiter.waitFor(position!, ['marketplaces']).catch((e: unknown) => e);
  t.type(lag, ProjectionLag, 'no runner is running');
  t.strictSame((lag as ProjectionLag).behind, ['marketplaces']);
  core.runner.start();
  await core.waiter.waitFor(position!, ['marketplaces']);
  t.pass('resolves once the runner catches up');
});

t.test('the runner follows live appends without polling delay', async (t) => {
  const core = await testCore(t);
  core.runner.start();
  for (let i = 1; i <= 20; i++) {
    const { position } = await runCommand(core.store, marketplaceDecider, `marketplace-${i}`, register(i, `m${i}`));
    await core.waiter.waitFor(position!, ['marketplaces', 'ledger'], 900); // below the 1 s idle poll
  }
  t.equal((await liveMarketplaces(core.pool)).length, 20);
  t.equal(
    await core.pool.oneFirst(sql.type(z.object({ n: z.number() }))`select count(*)::int as n from ledger_entries`),
    20,
  );
});

t.test('one leader at a time; another takes over when it stops', async (t) => {
  const core = await testCore(t);
  const started: string[] = [];
  const duty = (name: string) => ({
    start: () => {
      started.push(`${name}+`);
    },
    stop: async () => {
      started.push(`${name}-`);
    },
  });
  const a = new Leadership(new AdvisoryLock(core.url, 99n), [duty('a')], silentLogger, 100);
  const b = new Leadership(new AdvisoryLock(core.url, 99n), [duty('b')], silentLogger, 100);
  t.teardown(async () => {
    await a.stop();
    await b.stop();
  });
  t.equal(await a.start(), true, 'the first takes the lock');
  t.equal(await b.start(), false, 'the second waits');
  await new Promise((r) => setTimeout(r, 300));
  t.notOk(b.isLeader, 'still waiting while the first holds it');
  await a.stop();
  for (let waited = 0; !b.isLeader && waited < 5000; waited += 50) await new Promise((r) => setTimeout(r, 50));
  t.ok(b.isLeader, 'the second took over');
  t.strictSame(started, ['a+', 'a-', 'b+']);
});

t.test('catch-up keeps up with appends that land while it runs (no re-reading behind every projection)', async (t) => {
  const core = await testCore(t);
  for (let i = 1; i <= 5; i++)
    await runCommand(core.store, marketplaceDecider, `marketplace-${i}`, register(i, `m${i}`));
  await core.runner.catchUp();
  // Appends after the head the next catch-up reads first: it must still finish, at the new head.
  const appending = (async () => {
    for (let i = 6; i <= 40; i++)
      await runCommand(core.store, marketplaceDecider, `marketplace-${i}`, register(i, `m${i}`));
  })();
  let rounds = 0;
  while (rounds < 200) {
    rounds++;
    const reached = await Promise.race([
      core.runner.catchUp(),
      new Promise<'stalled'>((r) => setTimeout(() => r('stalled'), 5000)),
    ]);
    t.not(reached, 'stalled', `catch-up round ${rounds} finished`);
    if (reached === 'stalled') break;
    if ((await core.store.head()) === 40n && reached === 40n) break;
  }
  await appending;
  await core.runner.catchUp();
  t.equal((await liveMarketplaces(core.pool)).length, 40);
});
