import { appendFacts } from '../../adapters/eventstore/append-facts.ts';
import type { Position } from '../../adapters/eventstore/port.ts';
import type { DomainEvent } from '../../domain/events.ts';
import type { CommandMeta } from '../../domain/kernel/decider.ts';
import type { EndpointRegistration, EndpointSpec } from '../../domain/webhook/signed-endpoint.ts';
import type { DatabasePool } from '../../adapters/postgres/pool.ts';
import { execute } from '../kernel/execute.ts';
import { periodicDuty, type WakeableDuty } from '../kernel/periodic-duty.ts';
import type { Actor, Ports } from '../kernel/ports.ts';
import { requireAdminRole } from '../access/standing.ts';
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

type AnyCommand = { type: string; meta: CommandMeta };

/** One specialisation of the endpoint (its spec), with what its answers wait for and how they read one. */
export type EndpointKind<S, C extends AnyCommand, E extends DomainEvent, R> = EndpointSpec<S, C, E> &
  Readonly<{ readModels: readonly string[]; byId: (pool: DatabasePool, id: number) => Promise<R | null> }>;

/** A kind with the commands that register (from an admin's `body`) and delete one endpoint. */
export type EndpointCommands<D, B, S, C extends AnyCommand, E extends DomainEvent, R> = EndpointKind<S, C, E, R> &
  Readonly<{
    register: (deps: D, id: number, registration: EndpointRegistration, body: B, meta: CommandMeta) => C;
    remove: (id: number, meta: CommandMeta) => C;
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
export async function changeEndpoint<S, C extends AnyCommand, E extends DomainEvent, R>(
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
async function addEndpoint<S, C extends AnyCommand, E extends DomainEvent, R>(
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

/**
 * A kind's use cases: `add`, the registration for a caller with its own authority (the declarative estate,
 * principal config-reconciler), `declaredSecret` the signing secret it brings or null to issue one; `create`,
 * the admin's registration, the secret answered this once; `remove`, the admin's deletion (404 when there is
 * none). The secret is stored sealed.
 */
export function endpointUseCases<
  D extends EndpointPorts,
  B extends Readonly<{ url: string }>,
  S,
  C extends AnyCommand,
  E extends DomainEvent,
  R,
>(kind: EndpointCommands<D, B, S, C, E, R>) {
  const add = (deps: D, body: B, meta: CommandMeta, declaredSecret: string | null) =>
    addEndpoint(deps, kind, body.url, declaredSecret, (id, registration) =>
      kind.register(deps, id, registration, body, meta),
    );
  return {
    kind,
    add,
    create: async (deps: D, actor: Actor, body: B, meta: CommandMeta) => {
      await requireAdminRole(deps, actor);
      return add(deps, body, meta, null);
    },
    remove: async (deps: D, actor: Actor, id: number, meta: CommandMeta): Promise<void> => {
      await requireAdminRole(deps, actor);
      await changeEndpoint(deps, kind, kind.remove(id, meta));
    },
  };
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

/** A delivering leader duty: its log component, and why it does nothing when its setting is off. */
export type OutboundDutyKind = Readonly<{ component: string; disabled: string }>;

/**
 * A delivering leader duty: `pass` every poll-interval, never two at once; nothing when `settings` disable it.
 * `then` is told when a pass did something the other duty waits for (`pass` answers how many).
 */
export function outboundDuty(
  deps: Pick<Ports, 'logger'>,
  kind: OutboundDutyKind,
  settings: Readonly<{ enabled: boolean; pollIntervalMs: number }>,
  pass: () => Promise<number>,
  then: () => void,
): WakeableDuty {
  const failure = `${kind.component.replace('-', ' ')} pass failed`;
  return periodicDuty(
    deps.logger,
    { ...kind, failure },
    { enabled: settings.enabled, intervalMs: settings.pollIntervalMs },
    async () => {
      const done = await pass();
      if (done > 0) then();
      return done;
    },
  );
}
