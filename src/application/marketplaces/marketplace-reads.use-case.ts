// What the marketplace surfaces read: the live marketplaces with what each serves and its snapshots,
// one marketplace likewise, and a snapshot by id.
import {
  liveMarketplaceByName,
  liveMarketplaces,
  sealedWebhookSecret,
} from '../../projections/marketplaces/marketplaces.queries.ts';
import type { MarketplaceRecord } from '../../projections/marketplaces/marketplaces.queries.ts';
import { snapshotById, snapshotsOf, type SnapshotRecord } from '../../projections/snapshots/snapshots.queries.ts';
import type { Ports } from '../kernel/ports.ts';

export type { MarketplaceRecord, MarketplaceSelection } from '../../projections/marketplaces/marketplaces.queries.ts';
export type { SnapshotRecord } from '../../projections/snapshots/snapshots.queries.ts';

/** A marketplace, the commit it serves (null: nothing) and snapshots (of it, or of every marketplace listed). */
export type MarketplaceListing = Readonly<{
  marketplace: MarketplaceRecord;
  servedSha: string | null;
  snapshots: readonly SnapshotRecord[];
}>;

type ListingPorts = Pick<Ports, 'pool' | 'gitStore'>;

/** Every live marketplace with its served commit; `snapshots` holds the snapshots of all of them. */
export async function listMarketplaces(deps: ListingPorts): Promise<MarketplaceListing[]> {
  const live = await liveMarketplaces(deps.pool);
  const snapshots = await snapshotsOf(
    deps.pool,
    live.map((m) => m.id),
  );
  return Promise.all(
    live.map(async (marketplace) => ({
      marketplace,
      servedSha: await deps.gitStore.servedSha(marketplace.id),
      snapshots,
    })),
  );
}

/** One marketplace with its served commit and its snapshots. */
export async function marketplaceListing(
  deps: ListingPorts,
  marketplace: MarketplaceRecord,
): Promise<MarketplaceListing> {
  const servedSha = await deps.gitStore.servedSha(marketplace.id);
  return { marketplace, servedSha, snapshots: await snapshotsOf(deps.pool, [marketplace.id]) };
}

/** A snapshot by id (null: none). */
export const snapshotWithId = (deps: Pick<Ports, 'pool'>, id: number): Promise<SnapshotRecord | null> =>
  snapshotById(deps.pool, id);

/** The live marketplace of that name (null: none). */
export const liveMarketplaceNamed = (deps: Pick<Ports, 'pool'>, name: string): Promise<MarketplaceRecord | null> =>
  liveMarketplaceByName(deps.pool, name);

/**
 * The live marketplace of that name and its sealed webhook secret, as an inbound webhook checks them
 * (null where there is none).
 */
export async function webhookTarget(
  deps: Pick<Ports, 'pool'>,
  name: string,
): Promise<Readonly<{ marketplace: MarketplaceRecord | null; sealed: string | null }>> {
  const marketplace = await liveMarketplaceByName(deps.pool, name);
  return { marketplace, sealed: marketplace ? await sealedWebhookSecret(deps.pool, marketplace.id) : null };
}
