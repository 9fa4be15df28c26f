import { marketplaceById, type MarketplaceRecord } from '../projections/marketplaces/marketplaces.queries.ts';
import { snapshotById, type SnapshotRecord } from '../projections/snapshots/snapshots.queries.ts';
import type { Ports } from './ports.ts';
import { reject } from './rejected.ts';

export type AddressedSnapshot = Readonly<{ snapshot: SnapshotRecord; marketplace: MarketplaceRecord; repo: string }>;

/**
 * The snapshot a request addresses, its marketplace (removed ones too: their records stay readable) and
 * the quarantine repository holding its tree; 404 when unknown. Roles are resolved from these.
 */
export async function addressedSnapshot(
  deps: Pick<Ports, 'pool' | 'gitStore'>,
  id: number,
): Promise<AddressedSnapshot> {
  const snapshot = await snapshotById(deps.pool, id);
  const marketplace = snapshot ? await marketplaceById(deps.pool, snapshot.marketplaceId) : null;
  if (!snapshot || !marketplace) throw reject('snapshot-not-found', `no snapshot ${id}`);
  return { snapshot, marketplace, repo: deps.gitStore.quarantinePath(marketplace.id) };
}
