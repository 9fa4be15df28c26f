import { marketplaceById } from '../../../projections/marketplaces/marketplaces.queries.ts';
import { snapshotById } from '../../../projections/snapshots/snapshots.queries.ts';
import type { HttpDeps } from '../../http-deps.ts';
import { reject } from '../../problems.ts';

/**
 * The snapshot a route addresses, its marketplace (removed ones too: their records stay readable) and
 * the quarantine repository holding its tree; 404 when unknown. Roles are resolved from these.
 */
export async function addressedSnapshot(deps: HttpDeps, id: number) {
  const snapshot = await snapshotById(deps.pool, id);
  const marketplace = snapshot ? await marketplaceById(deps.pool, snapshot.marketplaceId) : null;
  if (!snapshot || !marketplace) throw reject('snapshot-not-found', `no snapshot ${id}`);
  return { snapshot, marketplace, repo: deps.gitStore.quarantinePath(marketplace.id) };
}
