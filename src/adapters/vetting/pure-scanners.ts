// The connectors that are pure functions of the tree, by name: what a vetting worker can run with
// nothing but the files (vetting-worker.ts), and what the calling thread runs for a small tree.
import { instructionsConnector } from '../../domain/vetting/connectors/instructions.connector.ts';
import { manifestConnector } from '../../domain/vetting/connectors/manifest.connector.ts';
import { mcpConnector } from '../../domain/vetting/connectors/mcp.connector.ts';
import type { PureScanner } from '../../domain/vetting/findings.ts';

export const pureConnectors = [manifestConnector, mcpConnector, instructionsConnector] as const;

export const pureScanners: Readonly<Record<string, PureScanner>> = Object.fromEntries(
  pureConnectors.map((c) => [c.name, c.scan]),
);
