import { appendFacts } from '../../adapters/eventstore/append-facts.ts';
import type { Position } from '../../adapters/eventstore/port.ts';
import type { DomainEvent } from '../../domain/events.ts';
import type { CommandMeta, Decider } from '../../domain/kernel/decider.ts';
import type { EndpointRegistration } from '../../domain/webhook/signed-endpoint.ts';
import type { DatabasePool } from '../../adapters/postgres/pool.ts';
import { execute } from '../kernel/execute.ts';
import { periodicDuty, type WakeableDuty } from '../kernel/periodic-duty.ts';
import type { Ports } from '../kernel/ports.ts';
import { reject } from '../kernel/rejected.ts';
import { metadataOf } from '../kernel/run-command.ts';
import { systemMeta } from '../kernel/system-meta.use-case.ts';
import { refuseDeniedLiteral } from './outbound-checks.ts';
import { newSigningSecret } from './signing-secret.ts';

// The use cases' half of a signed outbound endpoint (domain/webhook/signed-endpoint.ts): registering one
// (the outbound boundary, the secret issued or declared and stored sealed, the id), changing or deleting one
// through its decider, reading it back or 404; and for the leader duties that deliver to endpoints, recording
// what they did as a system fact and running as a periodic duty. Webhook subscribers and audit sinks each
// describe themselves as an EndpointKind.

export type EndpointPorts = Pick<
  Ports,
  'store' | 'waiter' | 'pool' | 'ids' | 'access' | 'secrets' | 'marketplaces' | 'outbound'
>;

/** One specialisation of the endpoint: its decider and stream, what its answers wait for and read. */
export type EndpointKind<S, C extends { type: string; meta: CommandMeta }, E extends DomainEvent, R> = Readonly<{
  /** As refusals name one endpoint: `no ${noun} 3`. */
  noun: string;
  /** As the outbound boundary's refusal names its URL. */
  url: string;
  /** The id counter. */
  counter: string;
  decider: Decider<S, C, E>;
  stream: string;
  readModels: readonly string[];
  byId: (pool: DatabasePool, id: number) => Promise<R | null>;
}>;

/** The endpoint as its read model answers it; 404 when there is none. */
export async function endpointOrNotFound<R>(
  deps: Pick<Ports, 'pool'>,
  kind: Pick<EndpointKind<never, never, never, R>, 'noun' | 'byId'>,
  id: number,
): Promise<R> {
  const endpoint = await kind.byId(deps.pool, id);
  if (!endpoint) throw reject('not-found', `no ${kind.noun} ${id}`);
  return endpoint;
}

/** Runs a command on the kind's stream and waits for its read models; the decider's refusal is raised. */
export async function changeEndpoint<S, C extends { type: string; meta: CommandMeta }, E extends DomainEvent, R>(
  deps: EndpointPorts,
  kind: EndpointKind<S, C, E, R>,
  command: C,
): Promise<void> {
  await execute(deps, kind.decider, kind.stream, command, kind.readModels);
}

/**
 * Registers an endpoint at `url` (400 inside gateway.outbound.deny-networks, before anything is recorded):
 * `declaredSecret` is the signing secret a caller brings (the declarative estate), null to issue one. The
 * command `create` makes of the new id and the registration is run; answered with the secret, this once.
 */
export async function addEndpoint<S, C extends { type: string; meta: CommandMeta }, E extends DomainEvent, R>(
  deps: EndpointPorts,
  kind: EndpointKind<S, C, E, R>,
  url: string,
  declaredSecret: string | null,
  create: (id: number, registration: EndpointRegistration) => C,
): Promise<R & { secret: string }> {
  refuseDeniedLiteral(deps, url, `the ${kind.url} url is outside the outbound boundary`);
  const secret = declaredSecret ?? newSigningSecret();
  const id = await deps.ids(kind.counter);
  const registration = {
    url,
    sealedSecret: deps.secrets.seal(secret),
    allowedSchemes: deps.marketplaces.allowedUrlSchemes,
  };
  await changeEndpoint(deps, kind, create(id, registration));
  return { ...(await endpointOrNotFound(deps, kind, id)), secret };
}

/** Appends what a delivering duty (`principal`) did at `at` as a system fact; returns its position. */
export async function recordOutbound(
  deps: Pick<Ports, 'store' | 'clock'>,
  principal: string,
  stream: string,
  recorded: DomainEvent,
  at: string,
): Promise<Position> {
  const meta = { ...systemMeta(deps, principal), at };
  return (await appendFacts(deps.store, stream, [recorded], metadataOf(meta), 'any')).position;
}

/**
 * A delivering leader duty (`component`): `pass` every `intervalMs`, never two at once; nothing when `disabled`
 * names why. `after` is told what each pass returned (to wake the other duty).
 */
export function outboundDuty<T>(
  deps: Pick<Ports, 'logger'>,
  options: Readonly<{
    component: string;
    intervalMs: number;
    disabled: string | null;
    pass: () => Promise<T>;
    after: (result: T) => void;
  }>,
): WakeableDuty {
  return periodicDuty({
    log: deps.logger.child({ component: options.component }),
    intervalMs: options.intervalMs,
    disabled: options.disabled,
    failure: `${options.component.replace('-', ' ')} pass failed`,
    pass: async () => {
      const result = await options.pass();
      options.after(result);
      return result;
    },
  });
}
