import t from 'tap';
import { marketplaceDecider, marketplaceNameDecider } from '../../../../src/domain/marketplace/marketplace.decider.ts';
import type { MarketplaceEvent } from '../../../../src/domain/marketplace/marketplace.events.ts';
import { meta, spec } from '../../../support/decider-spec.ts';

const registered: MarketplaceEvent = {
  type: 'marketplace-registered',
  data: { marketplaceId: 7, name: 'acme', origin: 'upstream', url: 'https://example.test/acme.git', pushPolicy: null, registeredAt: '2026-03-01T09:00:00.000Z', registeredBy: 'alice' },
};
const register = (name: string) => ({
  type: 'register-marketplace' as const,
  data: { marketplaceId: 7, name, origin: 'upstream' as const, url: 'https://example.test/acme.git', pushPolicy: null },
  meta: meta({ principal: 'root' }),
});

t.test('registration records the id, the acting principal and the decided instant', async (t) => {
  const decision = spec(marketplaceDecider).given([]).when(register('acme'));
  t.strictSame(decision, {
    outcome: 'accepted',
    events: [{ type: 'marketplace-registered', data: {
      marketplaceId: 7, name: 'acme', origin: 'upstream', url: 'https://example.test/acme.git', pushPolicy: null,
      registeredAt: '2026-03-01T10:00:00.000Z', registeredBy: 'root',
    } }],
  });
});

t.test('an invalid name is refused with the /git/<name> wording (spec, Errors: 422)', async (t) => {
  for (const name of ['Acme', '-acme', 'a'.repeat(64), 'ac/me', '']) {
    const decision = spec(marketplaceDecider).given([]).when(register(name));
    t.match(decision, { outcome: 'refused', rejection: { code: 'invalid-name', detail: /\/git\/<name> path clients clone/ } }, name);
    t.strictSame(decision.events, []);
  }
  t.match(spec(marketplaceDecider).given([]).when(register('a'.repeat(63))), { outcome: 'accepted' }, '63 characters is the limit');
});

t.test('removal withdraws, records the reason, and is refused for a marketplace not live', async (t) => {
  const remove = { type: 'remove-marketplace' as const, data: { reason: 'retired', withdrawnSnapshotIds: [3, 4] }, meta: meta() };
  t.match(spec(marketplaceDecider).given([registered]).when(remove), {
    outcome: 'accepted',
    events: [{ type: 'marketplace-removed', data: { marketplaceId: 7, name: 'acme', reason: 'retired', removedBy: 'alice', withdrawnSnapshotIds: [3, 4] } }],
  });
  const removed: MarketplaceEvent = { type: 'marketplace-removed', data: { marketplaceId: 7, name: 'acme', reason: 'x', removedAt: 'x', removedBy: 'x', withdrawnSnapshotIds: [] } };
  t.match(spec(marketplaceDecider).given([registered, removed]).when(remove), { outcome: 'refused', rejection: { code: 'marketplace-not-found' } });
  t.match(spec(marketplaceDecider).given([]).when(remove), { outcome: 'refused', rejection: { code: 'marketplace-not-found' } });
});

t.test('a live name is held by one marketplace; a released name is free again (spec: a removed name is free)', async (t) => {
  const reserve = (marketplaceId: number) => ({ type: 'reserve-marketplace-name' as const, data: { name: 'acme', marketplaceId }, meta: meta() });
  const release = (marketplaceId: number) => ({ type: 'release-marketplace-name' as const, data: { name: 'acme', marketplaceId }, meta: meta() });
  const held = { type: 'marketplace-name-reserved' as const, data: { name: 'acme', marketplaceId: 1 } };
  const freed = { type: 'marketplace-name-released' as const, data: { name: 'acme', marketplaceId: 1 } };
  t.match(spec(marketplaceNameDecider).given([]).when(reserve(1)), { outcome: 'accepted', events: [held] });
  t.match(spec(marketplaceNameDecider).given([held]).when(reserve(2)), { outcome: 'refused', rejection: { code: 'marketplace-name-taken' } });
  t.match(spec(marketplaceNameDecider).given([held, freed]).when(reserve(2)), { outcome: 'accepted' });
  t.strictSame(spec(marketplaceNameDecider).given([held]).when(release(2)).events, [], 'only the holder releases');
  t.strictSame(spec(marketplaceNameDecider).given([held]).when(release(1)).events, [freed]);
});
