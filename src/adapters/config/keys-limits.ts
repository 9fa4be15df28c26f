// gateway.rate-limit.* (docs/operations.md): request budgets per credential and per address, one set for the
// management API and one for the facade; and gateway.server.trusted-proxies, which decides the address.
import { isIP } from 'node:net';
import type { StringCheck } from './checks.ts';
import { g } from './key-values.ts';
import { duration, flag, integer, list } from './key-spec.ts';

const who = {
  api: 'one credential (session or machine credential)',
  facade: 'one credential (personal access token or identity-provider bearer token)',
} as const;

const budget = (surface: 'api' | 'facade', per: 'credential' | 'address', fallback: number, paths: string) =>
  integer(
    g(`rate-limit.${surface}.per-${per}`),
    fallback,
    `Requests to ${paths} ${per === 'credential' ? who[surface] : 'one client address'} may make per window, ` +
      'on each replica; over it the request is answered 429 with Retry-After. 0 means no budget of this kind.',
  );

export const rateLimitKeys = {
  enabled: flag(
    g('rate-limit.enabled'),
    true,
    'Apply the request budgets below; false lets every request through. /actuator/health is never limited.',
  ),
  windowMs: duration(
    g('rate-limit.window'),
    '1m',
    'Length of the fixed window the budgets count in; a refused client is told to retry when its window ends.',
    { positive: true },
  ),
  api: {
    perCredential: budget('api', 'credential', 1200, '/api/v1/**'),
    perAddress: budget('api', 'address', 6000, '/api/v1/**'),
  },
  facade: {
    perCredential: budget(
      'facade',
      'credential',
      6000,
      '/git/**, /publish/** and /status/v1/** (a clone is 2 or 3 requests)',
    ),
    perAddress: budget('facade', 'address', 20000, '/git/**, /publish/** and /status/v1/**'),
  },
  // decision 352: starting a sign-in stores a login request, so it has a budget of its own.
  signIn: {
    perAddress: integer(
      g('rate-limit.sign-in.per-address'),
      60,
      'Sign-ins one client address may begin (GET /oauth2/authorization/idp) per window, on each replica; over it ' +
        'the request is answered 429 with Retry-After. 0 means no budget of this kind.',
    ),
    maxPending: integer(
      g('rate-limit.sign-in.max-pending'),
      10000,
      'Sign-ins begun and not yet finished that are kept, across replicas; beyond it the oldest is dropped (its ' +
        'browser starts again). Applies even when gateway.rate-limit.enabled is false.',
      { min: 1 },
    ),
  },
};

const namedRanges = new Set(['loopback', 'linklocal', 'uniquelocal']);

/** An address, an address/prefix, or one of the names proxy-addr knows. */
export const proxyAddress: StringCheck = (value) => {
  if (namedRanges.has(value)) return null;
  const [address = '', prefix, extra] = value.split('/');
  const family = isIP(address);
  const bits = family === 4 ? 32 : 128;
  if (family !== 0 && extra === undefined && (prefix === undefined || (/^\d+$/.test(prefix) && Number(prefix) <= bits)))
    return null;
  return `"${value}" is not an IP address, a CIDR range, or one of loopback, linklocal, uniquelocal`;
};

export const trustedProxiesKey = list(
  g('server.trusted-proxies'),
  [],
  'Addresses or CIDR ranges (or loopback, linklocal, uniquelocal) of reverse proxies whose X-Forwarded-For is believed: ' +
    'the client address (per-address budgets, the ledger source) is then the first one not trusted. Empty: the peer address.',
  { check: proxyAddress },
);
