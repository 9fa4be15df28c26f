import type { RejectionCode } from './rejection.ts';

/** ISO-8601 UTC instant, decided at the edge (never inside the domain). */
export type Instant = string;

export const actorTypes = ['human', 'machine', 'system'] as const;
export type ActorType = (typeof actorTypes)[number];

export type CommandMeta = Readonly<{
  principal: string;
  actorType: ActorType;
  at: Instant;
  correlationId: string;
  source?: string;
  credentialId?: number;
}>;

export type Command<T extends string, D> = Readonly<{ type: T; data: D; meta: CommandMeta }>;
export type Event<T extends string, D> = Readonly<{ type: T; data: D }>;

export type Rejection = Readonly<{
  code: RejectionCode;
  detail: string;
  extensions?: Readonly<Record<string, unknown>>;
}>;

export type Decision<E> =
  | Readonly<{ outcome: 'accepted'; events: readonly E[] }>
  | Readonly<{ outcome: 'refused'; rejection: Rejection; events: readonly E[] }>;

export interface Decider<S, C, E> {
  initialState(): S;
  evolve(state: S, event: E): S;
  decide(command: C, state: S): Decision<E>;
}

export const accept = <E>(...events: E[]): Decision<E> => ({ outcome: 'accepted', events });
export const refuse = <E>(rejection: Rejection, ...events: E[]): Decision<E> => ({
  outcome: 'refused',
  rejection,
  events,
});
