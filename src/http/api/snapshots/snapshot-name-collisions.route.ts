import { Type } from 'typebox';
import { addressedSnapshot } from '../../../application/snapshots/addressed-snapshot.ts';
import { readLayout } from '../../../domain/plugin/layout.ts';
import { manifestPath } from '../../../domain/plugin/manifest-policy.ts';
import { liveMarketplaces } from '../../../projections/marketplaces/marketplaces.queries.ts';
import type { HttpApp, HttpDeps } from '../../http-deps.ts';
import { IdParams, problemResponses } from '../../schemas/common.schema.ts';
import { tags } from './snapshots.shared.ts';

const Collisions = Type.Object({
  snapshotId: Type.Integer(),
  marketplace: Type.String(),
  collisions: Type.Array(Type.Object({ name: Type.String(), marketplaces: Type.Array(Type.String()) })),
});

/** The plugin names the manifest of a commit declares (none when it has no manifest). */
async function pluginNames(deps: HttpDeps, repo: string, sha: string): Promise<string[]> {
  const bytes = await deps.gitStore.readFile(repo, sha, manifestPath, deps.vetting.maxFileBytes);
  if (bytes === null) return [];
  const text = bytes.toString('utf8');
  const file = { path: manifestPath, size: text.length, text, binary: false, oversized: false };
  return readLayout(new Map([[manifestPath, file]])).plugins.map((p) => p.name);
}

export function snapshotNameCollisionsRoute(app: HttpApp, deps: HttpDeps): void {
  app.get(
    '/api/v1/snapshots/:id/name-collisions',
    {
      schema: {
        tags,
        params: IdParams,
        response: { 200: Collisions, ...problemResponses(404, 409) },
        summary: "This snapshot's plugin names that another served marketplace also claims, or that it claims twice",
        description:
          'Such a name would be published for no claimant in the virtual catalog. ' +
          '`marketplaces` is in name order.',
      },
    },
    async (request) => {
      const { snapshot, marketplace, repo } = await addressedSnapshot(deps, request.params.id);
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
    },
  );
}
