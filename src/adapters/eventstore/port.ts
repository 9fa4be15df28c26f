import type { ActorType } from '../../domain/kernel/decider.ts';

/** Global position of an event: gap-free in PostgreSQL, the `$all` commit position in EventStoreDB. */
export type Position = bigint;

/** Revision of the last event in a stream (0-based), or `'no-stream'` before the first. */
export type StreamRevision = bigint | 'no-stream';
/** What an append expects the stream to be at; `'any'` skips the check. */
export type ExpectedRevision = StreamRevision | 'any';

export type EventMetadata = Readonly<{
  principal: string;
  actorType: ActorType;
  correlationId: string;
  source?: string;
  credentialId?: number;
  /** The instant the command decided, ISO-8601 UTC. */
  at: string;
}>;

export type NewEvent = Readonly<{ type: string; data: unknown; metadata: EventMetadata }>;

export type RecordedEvent = Readonly<{
  id: string;
  streamId: string;
  revision: bigint;
  position: Position;
  type: string;
  data: unknown;
  metadata: EventMetadata;
  /** When the store appended it, ISO-8601 UTC. */
  recordedAt: string;
}>;

export type AppendResult = Readonly<{ nextRevision: bigint; position: Position }>;

/** Thrown by {@link EventStore.append} when the stream is not at the expected revision. */
export class RevisionConflict extends Error {
  readonly streamId: string;
  readonly expected: ExpectedRevision;
  readonly actual: StreamRevision;
  constructor(streamId: string, expected: ExpectedRevision, actual: StreamRevision) {
    super(`stream ${streamId} is at revision ${String(actual)}, expected ${String(expected)}`);
    this.streamId = streamId;
    this.expected = expected;
    this.actual = actual;
    this.name = 'RevisionConflict';
  }
}

export type Subscription = Readonly<{ close(): Promise<void> }>;

/**
 * The source of truth. Both adapters (PostgreSQL, EventStoreDB) pass the one contract suite in
 * test/int/eventstore/contract.ts.
 */
export interface EventStore {
  readonly backend: 'postgres' | 'eventstoredb';
  /** Appends atomically; all events get consecutive revisions and increasing positions. */
  append(streamId: string, events: readonly NewEvent[], expected: ExpectedRevision): Promise<AppendResult>;
  /** Every event of one stream in revision order, and the stream's revision. */
  readStream(streamId: string): Promise<{ events: RecordedEvent[]; revision: StreamRevision }>;
  /**
   * Events with a position strictly after `after` (0n: from the start), in global order. With `dataOf`, a reader
   * that applies only some types: events of other types may come with empty data (`{}`), so that large events
   * it skips (ingests, vetting reports, audit batches) are not decoded for nothing.
   */
  readAll(after: Position, limit: number, dataOf?: ReadonlySet<string>): Promise<RecordedEvent[]>;
  /**
   * Calls `handle` for every event after `after`, first those stored, then live ones, in global
   * order with none skipped; a handler's rejection ends the subscription and reaches `onError`.
   */
  subscribeToAll(
    after: Position,
    handle: (event: RecordedEvent) => Promise<void>,
    onError?: (error: unknown) => void,
  ): Subscription;
  /** Calls `onAppend` (at least once, possibly spuriously) after events are appended; returns the stop. */
  watch(onAppend: () => void): Promise<() => void>;
  /** The position of the newest event, 0n when the store is empty. */
  head(): Promise<Position>;
  /** Cheap liveness probe for /actuator/health. */
  ping(): Promise<void>;
  close(): Promise<void>;
}
