import type { CommandMeta, Decider, Decision } from '../../domain/kernel/decider.ts';
import {
  RevisionConflict,
  type EventMetadata,
  type EventStore,
  type NewEvent,
  type Position,
  type RecordedEvent,
} from '../../adapters/eventstore/port.ts';

type AnyCommand = { type: string; meta: CommandMeta };
type AnyEvent = { type: string; data: unknown };

export const metadataOf = (meta: CommandMeta): EventMetadata => ({
  principal: meta.principal,
  actorType: meta.actorType,
  correlationId: meta.correlationId,
  at: meta.at,
  ...(meta.source === undefined ? {} : { source: meta.source }),
  ...(meta.credentialId === undefined ? {} : { credentialId: meta.credentialId }),
});

export const envelope = (events: readonly AnyEvent[], meta: CommandMeta): NewEvent[] =>
  events.map((event) => ({ type: event.type, data: event.data, metadata: metadataOf(meta) }));

/** A stream keeps changing under the command after every retry. */
export class ConcurrencyExhausted extends Error {
  readonly streamId: string;
  constructor(streamId: string) {
    super(`stream ${streamId} kept changing while the command was decided`);
    this.streamId = streamId;
    this.name = 'ConcurrencyExhausted';
  }
}

/** Load, decide, append; retried only on a revision conflict. Refusals may append events too. */
export async function runCommand<S, C extends AnyCommand, E extends AnyEvent>(
  store: EventStore,
  decider: Decider<S, C, E>,
  streamId: string,
  command: C,
  retries = 3,
): Promise<{ decision: Decision<E>; position: Position | null }> {
  for (let attempt = 0; ; attempt++) {
    const { events, revision } = await store.readStream(streamId);
    const state = events.reduce(
      (s, recorded: RecordedEvent) => decider.evolve(s, { type: recorded.type, data: recorded.data } as E),
      decider.initialState(),
    );
    const decision = decider.decide(command, state);
    if (decision.events.length === 0) return { decision, position: null };
    try {
      const { position } = await store.append(streamId, envelope(decision.events, command.meta), revision);
      return { decision, position };
    } catch (error) {
      if (!(error instanceof RevisionConflict)) throw error;
      if (attempt >= retries) throw new ConcurrencyExhausted(streamId);
    }
  }
}
