import type { CommandMeta } from '../../domain/kernel/decider.ts';
import { streams } from '../../domain/kernel/streams.ts';
import {
  vettingSettingsDecider,
  type SetChainMode,
  type SetChainOrder,
} from '../../domain/vetting/settings.decider.ts';
import type { ChainMode } from '../../domain/vetting/vetting.events.ts';
import { execute } from '../kernel/execute.ts';
import type { Actor, Ports } from '../kernel/ports.ts';
import { chainFor } from './run-vetting.ts';
import { liveOr404 } from '../marketplaces/registration.use-case.ts';
import { requireAdminRole } from '../access/standing.ts';

const readModels = ['vetting', 'ledger'];

export type ChainSettingsPorts = Pick<Ports, 'store' | 'waiter' | 'pool' | 'vetting' | 'access'>;

/** The chain mode and order in force for a marketplace (null: globally), with every vetter in that order. */
export async function chainSettingsOf(deps: Pick<Ports, 'pool' | 'vetting'>, marketplaceId: number | null) {
  const { settings, chain } = await chainFor(deps, marketplaceId);
  return { mode: settings.mode, order: chain.map((c) => c.name), connectors: chain };
}

/** A change to the whole chain: its mode, or its complete order; either names a reason for the ledger. */
export type ChainChange = Readonly<{ mode: ChainMode; reason: string } | { order: readonly string[]; reason: string }>;

/** Sets the chain mode or order (admin); answers the global settings as they now are. */
export async function changeChain(deps: ChainSettingsPorts, actor: Actor, change: ChainChange, meta: CommandMeta) {
  await requireAdminRole(deps, actor);
  const known = deps.vetting.connectors.map((c) => c.name);
  const command: SetChainMode | SetChainOrder =
    'mode' in change
      ? { type: 'set-chain-mode', data: { mode: change.mode, reason: change.reason, known }, meta }
      : { type: 'set-chain-order', data: { order: change.order, reason: change.reason, known }, meta };
  await execute(deps, vettingSettingsDecider, streams.vettingSettings(), command, readModels);
  return chainSettingsOf(deps, null);
}

export type VetterToggle = Readonly<{ vetter: string; enabled: boolean; reason: string; marketplace: string | null }>;

/** Enables or disables a vetter globally or for one live marketplace (admin); answers the chain there. */
export async function toggleVetter(deps: ChainSettingsPorts, actor: Actor, toggle: VetterToggle, meta: CommandMeta) {
  await requireAdminRole(deps, actor);
  const marketplace = toggle.marketplace ? await liveOr404(deps, toggle.marketplace) : null;
  await execute(
    deps,
    vettingSettingsDecider,
    streams.vettingSettings(),
    {
      type: 'toggle-vetter',
      data: {
        vetter: toggle.vetter,
        enabled: toggle.enabled,
        reason: toggle.reason,
        marketplace: marketplace && { id: marketplace.id, name: marketplace.name },
        known: deps.vetting.connectors.map((c) => c.name),
      },
      meta,
    },
    readModels,
  );
  return (await chainFor(deps, marketplace?.id ?? null)).chain;
}
