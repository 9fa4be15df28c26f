// gateway.outbound.* (decision 340): where the gateway's own requests may go.
import { defaultDenyNetworks, parseNetwork } from '../../domain/outbound/networks.ts';
import { g } from './key-values.ts';
import { list } from './key-spec.ts';

export const outboundKeys = {
  outbound: {
    denyNetworks: list(
      g('outbound.deny-networks'),
      defaultDenyNetworks,
      'Networks (CIDR, IPv4 or IPv6; an address alone is one host) the gateway never connects to: upstream ' +
        'git reads, external plugin sources, webhook deliveries, audit sink batches and the mirror push are ' +
        'checked on the address a host name resolves to, at connect time, redirects included ' +
        '(docs/outbound.md). The default holds link-local (and with it the cloud metadata address ' +
        '169.254.169.254), the other cloud metadata addresses and 0.0.0.0/8; private ranges and loopback ' +
        'stay reachable. IPv4-mapped IPv6 addresses count as their IPv4 address. An empty list turns the ' +
        'boundary off.',
      {
        check: (text) => {
          const parsed = parseNetwork(text);
          return 'problem' in parsed ? parsed.problem : null;
        },
      },
    ),
  },
};
