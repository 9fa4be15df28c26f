import { denyNetworksKey } from '../../domain/outbound/networks.ts';
import type { Ports } from '../kernel/ports.ts';
import { reject } from '../kernel/rejected.ts';

// Refusals at registration of what the gateway will connect to later (decision 343): a 400 naming the
// rule, before anything is recorded. The connections themselves are checked again when they are made.

const refusal = (what: string, detail: string) =>
  reject('trust-boundary', `${what}: ${detail}`, {
    rule: denyNetworksKey,
    nextStep: `use a URL whose host is outside ${denyNetworksKey}, or ask the operator to change that setting`,
  });

/** Refuses a URL whose host resolves (now) to an address inside gateway.outbound.deny-networks. */
export async function refuseDeniedHost(deps: Pick<Ports, 'outbound'>, url: string, what: string): Promise<void> {
  const detail = await deps.outbound.refusalFor(url);
  if (detail !== null) throw refusal(what, detail);
}

/** Refuses a URL whose host is an IP address inside gateway.outbound.deny-networks (no resolution). */
export function refuseDeniedLiteral(deps: Pick<Ports, 'outbound'>, url: string, what: string): void {
  const detail = deps.outbound.literalRefusal(url);
  if (detail !== null) throw refusal(what, detail);
}
