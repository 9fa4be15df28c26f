// The connectors that read nothing but the tree, by name: what a vetting worker runs over a whole tree
// (vetting-worker.ts), and what the calling thread runs for a small one (worker-connectors.ts). The pure
// ones (manifest, mcp, instructions) are the domain's; secrets (secretlint) and license (the SPDX texts,
// read from the installed package) are adapters, and asynchronous.
import { instructionsConnector } from '../../domain/vetting/connectors/instructions.connector.ts';
import { manifestConnector } from '../../domain/vetting/connectors/manifest.connector.ts';
import { mcpConnector } from '../../domain/vetting/connectors/mcp.connector.ts';
import type { ScanInput, ScanReport } from '../../domain/kernel/findings.ts';
import { licenseConnector, scanLicenses } from './license.connector.ts';
import { scanSecrets, secretsConnector } from './secrets.connector.ts';

/** A connector that reads the tree alone; `signal` stops an asynchronous one between its steps. */
export type TreeScanner = Readonly<{
  name: string;
  description: string;
  scan(input: ScanInput, signal?: AbortSignal): ScanReport | Promise<ScanReport>;
}>;

const named = (connector: Readonly<{ name: string; description: string }>, scan: TreeScanner['scan']): TreeScanner => ({
  name: connector.name,
  description: connector.description,
  scan,
});

/** In the default chain order (registry.ts puts hooks between secrets and mcp). */
export const treeScanners: readonly TreeScanner[] = [
  manifestConnector,
  named(secretsConnector, scanSecrets),
  mcpConnector,
  instructionsConnector,
  named(licenseConnector, scanLicenses),
];

export const treeScannerNamed: ReadonlyMap<string, TreeScanner> = new Map(treeScanners.map((s) => [s.name, s]));
