// The content diff of a snapshot (docs/marketplaces.md, Reads of a snapshot): its plugins and skills against the live
// approved baseline, and for each plugin the capabilities it newly asks users to let it have and those it drops (its
// capability inventory against the baseline's; with no baseline everything is added).
import { gitText } from '../../adapters/git/git-process.ts';
import { listTree } from '../../adapters/git/tree-reader.ts';
import { readScriptsOf } from '../../adapters/vetting/script-reading.ts';
import { contentDiff, type ContentDiff, type DiffSide, type PluginDiff } from '../../domain/plugin/content-diff.ts';
import { layoutOf } from '../../domain/plugin/layout.ts';
import { pluginCapabilityChanges, type CapabilityChanges } from '../../domain/vetting/capabilities-diff.ts';
import { capabilityInventory, type PluginCapabilities } from '../../domain/vetting/capabilities.ts';
import { snapshotsOf, type SnapshotRecord } from '../../projections/snapshots/snapshots.queries.ts';
import { addressedSnapshot } from './addressed-snapshot.ts';
import { snapshotTree } from '../policy/evaluation.ts';
import type { Ports } from '../kernel/ports.ts';
import { capabilityView, type CapabilityView } from './capabilities.use-case.ts';

/** The git tree id of every directory of a commit ('' is the root tree). */
async function treeIds(repo: string, sha: string): Promise<(dir: string) => string | null> {
  const [entries, root] = await Promise.all([
    listTree(repo, sha, { trees: true }),
    gitText(['-C', repo, 'rev-parse', `${sha}^{tree}`]),
  ]);
  const trees = new Map(entries.filter((e) => e.type === 'tree').map((e) => [e.path, e.oid]));
  return (dir) => (dir === '' ? root : (trees.get(dir) ?? null));
}

/** The live approved snapshot a change is judged against: the newest approval other than this one. */
function baselineOf(snapshot: SnapshotRecord, siblings: readonly SnapshotRecord[]): SnapshotRecord | null {
  const approved = siblings.filter((s) => s.state === 'approved' && s.id !== snapshot.id && s.deletedAt === null);
  approved.sort((a, b) => (b.approvedAt ?? '').localeCompare(a.approvedAt ?? '') || b.id - a.id);
  return approved[0] ?? null;
}

export type PluginContentDiff = PluginDiff & {
  capabilitiesAdded: CapabilityView[];
  capabilitiesRemoved: CapabilityView[];
};

export type SnapshotContentDiff = Omit<ContentDiff, 'plugins'> &
  Readonly<{
    snapshotId: number;
    sha: string;
    state: string;
    baselineSnapshotId: number | null;
    baselineSha: string | null;
    plugins: PluginContentDiff[];
  }>;

const none: CapabilityChanges = { added: [], removed: [] };

/** The content diff of one snapshot; 404 when unknown, 409 when its content was purged. */
export async function snapshotContentDiff(
  deps: Pick<Ports, 'pool' | 'gitStore' | 'vetting'>,
  id: number,
): Promise<SnapshotContentDiff> {
  const { snapshot, marketplace, repo } = await addressedSnapshot(deps, id);
  const baseline = baselineOf(snapshot, await snapshotsOf(deps.pool, [marketplace.id]));
  const side = async (s: SnapshotRecord): Promise<DiffSide & { capabilities: PluginCapabilities[] }> => {
    const [tree, treeOf] = await Promise.all([snapshotTree(deps, s), treeIds(repo, s.sha)]);
    return { layout: layoutOf(tree), treeOf, capabilities: capabilityInventory(tree, await readScriptsOf(tree)) };
  };
  const current = await side(snapshot);
  const before = baseline ? await side(baseline) : null;
  const diff = contentDiff(current, before);
  const changes = pluginCapabilityChanges(current.capabilities, before?.capabilities ?? null);
  return {
    snapshotId: snapshot.id,
    sha: snapshot.sha,
    state: snapshot.state,
    baselineSnapshotId: baseline?.id ?? null,
    baselineSha: baseline?.sha ?? null,
    ...diff,
    plugins: diff.plugins.map((plugin) => {
      const { added, removed } = changes.get(plugin.name) ?? none;
      return {
        ...plugin,
        capabilitiesAdded: added.map(capabilityView),
        capabilitiesRemoved: removed.map(capabilityView),
      };
    }),
  };
}
