import { accept, refuse, type Command, type Decider } from '../kernel/decider.ts';
import type { ChainMode, ChainModeChanged, ChainOrderChanged, VetterToggled } from './vetting.events.ts';

// The chain's settings live in one stream (streams.vettingSettings()): mode, order, and the vetters
// switched off globally or for one marketplace. Every change names a reason and lands on the ledger.

type Reasoned = {
  reason: string;
  /** Every connector the gateway has, in default order (read by the handler). */ known: readonly string[];
};
export type SetChainMode = Command<'set-chain-mode', Reasoned & { mode: ChainMode }>;
export type SetChainOrder = Command<'set-chain-order', Reasoned & { order: readonly string[] }>;
export type ToggleVetter = Command<
  'toggle-vetter',
  Reasoned & {
    vetter: string;
    enabled: boolean;
    marketplace: Readonly<{ id: number; name: string }> | null;
  }
>;
export type VettingSettingsCommand = SetChainMode | SetChainOrder | ToggleVetter;
export type VettingSettingsEvent = ChainModeChanged | ChainOrderChanged | VetterToggled;

export type VettingSettings = Readonly<{
  mode: ChainMode;
  /** null: the default order. */
  order: readonly string[] | null;
  /** Vetter → enabled, where set globally. */
  global: ReadonlyMap<string, boolean>;
  /** `${marketplaceId}/${vetter}` → enabled, where set for one marketplace. */
  perMarketplace: ReadonlyMap<string, boolean>;
}>;

export const defaultSettings: VettingSettings = {
  mode: 'run-all',
  order: null,
  global: new Map(),
  perMarketplace: new Map(),
};

const overrideKey = (marketplaceId: number, vetter: string) => `${marketplaceId}/${vetter}`;

/** The chain for one marketplace: every known connector in order, with whether it runs there and why. */
export function effectiveChain(settings: VettingSettings, known: readonly string[], marketplaceId: number | null) {
  const order = settings.order
    ? [...settings.order, ...known.filter((name) => !settings.order!.includes(name))]
    : [...known];
  return order
    .filter((name) => known.includes(name))
    .map((name, position) => {
      const local = marketplaceId === null ? undefined : settings.perMarketplace.get(overrideKey(marketplaceId, name));
      const global = settings.global.get(name) ?? true;
      return {
        name,
        order: position,
        enabled: local ?? global,
        source: local === undefined ? ('global' as const) : ('marketplace' as const),
      };
    });
}

const blank = (text: string) => text.trim() === '';

export const vettingSettingsDecider: Decider<VettingSettings, VettingSettingsCommand, VettingSettingsEvent> = {
  initialState: () => defaultSettings,
  evolve(state, event) {
    switch (event.type) {
      case 'vetting-chain-mode-changed':
        return { ...state, mode: event.data.mode };
      case 'vetting-chain-order-changed':
        return { ...state, order: event.data.order };
      case 'vetter-toggled': {
        if (event.data.marketplaceId === null) {
          const global = new Map(state.global);
          global.set(event.data.vetter, event.data.enabled);
          return { ...state, global };
        }
        const perMarketplace = new Map(state.perMarketplace);
        perMarketplace.set(overrideKey(event.data.marketplaceId, event.data.vetter), event.data.enabled);
        return { ...state, perMarketplace };
      }
    }
  },
  decide(command, state) {
    const { data } = command;
    if (blank(data.reason))
      return refuse({ code: 'invalid-request', detail: 'a reason is required for every change to the vetting chain' });
    switch (command.type) {
      case 'set-chain-mode':
        if (state.mode === command.data.mode) return accept();
        return accept({ type: 'vetting-chain-mode-changed', data: { mode: command.data.mode, reason: data.reason } });
      case 'set-chain-order': {
        const { order, known } = command.data;
        const unknown = order.filter((name) => !known.includes(name));
        const missing = known.filter((name) => !order.includes(name));
        if (unknown.length > 0 || missing.length > 0 || new Set(order).size !== order.length) {
          return refuse({
            code: 'invalid-chain-order',
            detail:
              `the order must name every vetter exactly once (${known.join(', ')})` +
              `${unknown.length ? `; unknown: ${unknown.join(', ')}` : ''}${missing.length ? `; missing: ${missing.join(', ')}` : ''}`,
          });
        }
        return accept({ type: 'vetting-chain-order-changed', data: { order, reason: data.reason } });
      }
      case 'toggle-vetter': {
        const { vetter, enabled, marketplace, known } = command.data;
        if (!known.includes(vetter))
          return refuse({
            code: 'vetter-not-found',
            detail: `no vetter named '${vetter}' (known: ${known.join(', ')})`,
          });
        const current =
          marketplace === null
            ? state.global.get(vetter)
            : state.perMarketplace.get(overrideKey(marketplace.id, vetter));
        if (current === enabled) return accept();
        return accept({
          type: 'vetter-toggled',
          data: {
            vetter,
            enabled,
            reason: data.reason,
            scope: marketplace === null ? 'global' : 'marketplace',
            marketplaceId: marketplace?.id ?? null,
            marketplace: marketplace?.name ?? null,
          },
        });
      }
    }
  },
};
