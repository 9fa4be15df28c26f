import { registrationRefusal } from '../marketplace/trust-boundary.ts';
import {
  accept,
  refuse,
  type CommandMeta,
  type Decider,
  type Decision,
  type Instant,
  type Rejection,
} from '../kernel/decider.ts';
import { ledgerUrl } from './ledger-url.ts';

// A signed outbound endpoint (docs/webhooks.md): a target URL the gateway POSTs to, signed with a Standard
// Webhooks secret, each delivery attempted until delivered or out of attempts. Webhook subscribers and audit
// sinks are its two specialisations: the subscriber adds the event kinds it receives (one delivery per event),
// the sink its name, switches and ledger cursor (one delivery per batch of entries). What they share lives here:
// registration (the trust boundary, the fields every created event carries), the lookup of one endpoint, and
// what an attempt at a delivery records.

/**
 * One kind of endpoint: how refusals name one (`no audit sink 3`) and its URL (`the sink url is outside …`), the
 * counter its ids come from, the one stream all of its kind live in (so a name is taken or freed in order), and
 * its decider.
 */
export type EndpointSpec<S, C, E> = Readonly<{
  noun: string;
  url: string;
  counter: string;
  stream: string;
  decider: Decider<S, C, E>;
}>;

/** What registering any endpoint takes: its URL, its signing secret (sealed), the URL schemes the gateway allows. */
export type EndpointRegistration = Readonly<{ url: string; sealedSecret: string; allowedSchemes: readonly string[] }>;

/** The fields that close every endpoint's created event, in the order it records them (never the open secret). */
export type EndpointSigned = Readonly<{
  sealedSecret: string;
  createdBy: string;
  createdAt: Instant;
  ledgerUrl: string;
}>;

/** A check of a registration: its refusal, or null. */
export type RegistrationCheck = () => Rejection | null;

/** 400 for a URL the trust boundary refuses (an upstream URL's rules: allowed scheme, no credentials). */
export const endpointUrlCheck =
  (registration: EndpointRegistration): RegistrationCheck =>
  () =>
    registrationRefusal(
      { origin: 'upstream', url: registration.url, ref: null, pushPolicy: null },
      registration.allowedSchemes,
    );

/**
 * A registration: the first refusal among `checks` (run in order), else the event `created` makes of the
 * signed fields (the URL as the ledger names it, decision 357; the acting principal and instant).
 */
export function registerEndpoint<E>(
  registration: EndpointRegistration,
  meta: CommandMeta,
  checks: readonly RegistrationCheck[],
  created: (signed: EndpointSigned) => E,
): Decision<E> {
  for (const check of checks) {
    const rejection = check();
    if (rejection) return refuse<E>(rejection);
  }
  const signed = {
    sealedSecret: registration.sealedSecret,
    createdBy: meta.principal,
    createdAt: meta.at,
    ledgerUrl: ledgerUrl(registration.url),
  };
  return accept(created(signed));
}

/** The endpoint `id` given to `decide`, or the 404 that names it (`no audit sink 3`). */
export function withEndpoint<T, E>(
  endpoints: ReadonlyMap<number, T>,
  id: number,
  noun: string,
  decide: (endpoint: T) => Decision<E>,
): Decision<E> {
  const endpoint = endpoints.get(id);
  return endpoint === undefined ? refuse<E>({ code: 'not-found', detail: `no ${noun} ${id}` }) : decide(endpoint);
}

/** The endpoints after one of them was created or changed (`kept`), or deleted (null). */
export function evolveEndpoints<T>(endpoints: ReadonlyMap<number, T>, id: number, kept: T | null): Map<number, T> {
  const next = new Map(endpoints);
  if (kept === null) next.delete(id);
  else next.set(id, kept);
  return next;
}

/** The retry schedule (docs/webhooks.md, Deliveries): attempt n is followed by base * 2^(n-1), capped at max. */
export const backoffAfter = (attempt: number, baseMs: number, maxMs: number): number =>
  Math.min(maxMs, baseMs * 2 ** Math.max(0, attempt - 1));

/** gateway.webhooks.* as an attempt's outcome depends on them. */
export type RetryPolicy = Readonly<{ maxAttempts: number; baseBackoffMs: number; maxBackoffMs: number }>;

/**
 * What an attempt at a delivery records (webhook-delivery-attempted's data): `attempts` made before it, whether
 * the endpoint answered 2xx. Delivered, retrying (the next attempt after the backoff) or failed (the last one).
 */
export function attemptRecord(
  delivery: Readonly<{ id: number; attempts: number }>,
  result: Readonly<{ ok: boolean; status: number | null; error: string | null }>,
  policy: RetryPolicy,
  at: Instant,
) {
  const attempt = delivery.attempts + 1;
  const outcome = result.ok ? 'delivered' : attempt >= policy.maxAttempts ? 'failed' : 'retrying';
  const delay = backoffAfter(attempt, policy.baseBackoffMs, policy.maxBackoffMs);
  return {
    deliveryId: delivery.id,
    attempt,
    outcome,
    status: result.status,
    error: result.error,
    nextAttemptAt: outcome === 'retrying' ? new Date(Date.parse(at) + delay).toISOString() : null,
    at,
  } as const;
}
