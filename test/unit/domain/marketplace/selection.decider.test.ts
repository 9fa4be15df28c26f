// Curation (docs/marketplaces.md, Selection): PUT /api/v1/marketplaces/{name}/selection with include/exclude
// name patterns, on the ledger. The selection is decided on the marketplace's stream.
import t from 'tap';
import type { EventOf } from '../../../../src/domain/events.ts';
import { marketplaceDecider, type SetPluginSelection } from '../../../../src/domain/marketplace/marketplace.decider.ts';
import { acme, at, command, earlier, registered } from '../../../support/builders.ts';
import { spec } from '../../../support/decider-spec.ts';

const select = (include: readonly string[], exclude: readonly string[] = []) =>
  command<SetPluginSelection>('set-plugin-selection', { include, exclude }, { principal: 'root' });

const selectionSet = (
  include: readonly string[],
  exclude: readonly string[] = [],
): EventOf<'marketplace-selection-set'> => ({
  type: 'marketplace-selection-set',
  data: { marketplaceId: acme.marketplaceId, name: acme.marketplace, include, exclude, setAt: earlier, setBy: 'root' },
});

const removed = (): EventOf<'marketplace-removed'> => ({
  type: 'marketplace-removed',
  data: {
    ...{ marketplaceId: 7, name: 'acme' },
    reason: 'gone',
    removedAt: earlier,
    removedBy: 'root',
    withdrawnSnapshotIds: [],
  },
});

t.test('setting a selection records the normalised patterns, who set it and when', async (t) => {
  const decision = spec(marketplaceDecider)
    .given([registered()])
    .when(select(['code-*', 'security-guidance', 'code-*'], ['code-legacy']));
  t.strictSame(decision, {
    outcome: 'accepted',
    events: [
      {
        type: 'marketplace-selection-set',
        data: {
          marketplaceId: 7,
          name: 'acme',
          include: ['code-*', 'security-guidance'],
          exclude: ['code-legacy'],
          setAt: at,
          setBy: 'root',
        },
      },
    ],
  });
});

t.test('the selection already set records nothing (PUT is idempotent)', async (t) => {
  const given = [registered(), selectionSet(['a-*'], ['a-old'])];
  t.strictSame(
    spec(marketplaceDecider)
      .given(given)
      .when(select(['a-*', 'a-*'], ['a-old'])),
    {
      outcome: 'accepted',
      events: [],
    },
  );
  t.match(
    spec(marketplaceDecider)
      .given(given)
      .when(select(['a-*'])),
    {
      outcome: 'accepted',
      events: [{ type: 'marketplace-selection-set', data: { include: ['a-*'], exclude: [] } }],
    },
  );
  t.strictSame(
    spec(marketplaceDecider).given([registered()]).when(select([], [])),
    {
      outcome: 'accepted',
      events: [],
    },
    'clearing when nothing is selected changes nothing',
  );
});

t.test('both lists empty clears a selection: every plugin is served again', async (t) => {
  const decision = spec(marketplaceDecider)
    .given([registered(), selectionSet(['a-*'])])
    .when(select([], []));
  t.match(decision, {
    outcome: 'accepted',
    events: [{ type: 'marketplace-selection-set', data: { include: [], exclude: [], setBy: 'root' } }],
  });
  t.strictSame(
    spec(marketplaceDecider)
      .given([registered(), selectionSet(['a-*']), selectionSet([])])
      .when(select([], [])).events,
    [],
    'a cleared selection is no selection',
  );
});

t.test('bad patterns are refused with invalid-selection naming each, and nothing is recorded', async (t) => {
  const decision = spec(marketplaceDecider)
    .given([registered()])
    .when(select(['ok', '[ab]*'], ['', 'fine']));
  t.match(decision, {
    outcome: 'refused',
    rejection: { code: 'invalid-selection', detail: /^include\[1\] '\[ab\]\*' uses .*; exclude\[0\] '' is empty$/ },
  });
  t.strictSame(decision.events, []);
  const many = spec(marketplaceDecider)
    .given([registered()])
    .when(select(Array.from({ length: 501 }, (_, i) => `p${i}`)));
  t.match(many, { outcome: 'refused', rejection: { code: 'invalid-selection', detail: /at most 500/ } });
});

t.test('a removed or unknown marketplace is refused', async (t) => {
  for (const given of [[], [registered(), removed()]]) {
    const decision = spec(marketplaceDecider)
      .given(given)
      .when(select(['a']));
    t.match(decision, { outcome: 'refused', rejection: { code: 'marketplace-not-found' } });
    t.strictSame(decision.events, []);
  }
});
