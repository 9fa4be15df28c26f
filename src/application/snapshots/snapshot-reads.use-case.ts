// What the snapshot surfaces read beyond the snapshot itself: where it came from, who fetched it, and
// which of its plugin names another served marketplace also claims.
import { readLayout } from '../../domain/plugin/layout.ts';
import { manifestPath } from '../../domain/plugin/manifest-policy.ts';
import { liveMarketplaces } from '../../projections/marketplaces/marketplaces.queries.ts';
import { fetchersOf } from '../../projections/vetting/vetting.queries.ts';
import type { Ports } from '../kernel/ports.ts';
import { addressedSnapshot } from './addressed-snapshot.ts';

/** Who received `sha` of the marketplace through the facade, with fetch count and last fetch. */
export const snapshotFetchers = (deps: Pick<Ports, 'pool'>, marketplaceId: number, sha: string) =>
  fetchersOf(deps.pool, marketplaceId, sha);

type CollisionPorts = Parameters<typeof addressedSnapshot>[0] & Pick<Ports, 'pool' | 'gitStore' | 'vetting'>;

/** The plugin names the manifest of a commit declares (none when it has no manifest). */
async function pluginNames(deps: CollisionPorts, repo: string, sha: string): Promise<string[]> {
  const bytes = await deps.gitStore.readFile(repo, sha, manifestPath, deps.vetting.maxFileBytes);
  if (bytes === null) return [];
  const text = bytes.toString('utf8');
  const file = { path: manifestPath, size: text.length, text, binary: false, oversized: false };
  return readLayout(new Map([[manifestPath, file]])).plugins.map((p) => p.name);
}

/**
 * The plugin names of snapshot `id` that another served marketplace also claims, or that it claims
 * twice, in name order, each with its claimants in name order.
 */
export async function nameCollisions(deps: CollisionPorts, id: number) {
  const { snapshot, marketplace, repo } = await addressedSnapshot(deps, id);
  const claims = new Map<string, string[]>();
  const claim = (name: string, by: string) => claims.set(name, [...(claims.get(name) ?? []), by]);
  for (const name of await pluginNames(deps, repo, snapshot.sha)) claim(name, marketplace.name);
  for (const other of await liveMarketplaces(deps.pool)) {
    if (other.id === marketplace.id) continue;
    const served = await deps.gitStore.servedSha(other.id);
    if (served === null) continue;
    const names = await pluginNames(deps, deps.gitStore.quarantinePath(other.id), served);
    for (const name of names) if (claims.has(name)) claim(name, other.name);
  }
  const collisions = [...claims]
    .filter(([, by]) => by.length > 1)
    .map(([name, by]) => ({ name, marketplaces: [...by].sort() }))
    .sort((a, b) => a.name.localeCompare(b.name));
  return { snapshotId: snapshot.id, marketplace: marketplace.name, collisions };
}

/** Where snapshot `id` came from: its marketplace, upstream commit and when it was committed, and who decided it. */
export async function snapshotProvenance(deps: CollisionPorts, id: number) {
  const { snapshot, marketplace, repo } = await addressedSnapshot(deps, id, { readsContent: false });
  return {
    snapshotId: snapshot.id,
    marketplace: marketplace.name,
    origin: marketplace.origin,
    url: marketplace.url,
    sha: snapshot.sha,
    upstreamSha: snapshot.upstreamSha,
    composite: snapshot.sha !== snapshot.upstreamSha,
    capturedAt: snapshot.createdAt,
    ingestedBy: snapshot.ingestedBy,
    committedAt: await deps.gitStore.commitTime(repo, snapshot.upstreamSha),
    state: snapshot.state,
    decidedBy: snapshot.decidedBy,
    decidedAt: snapshot.decidedAt,
  };
}
