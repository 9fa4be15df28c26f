// Whether the built-in issuer runs (issue 19): only with neither an identity provider nor the
// development hatch configured, and on a non-loopback base URL only when enabled explicitly.
import { isIPv4 } from 'node:net';
import type { GatewayConfig } from '../../config/schema.ts';

export class LocalIdpRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LocalIdpRefused';
  }
}

/** 127.0.0.0/8, ::1 and localhost: addresses only this machine reaches. */
export function isLoopbackUrl(url: string): boolean {
  const host = new URL(url).hostname.toLowerCase();
  if (host === 'localhost' || host === '[::1]') return true;
  return isIPv4(host) && host.startsWith('127.');
}

type Settings = Pick<GatewayConfig, 'oidc' | 'devInsecureAuth' | 'baseUrl' | 'localIdp'>;

/** true when the built-in issuer runs; throws LocalIdpRefused when it would run where it must not. */
export function localIdpRuns(config: Settings): boolean {
  if (config.oidc.issuer !== null || config.devInsecureAuth) return false;
  if (config.localIdp.enabled !== null) return config.localIdp.enabled;
  if (isLoopbackUrl(config.baseUrl)) return true;
  throw new LocalIdpRefused(
    `the built-in sign-in (issuer at /local-idp, local account admin) would serve gateway.base-url ` +
      `${config.baseUrl}, which is not a loopback address (127.0.0.0/8, ::1, localhost). Configure an identity ` +
      `provider (gateway.oidc.issuer), or set gateway.local-idp.enabled: true to run the built-in sign-in on ` +
      `this address, or gateway.local-idp.enabled: false to start without any sign-in`,
  );
}
