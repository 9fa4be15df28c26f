import type { CatalogStore } from '../../adapters/git/catalog-store.ts';
import type { GitStore } from '../../adapters/git/git-store.ts';
import {
  catalogFiles,
  catalogManifestPath,
  catalogPluginPath,
  catalogRecordPath,
  planCatalog,
  type Candidate,
  type CatalogPlan,
  type CatalogRecord,
  type Skipped,
} from '../../domain/catalog/catalog-plan.ts';
import type { CatalogConstituent } from '../../domain/catalog/catalog.events.ts';
import { createHash } from 'node:crypto';
import {
  guardCatalogEntry,
  guardPluginDir,
  guardPluginFiles,
  guardPluginName,
} from '../../domain/catalog/guard-plugin.ts';

/** A live marketplace's served tip, with the marketplace's id (its quarantine and constituent repository). */
export type EstateConstituent = CatalogConstituent & { marketplaceId: number };

export type CompositionDeps = Readonly<{
  name: string;
  gitStore: GitStore;
  catalogStore: CatalogStore;
  now(): string;
  maxManifestBytes?: number;
  /** gateway.catalog.guard: the catalog carries the gateway-guard plugin. */
  guard?: boolean;
}>;

/** What identifies the guard plugin's content: a catalog built with another one is rebuilt. */
export const guardFingerprint = createHash('sha256')
  .update(JSON.stringify([guardCatalogEntry, Object.entries(guardPluginFiles)]))
  .digest('hex');

export type ComposedCatalog = Readonly<{
  sha: string;
  record: CatalogRecord;
  plan: CatalogPlan;
  /** How many plugins the catalog lists (candidates whose directory exists). */
  plugins: number;
}>;

type Listed = { candidate: Candidate; tree: string };

/**
 * The plan-to-tree composition: takes each constituent's commit from quarantine, plans the catalog from their
 * manifests, and commits the catalog (its manifest, its record, and every listed plugin's tree). The commit is
 * not served yet.
 */
export async function composeCatalog(
  deps: CompositionDeps,
  constituents: readonly EstateConstituent[],
): Promise<ComposedCatalog> {
  const { catalogStore, gitStore, name } = deps;
  for (const c of constituents)
    await catalogStore.fetchConstituent(c.marketplaceId, gitStore.quarantinePath(c.marketplaceId), c.sha);
  const plan = planCatalog(
    await Promise.all(
      constituents.map(async (c) => ({
        marketplace: c.marketplace,
        sha: c.sha,
        manifest: await catalogStore.constituentFile(c.sha, catalogManifestPath, deps.maxManifestBytes),
      })),
    ),
  );
  const trees = await pluginTrees(catalogStore, plan);
  const { listed, missing } = deps.guard ? withoutReserved(trees) : trees;
  const generatedAt = deps.now();
  const files = catalogFiles({
    catalog: name,
    generatedAt,
    plan,
    listed: listed.map((l) => l.candidate),
    missing,
    guard: deps.guard ? { entry: guardCatalogEntry, fingerprint: guardFingerprint } : null,
  });
  const guardBlobs = deps.guard
    ? Object.entries(guardPluginFiles).map(([path, text]) => ({ path: `${guardPluginDir}/${path}`, text }))
    : [];
  const sha = await catalogStore.commit({
    blobs: [
      { path: catalogManifestPath, text: files.manifest },
      { path: catalogRecordPath, text: files.recordText },
      ...guardBlobs,
    ],
    trees: listed.map((l) => ({ path: catalogPluginPath(l.candidate), tree: l.tree })),
    message: files.message,
    generatedAt,
  });
  return { sha, record: files.record, plan, plugins: listed.length };
}

/** With the guard on, its name is the gateway's: a constituent's plugin of that name is skipped, and says why. */
function withoutReserved({ listed, missing }: { listed: Listed[]; missing: Skipped[] }): {
  listed: Listed[];
  missing: Skipped[];
} {
  const reserved = listed.filter((l) => l.candidate.name === guardPluginName);
  return {
    listed: listed.filter((l) => l.candidate.name !== guardPluginName),
    missing: [
      ...missing,
      ...reserved.map(({ candidate }) => ({
        marketplace: candidate.marketplace,
        name: candidate.name,
        reason: `the name ${guardPluginName} is the gateway's own plugin in this catalog (gateway.catalog.guard)`,
      })),
    ],
  };
}

/** Each candidate's tree in its constituent commit; a candidate whose directory is missing is skipped. */
async function pluginTrees(
  catalogStore: CatalogStore,
  plan: CatalogPlan,
): Promise<{ listed: Listed[]; missing: Skipped[] }> {
  const trees = await catalogStore.trees(plan.candidates.map((c) => ({ sha: c.sha, dir: c.root })));
  const listed: Listed[] = [];
  const missing: Skipped[] = [];
  plan.candidates.forEach((candidate, i) => {
    const tree = trees[i];
    if (tree) listed.push({ candidate, tree });
    else
      missing.push({
        marketplace: candidate.marketplace,
        name: candidate.name,
        reason: `no directory '${candidate.root || '.'}' in ${candidate.sha}`,
      });
  });
  return { listed, missing };
}
