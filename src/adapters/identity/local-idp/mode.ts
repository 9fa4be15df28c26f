// Whether the built-in issuer runs (docs/local-idp.md): only with neither an identity provider nor the
// development hatch configured, and beyond loopback (base URL or listening host) only when enabled explicitly.
import { isIPv4 } from 'node:net';
import type { GatewayConfig } from '../../config/schema.ts';

export class LocalIdpRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LocalIdpRefused';
  }
}

/** A host only this machine reaches: 127.0.0.0/8, ::1 or localhost (never 0.0.0.0 or ::, which are every interface). */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/^\[(.*)\]$/, '$1');
  if (host === 'localhost' || host === '::1') return true;
  return isIPv4(host) && host.startsWith('127.');
}

/** 127.0.0.0/8, ::1 and localhost: addresses only this machine reaches. */
export const isLoopbackUrl = (url: string): boolean => isLoopbackHost(new URL(url).hostname);

type Settings = Pick<GatewayConfig, 'oidc' | 'devInsecureAuth' | 'baseUrl' | 'localIdp'> &
  Readonly<{ server: Pick<GatewayConfig['server'], 'host'> }>;

/**
 * true when the built-in issuer runs; throws LocalIdpRefused when it would run where it must not. Both what
 * browsers are told (gateway.base-url) and where the server listens (gateway.server.host) must be loopback:
 * a loopback base URL on 0.0.0.0 still answers the whole network (decision 355).
 */
export function localIdpRuns(config: Settings): boolean {
  if (config.oidc.issuer !== null || config.devInsecureAuth) return false;
  if (config.localIdp.enabled !== null) return config.localIdp.enabled;
  const exposed = [
    ...(isLoopbackUrl(config.baseUrl) ? [] : [`gateway.base-url ${config.baseUrl}`]),
    ...(isLoopbackHost(config.server.host) ? [] : [`gateway.server.host ${config.server.host}`]),
  ];
  if (exposed.length === 0) return true;
  throw new LocalIdpRefused(
    `the built-in sign-in (issuer at /local-idp, local account admin) would be reachable beyond this machine: ` +
      `${exposed.join(' and ')} ${exposed.length > 1 ? 'are' : 'is'} not a loopback address (127.0.0.0/8, ::1, ` +
      `localhost). Configure an identity provider (gateway.oidc.issuer), or set gateway.local-idp.enabled: true ` +
      `to run the built-in sign-in on this address, or gateway.local-idp.enabled: false to start without any sign-in`,
  );
}
