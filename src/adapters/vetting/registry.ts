import type { Connector } from './connector.ts';
import { httpConnector, type HttpScannerSettings } from './http.connector.ts';
import { configureVettingPool } from './vetting-pool.ts';
import { workerConnectors } from './worker-connectors.ts';

export type ConnectorSettings = Readonly<{
  http: Readonly<{ url: string | null; timeoutMs: number }>;
  /** Heap limit of the vetting workers (gateway.vetting.worker-memory); V8's default when absent. */
  workerMemoryMb?: number;
}>;

/**
 * Every connector the gateway has, in the default chain order: the cheap structural checks first,
 * the external scanner last. `http` is present only when gateway.vetting.http.url is set. All but `http`
 * read the tree alone and run in the vetting workers (worker-connectors.ts).
 */
export function builtInConnectors(settings: ConnectorSettings): Connector[] {
  configureVettingPool({ workerMemoryMb: settings.workerMemoryMb });
  const connectors = workerConnectors(); // manifest, secrets, hooks, mcp, instructions, license
  if (settings.http.url !== null) connectors.push(httpConnector(settings.http as HttpScannerSettings));
  return connectors;
}
