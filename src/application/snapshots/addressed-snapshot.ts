import type { MarketplaceRecord } from '../../projections/marketplaces/marketplaces.queries.ts';
import { addressedRead, type Addressed } from '../../projections/snapshots/addressed.queries.ts';
import type { SnapshotRecord } from '../../projections/snapshots/snapshots.queries.ts';
import type { Ports } from '../kernel/ports.ts';
import { reject } from '../kernel/rejected.ts';

export type AddressedSnapshot = Readonly<{ snapshot: SnapshotRecord; marketplace: MarketplaceRecord; repo: string }>;

/** What the caller reads: the snapshot's content (the default), or only its record (no git object). */
export type Addressing = Readonly<{ readsContent?: boolean }>;

/**
 * The snapshot a request addresses, its marketplace (removed ones too: their records stay readable) and
 * the quarantine repository holding its tree; 404 when unknown. Roles are resolved from these.
 */
export async function addressedSnapshot(
  deps: Pick<Ports, 'pool' | 'gitStore'>,
  id: number,
  addressing: Addressing = {},
): Promise<AddressedSnapshot> {
  return addressedFrom(deps, id, await addressedRead(deps.pool, id), addressing);
}

/**
 * The refusals of an address read: 404 for an unknown snapshot.
 *
 * docs/retention.md: "The row of an administratively withdrawn snapshot is never permanently removed; only its
 * content is reclaimed." Such a row outlives its purge, its content does not: a caller reading content is
 * refused 409 `snapshot-purged` (not the 500 of a missing git object); a record read (`readsContent: false`:
 * vetting report, four-eyes, release age, fetchers, provenance) still answers.
 */
export function addressedFrom(
  deps: Pick<Ports, 'gitStore'>,
  id: number,
  { snapshot, marketplace, purgedAt }: Addressed,
  addressing: Addressing = {},
): AddressedSnapshot {
  if (!snapshot || !marketplace) throw reject('snapshot-not-found', `no snapshot ${id}`);
  if ((addressing.readsContent ?? true) && snapshot.administrative && snapshot.deletedAt !== null && purgedAt !== null)
    throw reject(
      'snapshot-purged',
      `snapshot ${id} was purged at ${purgedAt}: its row is kept (withdrawn administratively), its content is gone`,
      { purgedAt },
    );
  return { snapshot, marketplace, repo: deps.gitStore.quarantinePath(marketplace.id) };
}
