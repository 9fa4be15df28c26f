import { instructionsConnector } from '../../domain/vetting/connectors/instructions.connector.ts';
import { manifestConnector } from '../../domain/vetting/connectors/manifest.connector.ts';
import { mcpConnector } from '../../domain/vetting/connectors/mcp.connector.ts';
import { pureConnector } from './chain.ts';
import type { Connector } from './connector.ts';
import { httpConnector, type HttpScannerSettings } from './http.connector.ts';
import { hooksConnector } from './hooks.connector.ts';
import { licenseConnector } from './license.connector.ts';
import { secretsConnector } from './secrets.connector.ts';

export type ConnectorSettings = Readonly<{ http: Readonly<{ url: string | null; timeoutMs: number }> }>;

/**
 * Every connector the gateway has, in the default chain order: the cheap structural checks first,
 * the external scanner last. `http` is present only when gateway.vetting.http.url is set.
 */
export function builtInConnectors(settings: ConnectorSettings): Connector[] {
  const pure = [manifestConnector, mcpConnector, instructionsConnector].map((c) =>
    pureConnector(c.name, c.description, c.scan),
  );
  const [manifest, mcp, instructions] = pure as [Connector, Connector, Connector];
  const connectors = [manifest, secretsConnector, hooksConnector(), mcp, instructions, licenseConnector];
  if (settings.http.url !== null) connectors.push(httpConnector(settings.http as HttpScannerSettings));
  return connectors;
}
