import t from 'tap';
import {
  effectiveChain,
  vettingSettingsDecider,
  type SetChainMode,
  type SetChainOrder,
  type ToggleVetter,
  type VettingSettingsEvent,
} from '../../../../src/domain/vetting/settings.decider.ts';
import { chainModeChanged, chainOrderChanged, command, vetterToggled } from '../../../support/builders.ts';
import { spec } from '../../../support/decider-spec.ts';

const known = ['manifest', 'secrets', 'hooks', 'license'];
const admin = { principal: 'root' };
const setMode = (mode: SetChainMode['data']['mode'], reason = 'fail fast') =>
  command<SetChainMode>('set-chain-mode', { mode, reason, known }, admin);
const setOrder = (order: readonly string[], reason = 'cheap first') =>
  command<SetChainOrder>('set-chain-order', { order, reason, known }, admin);
const toggle = (
  vetter: string,
  enabled: boolean,
  marketplace: ToggleVetter['data']['marketplace'] = null,
  reason = 'noisy',
) => command<ToggleVetter>('toggle-vetter', { vetter, enabled, marketplace, reason, known }, admin);
const acme = { id: 7, name: 'acme' };
const given = (events: readonly VettingSettingsEvent[] = []) => spec(vettingSettingsDecider).given(events);
const fold = (events: readonly VettingSettingsEvent[]) =>
  events.reduce(vettingSettingsDecider.evolve, vettingSettingsDecider.initialState());

t.test(
  'spec, Waivers and marketplace-scoped vetting: "Each change is ledger-recorded with actor, vetter, scope, new state and reason"',
  async (t) => {
    t.strictSame(given().when(setMode('stop-on-failure')), {
      outcome: 'accepted',
      events: [chainModeChanged({ mode: 'stop-on-failure', reason: 'fail fast' })],
    });
    t.strictSame(given().when(setOrder(['license', 'hooks', 'secrets', 'manifest'])), {
      outcome: 'accepted',
      events: [chainOrderChanged({ order: ['license', 'hooks', 'secrets', 'manifest'], reason: 'cheap first' })],
    });
    t.strictSame(given().when(toggle('secrets', false)), {
      outcome: 'accepted',
      events: [
        {
          type: 'vetter-toggled',
          data: {
            vetter: 'secrets',
            enabled: false,
            reason: 'noisy',
            scope: 'global',
            marketplaceId: null,
            marketplace: null,
          },
        },
      ],
    });
    t.strictSame(given().when(toggle('hooks', false, acme)), {
      outcome: 'accepted',
      events: [
        {
          type: 'vetter-toggled',
          data: {
            vetter: 'hooks',
            enabled: false,
            reason: 'noisy',
            scope: 'marketplace',
            marketplaceId: 7,
            marketplace: 'acme',
          },
        },
      ],
    });
  },
);

t.test('decision 67: every change needs a non-blank reason (invalid-request), checked first', async (t) => {
  for (const reason of ['', '   ', '\n\t']) {
    for (const decision of [
      given().when(setMode('stop-on-failure', reason)),
      given().when(setOrder(['nope'], reason)),
      given().when(toggle('ghost', false, null, reason)),
    ]) {
      t.match(
        decision,
        { outcome: 'refused', rejection: { code: 'invalid-request', detail: /reason is required/ }, events: [] },
        JSON.stringify(reason),
      );
    }
  }
});

t.test('decision 67: the order must name every vetter exactly once (422 invalid-chain-order)', async (t) => {
  const cases: Array<[string, string[], RegExp]> = [
    ['one missing', ['manifest', 'secrets', 'hooks'], /missing: license/],
    ['an unknown one', ['manifest', 'secrets', 'hooks', 'license', 'virus'], /unknown: virus/],
    [
      'a duplicate',
      ['manifest', 'secrets', 'hooks', 'license', 'hooks'],
      /exactly once \(manifest, secrets, hooks, license\)$/,
    ],
    ['empty', [], /missing: manifest, secrets, hooks, license/],
    ['unknown and missing', ['manifest', 'secrets', 'hooks', 'virus'], /unknown: virus; missing: license/],
  ];
  for (const [label, order, detail] of cases) {
    t.match(
      given().when(setOrder(order)),
      { outcome: 'refused', rejection: { code: 'invalid-chain-order', detail }, events: [] },
      label,
    );
  }
});

t.test('decision 67: an unknown vetter is 404 vetter-not-found', async (t) => {
  t.match(given().when(toggle('virus', false)), {
    outcome: 'refused',
    rejection: { code: 'vetter-not-found', detail: /'virus'.*known: manifest, secrets, hooks, license/ },
    events: [],
  });
  t.match(
    given().when(toggle('Secrets', false, acme)),
    { outcome: 'refused', rejection: { code: 'vetter-not-found' } },
    'names are exact',
  );
});

t.test('a change to the state in force records nothing', async (t) => {
  t.strictSame(given().when(setMode('run-all')), { outcome: 'accepted', events: [] }, 'run-all is the default');
  t.strictSame(given([chainModeChanged({ mode: 'stop-on-failure' })]).when(setMode('stop-on-failure')), {
    outcome: 'accepted',
    events: [],
  });
  t.strictSame(given([vetterToggled({ vetter: 'secrets', enabled: false })]).when(toggle('secrets', false)), {
    outcome: 'accepted',
    events: [],
  });
  const local = vetterToggled({
    vetter: 'secrets',
    enabled: false,
    scope: 'marketplace',
    marketplaceId: 7,
    marketplace: 'acme',
  });
  t.strictSame(given([local]).when(toggle('secrets', false, acme)), { outcome: 'accepted', events: [] });
  t.match(
    given([local]).when(toggle('secrets', false)),
    { events: [{ data: { scope: 'global' } }] },
    'the global switch is apart from the marketplace one',
  );
  t.match(
    given([local]).when(toggle('secrets', false, { id: 8, name: 'tools' })),
    { events: [{ data: { marketplaceId: 8 } }] },
    'and from another marketplace',
  );
  t.match(
    given().when(toggle('secrets', true)),
    { events: [{ data: { enabled: true } }] },
    'enabling a vetter never switched is recorded: it sets the global state explicitly',
  );
  t.match(
    given([chainOrderChanged({ order: ['license', 'hooks', 'secrets', 'manifest'] })]).when(
      setOrder(['license', 'hooks', 'secrets', 'manifest']),
    ),
    { outcome: 'accepted', events: [{ type: 'vetting-chain-order-changed' }] },
    'an order is recorded as sent, even when it is the one in force',
  );
});

t.test(
  'decision 67: a per-marketplace toggle overrides the global one; the order puts unnamed vetters last',
  async (t) => {
    const settings = fold([
      chainOrderChanged({ order: ['secrets', 'manifest'] }),
      vetterToggled({ vetter: 'hooks', enabled: false }),
      vetterToggled({ vetter: 'hooks', enabled: true, scope: 'marketplace', marketplaceId: 7, marketplace: 'acme' }),
      vetterToggled({ vetter: 'license', enabled: false, scope: 'marketplace', marketplaceId: 7, marketplace: 'acme' }),
    ]);
    t.strictSame(effectiveChain(settings, known, 7), [
      { name: 'secrets', order: 0, enabled: true, source: 'global' },
      { name: 'manifest', order: 1, enabled: true, source: 'global' },
      { name: 'hooks', order: 2, enabled: true, source: 'marketplace' },
      { name: 'license', order: 3, enabled: false, source: 'marketplace' },
    ]);
    t.strictSame(
      effectiveChain(settings, known, 8).map((v) => [v.name, v.enabled, v.source]),
      [
        ['secrets', true, 'global'],
        ['manifest', true, 'global'],
        ['hooks', false, 'global'],
        ['license', true, 'global'],
      ],
      'another marketplace',
    );
    t.strictSame(
      effectiveChain(settings, known, null).map((v) => v.enabled),
      [true, true, false, true],
      'the global view',
    );
    t.strictSame(
      effectiveChain(settings, ['manifest', 'hooks'], null).map((v) => v.name),
      ['manifest', 'hooks'],
      'a vetter no longer known drops out',
    );
  },
);
