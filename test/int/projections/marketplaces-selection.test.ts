// Curation (docs/marketplaces.md, Selection): the selection is projected into the marketplaces read model, and a
// rebuild from the event store gives it back identically.
import t from 'tap';
import { GitStore } from '../../../src/adapters/git/git-store.ts';
import { liveMarketplaceByName, marketplaceById } from '../../../src/projections/marketplaces/marketplaces.queries.ts';
import { ledgerProjection } from '../../../src/projections/ledger/ledger.projection.ts';
import { projectionsFor } from '../../../src/projections/registry.ts';
import { metadata, testCore } from '../../support/core.ts';

const selected = (include: string[], exclude: string[], setAt: string, setBy = 'root') => ({
  type: 'marketplace-selection-set',
  data: { marketplaceId: 1, name: 'acme', include, exclude, setAt, setBy },
  metadata: metadata({ principal: setBy }),
});

t.test('the selection is on the record, cleared to null, and rebuilt identically', async (t) => {
  const projections = projectionsFor({ gitStore: new GitStore(t.testdir()) }).filter(
    (p) => p.name === 'marketplaces' || p.name === ledgerProjection.name,
  );
  const { pool, store, runner } = await testCore(t, { projections });
  const registered = {
    type: 'marketplace-registered',
    data: {
      marketplaceId: 1,
      name: 'acme',
      origin: 'upstream',
      url: 'https://example.test/acme.git',
      pushPolicy: null,
      registeredAt: '2026-03-01T10:00:00.000Z',
      registeredBy: 'root',
    },
    metadata: metadata(),
  };
  await store.append('marketplace-1', [registered], 'no-stream');
  await runner.catchUp();
  t.equal((await marketplaceById(pool, 1))?.selection, null, 'a new marketplace has no selection');

  await store.append('marketplace-1', [selected(['code-*'], ['code-legacy'], '2026-03-02T10:00:00.000Z')], 'any');
  await runner.catchUp();
  const set = await liveMarketplaceByName(pool, 'acme');
  t.strictSame(set?.selection, {
    include: ['code-*'],
    exclude: ['code-legacy'],
    setAt: '2026-03-02T10:00:00.000Z',
    setBy: 'root',
  });

  const before = await liveMarketplaceByName(pool, 'acme');
  await runner.rebuild();
  t.strictSame(await liveMarketplaceByName(pool, 'acme'), before, 'the same record after a rebuild');

  await store.append('marketplace-1', [selected([], [], '2026-03-03T10:00:00.000Z', 'bob')], 'any');
  await runner.catchUp();
  t.equal((await liveMarketplaceByName(pool, 'acme'))?.selection, null, 'both lists empty clears it');
  await runner.rebuild();
  t.equal((await liveMarketplaceByName(pool, 'acme'))?.selection, null, 'and stays cleared after a rebuild');
});
