import { accept, refuse, type Command, type Decider, type Instant } from '../kernel/decider.ts';
import type { MarketplaceNameEvent } from './marketplace.events.ts';

/**
 * A name held by a marketplace that never became live (its registration was cut off between the two
 * appends) or that was removed (its removal was cut off before the release). Read by the handler.
 */
export type StaleHolder = Readonly<{ marketplaceId: number; removed: boolean }>;

export type ReserveMarketplaceName = Command<
  'reserve-marketplace-name',
  { name: string; marketplaceId: number; staleHolder?: StaleHolder }
>;
export type ReleaseMarketplaceName = Command<'release-marketplace-name', { name: string; marketplaceId: number }>;
export type MarketplaceNameCommand = ReserveMarketplaceName | ReleaseMarketplaceName;
export type MarketplaceNameState = { holder: number | null; reservedAt: Instant | null };

/**
 * A registration appends its marketplace milliseconds after reserving the name (the reservation waits for
 * no read model); a holder that has not registered after this long never will (its process died).
 */
export const unregisteredHolderGraceMs = 10_000;

const takenBy = (name: string, holder: number) =>
  refuse<MarketplaceNameEvent>({
    code: 'marketplace-name-taken',
    detail: `a live marketplace is already named '${name}'`,
    extensions: { holder },
  });

/** A stale holder is given up only when it is still the holder, and a never-registered one only after the grace. */
function mayTakeOver(state: MarketplaceNameState, stale: StaleHolder | undefined, at: Instant): boolean {
  if (!stale || stale.marketplaceId !== state.holder) return false;
  if (stale.removed) return true;
  return state.reservedAt === null || Date.parse(at) - Date.parse(state.reservedAt) >= unregisteredHolderGraceMs;
}

// A live marketplace name is reserved by its own stream (docs/architecture.md, Names), appended with an expected
// revision.
export const marketplaceNameDecider: Decider<MarketplaceNameState, MarketplaceNameCommand, MarketplaceNameEvent> = {
  initialState: () => ({ holder: null, reservedAt: null }),
  evolve: (_state, event) =>
    event.type === 'marketplace-name-reserved'
      ? { holder: event.data.marketplaceId, reservedAt: event.data.reservedAt ?? null }
      : { holder: null, reservedAt: null },
  decide(command, state) {
    const { name, marketplaceId } = command.data;
    if (command.type === 'reserve-marketplace-name') {
      const reserved: MarketplaceNameEvent = {
        type: 'marketplace-name-reserved',
        data: { name, marketplaceId, reservedAt: command.meta.at },
      };
      if (state.holder === null) return accept(reserved);
      if (!mayTakeOver(state, command.data.staleHolder, command.meta.at)) return takenBy(name, state.holder);
      // Recorded as the stale holder's release, then the new reservation.
      return accept<MarketplaceNameEvent>(
        { type: 'marketplace-name-released', data: { name, marketplaceId: state.holder } },
        reserved,
      );
    }
    // Releasing a name someone else holds is a no-op, which keeps a retried removal harmless.
    if (state.holder !== marketplaceId) return accept();
    return accept({ type: 'marketplace-name-released', data: { name, marketplaceId } });
  },
};
