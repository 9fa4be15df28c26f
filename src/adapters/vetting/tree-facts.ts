// What the policy variables read from a snapshot's pinned tree: how many files, the content inventory and
// the license report (read on the calling thread or in a vetting worker: tree-facts-reading.ts).
import { inventoryOf, type InventoryPlugin } from '../../domain/plugin/inventory.ts';
import { readLayout } from '../../domain/plugin/layout.ts';
import type { ScanInput } from '../../domain/kernel/findings.ts';
import type { LicenseEntry } from '../../domain/vetting/license.ts';
import { licenseReport, prepareSpdxReferences } from './license.connector.ts';

export type TreeFacts = Readonly<{
  fileCount: number;
  plugins: readonly InventoryPlugin[];
  licenses: readonly LicenseEntry[];
}>;

/** The tree's facts, from the tree in hand. */
export async function treeFactsOf(tree: ScanInput): Promise<TreeFacts> {
  await prepareSpdxReferences(); // the license report compares LICENSE files with the SPDX texts
  return {
    fileCount: tree.files.length,
    plugins: inventoryOf(readLayout(tree.byPath)).plugins,
    licenses: licenseReport(tree).licenses,
  };
}
