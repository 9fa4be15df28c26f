import { randomUUID } from 'node:crypto';
import {
  ANY,
  BACKWARDS,
  END,
  EventStoreDBClient,
  FORWARDS,
  NO_STREAM,
  START,
  StreamNotFoundError,
  WrongExpectedVersionError,
  excludeSystemEvents,
  jsonEvent,
  type AllStreamResolvedEvent,
  type AllStreamSubscription,
  type ExpectedRevision as EsdbExpectedRevision,
  type JSONType,
  type ReadPosition,
  type ResolvedEvent,
} from '@eventstore/db-client';
import {
  RevisionConflict,
  type AppendResult,
  type EventMetadata,
  type EventStore,
  type ExpectedRevision,
  type NewEvent,
  type Position,
  type RecordedEvent,
  type StreamRevision,
  type Subscription,
} from '../port.ts';

/*
 * Positions. The port's Position is the event's `$all` commit position. EventStoreDB writes every
 * append (single or multi-event) as an implicit transaction of prepares flagged IsCommitted, and its
 * $all reader reports each such event at (commit, prepare) = (its own log position, its own log
 * position): the events of one append do NOT share a commit position. (Only the legacy TCP explicit
 * transactions, which this adapter never writes, end in a separate commit record shared by their
 * events.) The client's typings do not state this; it comes from the server's AllReader. So the
 * commit position is unique and increasing. A restart from `after` reads or subscribes from
 * {commit: after, prepare: after} (the position of that very event) and drops every event whose
 * position is <= after, so it is right whether the server includes that position or not.
 */

const isSystem = (event: { streamId: string; type: string }) =>
  event.streamId.startsWith('$') || event.type.startsWith('$');

const readFrom = (after: Position): ReadPosition => (after === 0n ? START : { commit: after, prepare: after });

// 0n is "from the start", not a position to exclude: the first record of a log may sit at 0.
const isAfter = (position: Position, after: Position) => after === 0n || position > after;

const positionOf = (resolved: ResolvedEvent | AllStreamResolvedEvent): Position => {
  const position = resolved.event?.position?.commit ?? resolved.commitPosition;
  if (position === undefined) {
    throw new Error('EventStoreDB sent an event without its $all position: the server must be 22.6 or newer');
  }
  return position;
};

const toRecorded = (resolved: ResolvedEvent | AllStreamResolvedEvent): RecordedEvent | null => {
  const event = resolved.event;
  if (!event) return null;
  return {
    id: event.id,
    streamId: event.streamId,
    revision: event.revision,
    position: positionOf(resolved),
    type: event.type,
    data: event.data,
    // Events written by other tools may carry no metadata; readers get an empty object, not undefined.
    metadata: (event.metadata ?? {}) as EventMetadata,
    recordedAt: event.created.toISOString(),
  };
};

const toExpected = (expected: ExpectedRevision): EsdbExpectedRevision =>
  expected === 'any' ? ANY : expected === 'no-stream' ? NO_STREAM : expected;

const collect = async <T>(stream: AsyncIterable<T>): Promise<T[]> => {
  const items: T[] = [];
  for await (const item of stream) items.push(item);
  return items;
};

const pingTimeoutMs = 5_000;
const confirmTimeoutMs = 10_000;
const rewatchDelayMs = 1_000;
const headPageSize = 64;

/** The event store on an EventStoreDB/KurrentDB server (gateway.event-store.backend = eventstoredb). */
export class EventStoreDbEventStore implements EventStore {
  readonly backend = 'eventstoredb' as const;
  /** The newest non-system position this process has seen; bounds head()'s backward scan. */
  private knownHead = 0n;
  private readonly stoppers = new Set<() => Promise<void>>();

  private readonly client: EventStoreDBClient;
  private constructor(client: EventStoreDBClient) {
    this.client = client;
  }

  /** Does not contact the server: the gateway starts while EventStoreDB is down, and health reports it. */
  static async connect(url: string): Promise<EventStoreDbEventStore> {
    return new EventStoreDbEventStore(EventStoreDBClient.connectionString(url));
  }

  async append(streamId: string, events: readonly NewEvent[], expected: ExpectedRevision): Promise<AppendResult> {
    if (events.length === 0) throw new Error('append needs at least one event');
    const payload = events.map((event) =>
      jsonEvent({
        id: randomUUID(),
        type: event.type,
        data: event.data as JSONType,
        metadata: event.metadata as Record<string, unknown>,
      }),
    );
    const result = await this.client
      .appendToStream(streamId, payload, { expectedRevision: toExpected(expected) })
      .catch((error: unknown) => {
        if (error instanceof WrongExpectedVersionError) {
          throw new RevisionConflict(
            streamId,
            expected,
            error.actualVersion === NO_STREAM ? 'no-stream' : error.actualVersion,
          );
        }
        throw error;
      });
    // The server builds the reply's position from the append's first prepare, while the port reports the
    // last event's: that event is read back by its revision, which no concurrent append can change.
    const position = await this.positionAt(streamId, result.nextExpectedRevision);
    this.noteHead(position);
    return { nextRevision: result.nextExpectedRevision, position };
  }

  async readStream(streamId: string): Promise<{ events: RecordedEvent[]; revision: StreamRevision }> {
    let resolved: ResolvedEvent[];
    try {
      resolved = await collect(this.client.readStream(streamId, { direction: FORWARDS, fromRevision: START }));
    } catch (error) {
      if (error instanceof StreamNotFoundError) return { events: [], revision: 'no-stream' };
      throw error;
    }
    const events = resolved.map(toRecorded).filter((event): event is RecordedEvent => event !== null);
    const last = events.at(-1);
    return { events, revision: last ? last.revision : 'no-stream' };
  }

  async readAll(after: Position, limit: number): Promise<RecordedEvent[]> {
    const found: RecordedEvent[] = [];
    if (limit <= 0) return found;
    // System events are filtered here (this client's readAll has no server-side filter), so a page
    // may hold few of ours; one extra slot because a read from a position includes that position.
    const pageSize = Math.min(Math.max(limit, 100), 1_000) + 1;
    let cursor = after;
    for (;;) {
      const page = await collect(
        this.client.readAll({ direction: FORWARDS, fromPosition: readFrom(cursor), maxCount: pageSize }),
      );
      for (const resolved of page) {
        const position = positionOf(resolved);
        if (!isAfter(position, cursor)) continue;
        cursor = position;
        const event = resolved.event;
        if (!event || isSystem(event)) continue;
        const recorded = toRecorded(resolved);
        if (!recorded) continue;
        found.push(recorded);
        this.noteHead(position);
        if (found.length >= limit) return found;
      }
      if (page.length < pageSize) return found;
    }
  }

  async head(): Promise<Position> {
    // An idle server keeps writing $stats events, so the newest event of ours may lie many pages back;
    // the scan stops at the newest position already seen.
    let before: Position | null = null;
    for (;;) {
      const from: ReadPosition = before === null ? END : { commit: before, prepare: before };
      const page = await collect(
        this.client.readAll({ direction: BACKWARDS, fromPosition: from, maxCount: headPageSize }),
      );
      for (const resolved of page) {
        const position = positionOf(resolved);
        if (before !== null && position >= before) continue;
        before = position;
        if (position <= this.knownHead) return this.knownHead;
        if (resolved.event && !isSystem(resolved.event)) {
          this.noteHead(position);
          return position;
        }
      }
      if (page.length < headPageSize) return this.knownHead;
    }
  }

  async ping(): Promise<void> {
    // Reads of $all carry no gRPC deadline in this client, so the probe bounds itself.
    const read = this.client.readAll({ direction: BACKWARDS, fromPosition: END, maxCount: 1 });
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        void read.cancel().catch(() => {});
        reject(new Error(`EventStoreDB did not answer within ${pingTimeoutMs} ms`));
      }, pingTimeoutMs);
    });
    try {
      await Promise.race([collect(read), timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  subscribeToAll(
    after: Position,
    handle: (event: RecordedEvent) => Promise<void>,
    onError: (error: unknown) => void = () => {},
  ): Subscription {
    const subscription = this.client.subscribeToAll({ fromPosition: readFrom(after), filter: excludeSystemEvents() });
    // The client emits errors on the stream itself; one arriving after the loop let go of it must not crash the process.
    subscription.on('error', () => {});
    let stopped = false;
    const loop = async () => {
      for await (const resolved of subscription) {
        if (stopped) return;
        const event = resolved.event;
        if (!event || isSystem(event)) continue;
        const recorded = toRecorded(resolved);
        if (!recorded || !isAfter(recorded.position, after)) continue;
        this.noteHead(recorded.position);
        await handle(recorded);
      }
      // The port promises every later event: a stream the server ended is a failure, not a quiet stop.
      if (!stopped) throw new Error('the EventStoreDB subscription to $all ended');
    };
    const done = loop()
      .catch((error: unknown) => {
        if (!stopped) onError(error);
      })
      .finally(() => unsubscribe(subscription));
    let closing: Promise<void> | null = null;
    const close = () => {
      closing ??= (async () => {
        stopped = true;
        await unsubscribe(subscription);
        await done;
        this.stoppers.delete(close);
      })();
      return closing;
    };
    this.stoppers.add(close);
    return { close };
  }

  async watch(onAppend: () => void): Promise<() => void> {
    let stopped = false;
    let current: { subscription: AllStreamSubscription; timer: NodeJS.Timeout } | null = null;
    let retry: NodeJS.Timeout | undefined;
    const drop = (subscription: AllStreamSubscription): Promise<void> | null => {
      if (current?.subscription !== subscription) return null;
      clearTimeout(current.timer);
      current = null;
      return unsubscribe(subscription);
    };
    const rewatch = () => {
      if (stopped) return;
      retry = setTimeout(() => {
        if (!stopped) open(true).catch(rewatch);
      }, rewatchDelayMs);
      retry.unref();
    };
    const open = (again: boolean) =>
      new Promise<void>((resolve, reject) => {
        const subscription = this.client.subscribeToAll({ fromPosition: END, filter: excludeSystemEvents() });
        let confirmed = false;
        const lost = (error: Error) => {
          if (!drop(subscription)) return;
          if (!confirmed) {
            reject(error);
            return;
          }
          // A wake-up lets the caller read what arrives while the watch is down; polling covers the rest.
          onAppend();
          rewatch();
        };
        current = {
          subscription,
          timer: setTimeout(
            () => lost(new Error(`EventStoreDB did not confirm the subscription within ${confirmTimeoutMs} ms`)),
            confirmTimeoutMs,
          ),
        };
        subscription.once('confirmation', () => {
          if (current?.subscription !== subscription) return;
          clearTimeout(current.timer);
          confirmed = true;
          if (again) onAppend(); // events appended between the loss and now woke no one
          resolve();
        });
        subscription.on('data', (resolved: AllStreamResolvedEvent) => {
          if (resolved.event && !isSystem(resolved.event)) onAppend();
        });
        subscription.on('error', lost);
        subscription.on('end', () => lost(new Error('the EventStoreDB subscription to $all ended')));
      });
    // Resolving only once the server confirmed: an append right after watch() resolves must wake the caller.
    await open(false);
    const stop = async () => {
      stopped = true;
      clearTimeout(retry);
      if (current) await drop(current.subscription);
      this.stoppers.delete(stop);
    };
    this.stoppers.add(stop);
    return () => {
      void stop();
    };
  }

  async close(): Promise<void> {
    await Promise.allSettled([...this.stoppers].map((stop) => stop()));
    await this.client.dispose();
  }

  private async positionAt(streamId: string, revision: bigint): Promise<Position> {
    const [resolved] = await collect(
      this.client.readStream(streamId, { direction: FORWARDS, fromRevision: revision, maxCount: 1 }),
    );
    if (!resolved) throw new Error(`event ${String(revision)} of ${streamId} was appended but cannot be read back`);
    return positionOf(resolved);
  }

  private noteHead(position: Position): void {
    if (position > this.knownHead) this.knownHead = position;
  }
}

/** Cancels the gRPC call and ends the stream; safe to call more than once. */
async function unsubscribe(subscription: AllStreamSubscription): Promise<void> {
  await subscription.unsubscribe().catch(() => {});
  subscription.destroy();
}
