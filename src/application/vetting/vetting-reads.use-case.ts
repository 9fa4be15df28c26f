// What the vetting surfaces read: a marketplace's waivers, the vetter toggles, and a marketplace's
// chain settings with its own toggles.
import { vetterToggles, waiversOf, type WaiverRecord } from '../../projections/vetting/vetting.queries.ts';
import type { Ports } from '../kernel/ports.ts';
import { liveOr404 } from '../marketplaces/registration.use-case.ts';
import { chainSettingsOf } from './chain-settings.use-case.ts';

export type { WaiverRecord } from '../../projections/vetting/vetting.queries.ts';

type Toggle = Awaited<ReturnType<typeof vetterToggles>>[number];

/** The waivers of the live marketplace `name` (404 when none), newest first, active and lapsed. */
export async function listWaivers(deps: Pick<Ports, 'pool'>, name: string): Promise<WaiverRecord[]> {
  const marketplace = await liveOr404(deps, name);
  return waiversOf(deps.pool, marketplace.id);
}

/** Every vetter toggle, global ones first. */
export const listVetterToggles = (deps: Pick<Ports, 'pool'>): Promise<Toggle[]> => vetterToggles(deps.pool);

/** The chain mode and order that apply to the live marketplace `name` (404 when none), and its own toggles. */
export async function marketplaceChainSettings(
  deps: Parameters<typeof chainSettingsOf>[0] & Pick<Ports, 'pool'>,
  name: string,
) {
  const marketplace = await liveOr404(deps, name);
  const toggles = (await vetterToggles(deps.pool, marketplace.id)).filter((t) => t.scope === 'marketplace');
  return { marketplace: marketplace.name, ...(await chainSettingsOf(deps, marketplace.id)), toggles };
}
