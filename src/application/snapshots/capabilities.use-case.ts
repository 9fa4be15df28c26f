// The capability inventory of a snapshot (what each plugin can do once installed), read from its pinned
// tree with the same script reading the hooks connector uses.
import { readScriptsOf } from '../../adapters/vetting/script-reading.ts';
import { capabilityInventory, type Capability, type CapabilityKind } from '../../domain/vetting/capabilities.ts';
import type { ScanInput } from '../../domain/kernel/findings.ts';
import { addressedSnapshot } from './addressed-snapshot.ts';
import { snapshotTree } from '../policy/evaluation.ts';
import type { Ports } from '../kernel/ports.ts';

/** A capability as answered: plain arrays. */
export type CapabilityView = {
  kind: CapabilityKind;
  value: string;
  events: string[];
  sources: { path: string; line: number }[];
};
export const capabilityView = (c: Capability): CapabilityView => ({
  kind: c.kind,
  value: c.value,
  events: [...c.events],
  sources: c.sources.map((s) => ({ path: s.path, line: s.line })),
});

export type SnapshotCapabilities = {
  snapshotId: number;
  sha: string;
  plugins: { name: string; capabilities: CapabilityView[] }[];
};

/** What every plugin of a tree can do once installed. */
export const capabilitiesOfTree = async (tree: ScanInput): Promise<SnapshotCapabilities['plugins']> =>
  capabilityInventory(tree, await readScriptsOf(tree)).map((p) => ({
    name: p.name,
    capabilities: p.capabilities.map(capabilityView),
  }));

/** The inventory of one snapshot (held ones too); 404 when unknown, 409 when its content was purged. */
export async function snapshotCapabilities(
  deps: Pick<Ports, 'pool' | 'gitStore' | 'vetting'>,
  id: number,
): Promise<SnapshotCapabilities> {
  const { snapshot } = await addressedSnapshot(deps, id);
  const plugins = await capabilitiesOfTree(await snapshotTree(deps, snapshot));
  return { snapshotId: snapshot.id, sha: snapshot.sha, plugins };
}
