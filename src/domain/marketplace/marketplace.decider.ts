import { accept, refuse, type Command, type Decider } from '../shared/decider.ts';
import { isMarketplaceName } from '../shared/names.ts';
import type {
  MarketplaceEvent, MarketplaceNameEvent, MarketplaceOrigin, PushPolicy,
} from './marketplace.events.ts';

export type RegisterMarketplace = Command<'register-marketplace', {
  marketplaceId: number;
  name: string;
  origin: MarketplaceOrigin;
  url: string | null;
  pushPolicy: PushPolicy | null;
}>;
export type RemoveMarketplace = Command<'remove-marketplace', { reason: string; withdrawnSnapshotIds: number[] }>;
export type MarketplaceCommand = RegisterMarketplace | RemoveMarketplace;

export type MarketplaceState =
  | { status: 'none' }
  | { status: 'live' | 'removed'; marketplaceId: number; name: string };

export const marketplaceDecider: Decider<MarketplaceState, MarketplaceCommand, MarketplaceEvent> = {
  initialState: () => ({ status: 'none' }),
  evolve(state, event) {
    switch (event.type) {
      case 'marketplace-registered':
        return { status: 'live', marketplaceId: event.data.marketplaceId, name: event.data.name };
      case 'marketplace-removed':
        return state.status === 'none' ? state : { ...state, status: 'removed' };
    }
  },
  decide(command, state) {
    switch (command.type) {
      case 'register-marketplace': {
        const { data, meta } = command;
        if (!isMarketplaceName(data.name)) {
          return refuse({
            code: 'invalid-name',
            detail: `'${data.name}' is not a valid marketplace name: it is the /git/<name> path clients clone, and must match ^[a-z0-9][a-z0-9_-]{0,62}$`,
          });
        }
        if (state.status !== 'none') {
          return refuse({ code: 'conflict', detail: `marketplace ${data.marketplaceId} already exists` });
        }
        return accept({
          type: 'marketplace-registered',
          data: { ...data, registeredAt: meta.at, registeredBy: meta.principal },
        });
      }
      case 'remove-marketplace': {
        if (state.status !== 'live') {
          return refuse({ code: 'marketplace-not-found', detail: 'no live marketplace has that name' });
        }
        return accept({
          type: 'marketplace-removed',
          data: {
            marketplaceId: state.marketplaceId,
            name: state.name,
            reason: command.data.reason,
            removedAt: command.meta.at,
            removedBy: command.meta.principal,
            withdrawnSnapshotIds: command.data.withdrawnSnapshotIds,
          },
        });
      }
    }
  },
};

export type ReserveMarketplaceName = Command<'reserve-marketplace-name', { name: string; marketplaceId: number }>;
export type ReleaseMarketplaceName = Command<'release-marketplace-name', { name: string; marketplaceId: number }>;
export type MarketplaceNameCommand = ReserveMarketplaceName | ReleaseMarketplaceName;
export type MarketplaceNameState = { holder: number | null };

export const marketplaceNameDecider: Decider<MarketplaceNameState, MarketplaceNameCommand, MarketplaceNameEvent> = {
  initialState: () => ({ holder: null }),
  evolve: (_state, event) =>
    event.type === 'marketplace-name-reserved' ? { holder: event.data.marketplaceId } : { holder: null },
  decide(command, state) {
    const { name, marketplaceId } = command.data;
    if (command.type === 'reserve-marketplace-name') {
      if (state.holder !== null) {
        return refuse({ code: 'marketplace-name-taken', detail: `a live marketplace is already named '${name}'` });
      }
      return accept({ type: 'marketplace-name-reserved', data: { name, marketplaceId } });
    }
    // Releasing a name someone else holds is a no-op, which keeps a retried removal harmless.
    if (state.holder !== marketplaceId) return accept();
    return accept({ type: 'marketplace-name-released', data: { name, marketplaceId } });
  },
};
