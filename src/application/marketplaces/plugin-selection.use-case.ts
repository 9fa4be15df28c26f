import { marketplaceDecider } from '../../domain/marketplace/marketplace.decider.ts';
import type { CommandMeta } from '../../domain/kernel/decider.ts';
import { streams } from '../../domain/kernel/streams.ts';
import type { MarketplaceSelection } from '../../projections/marketplaces/marketplaces.queries.ts';
import { liveMarketplaceByName } from '../../projections/marketplaces/marketplaces.queries.ts';
import { execute } from '../kernel/execute.ts';
import { liveOr404 } from './registration.use-case.ts';
import type { Ports } from '../kernel/ports.ts';

export type SelectionAnswer = Readonly<{ marketplace: string; selection: MarketplaceSelection | null }>;

/**
 * The plugins a live marketplace serves from its next ingest on (docs/marketplaces.md, Selection); 404 for any other
 * name.
 */
export async function pluginSelectionOf(deps: Pick<Ports, 'pool'>, name: string): Promise<SelectionAnswer> {
  const marketplace = await liveOr404(deps, name);
  return { marketplace: marketplace.name, selection: marketplace.selection };
}

/**
 * Sets which plugins of a marketplace are served (the route checks the admin role first, as for the sync
 * mode): 404, then the patterns (400 `invalid-selection`, decided in the marketplace decider). Both lists empty clears the selection. The change
 * is recorded now and applied by the next ingest; it starts none.
 */
export async function setPluginSelection(
  deps: Pick<Ports, 'store' | 'waiter' | 'pool'>,
  name: string,
  wanted: Readonly<{ include?: readonly string[] | undefined; exclude?: readonly string[] | undefined }>,
  meta: CommandMeta,
): Promise<SelectionAnswer> {
  const marketplace = await liveOr404(deps, name);
  await execute(
    deps,
    marketplaceDecider,
    streams.marketplace(marketplace.id),
    { type: 'set-plugin-selection', data: { include: wanted.include ?? [], exclude: wanted.exclude ?? [] }, meta },
    ['marketplaces', 'ledger'],
  );
  const after = await liveMarketplaceByName(deps.pool, marketplace.name);
  return { marketplace: marketplace.name, selection: after?.selection ?? null };
}
