import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { sql, trustedSql, type DatabasePool } from '../../postgres/pool.ts';
import { migrate } from '../../postgres/migrate.ts';
import { eventStoreMigrations } from './migrations.ts';
import type { Listener } from '../../postgres/listener.ts';
import { RevisionConflict } from '../port.ts';
// The port's types by namespace: this adapter implements every one of them.
import type * as Port from '../port.ts';

const EventRow = z.object({
  position: z.bigint(),
  event_id: z.string(),
  stream_id: z.string(),
  revision: z.bigint(),
  type: z.string(),
  data: z.unknown(),
  metadata: z.record(z.unknown()),
  recorded_at: z.string(),
});
type EventRow = z.infer<typeof EventRow>;

const toRecorded = (row: EventRow): Port.RecordedEvent => ({
  id: row.event_id,
  streamId: row.stream_id,
  revision: row.revision,
  position: row.position,
  type: row.type,
  data: row.data,
  metadata: row.metadata as Port.EventMetadata,
  recordedAt: row.recorded_at,
});

const expectedCode = (expected: Port.ExpectedRevision): bigint =>
  expected === 'any' ? -2n : expected === 'no-stream' ? -1n : expected;
const revisionOf = (current: bigint): Port.StreamRevision => (current < 0n ? 'no-stream' : current);

const AppendRow = z.object({
  next_revision: z.bigint().nullable(),
  last_position: z.bigint().nullable(),
  current_revision: z.bigint(),
});
const GroupRow = AppendRow.extend({ ord: z.number() });

type PendingAppend = Readonly<{
  streamId: string;
  expected: Port.ExpectedRevision;
  payload: string;
  resolve: (result: Port.AppendResult) => void;
  reject: (error: unknown) => void;
}>;

// Appends carried by one grouped call at most (bounds the statement's size and the lock's hold).
const maxGroup = 100;

function settle(pending: PendingAppend, row: z.infer<typeof AppendRow>): void {
  if (row.next_revision === null || row.last_position === null) {
    pending.reject(new RevisionConflict(pending.streamId, pending.expected, revisionOf(row.current_revision)));
  } else {
    pending.resolve({ nextRevision: row.next_revision, position: row.last_position });
  }
}

export type PostgresEventStoreOptions = Readonly<{
  /** The process's LISTEN connection, which wakes subscriptions on channel es_events. */
  listener: Listener;
  /** How often a subscription looks for new events when no notification arrives. */
  pollIntervalMs?: number;
  batchSize?: number;
}>;

/** The default event store: an append-only table in the gateway's own PostgreSQL. */
export class PostgresEventStore implements Port.EventStore {
  readonly backend = 'postgres' as const;
  private readonly queue: PendingAppend[] = [];
  private flushing = false;

  private readonly pool: DatabasePool;
  private readonly options: PostgresEventStoreOptions;
  private constructor(pool: DatabasePool, options: PostgresEventStoreOptions) {
    this.pool = pool;
    this.options = options;
  }

  static async open(pool: DatabasePool, options: PostgresEventStoreOptions): Promise<PostgresEventStore> {
    await migrate(pool, eventStoreMigrations);
    return new PostgresEventStore(pool, options);
  }

  /**
   * Group commit: while one append call is in flight, further appends queue, and the next call
   * carries all of them (one lock, one commit, one WAL flush). A lone append goes out at once, so a
   * single appender waits for nothing.
   */
  append(
    streamId: string,
    events: readonly Port.NewEvent[],
    expected: Port.ExpectedRevision,
  ): Promise<Port.AppendResult> {
    if (events.length === 0) return Promise.reject(new Error('append needs at least one event'));
    let payload: string;
    try {
      payload = JSON.stringify(
        events.map((event) => ({ id: randomUUID(), type: event.type, data: event.data, metadata: event.metadata })),
      );
    } catch (error) {
      return Promise.reject(error);
    }
    return new Promise((resolve, reject) => {
      this.queue.push({ streamId, expected, payload, resolve, reject });
      if (!this.flushing) void this.flush();
    });
  }

  private async flush(): Promise<void> {
    this.flushing = true;
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, maxGroup);
      if (batch.length === 1) {
        await this.appendOne(batch[0]!);
        continue;
      }
      try {
        const body = `[${batch.map((p) => `{"stream":${JSON.stringify(p.streamId)},"expected":${expectedCode(p.expected)},"events":${p.payload}}`).join(',')}]`;
        const rows = await this.pool.any(sql.type(GroupRow)`select * from es.append_many(${body}::jsonb)`);
        for (const row of rows) settle(batch[row.ord - 1]!, row);
      } catch {
        // Whatever failed the group (a bad payload, a lost connection) must fail only its own append.
        for (const pending of batch) await this.appendOne(pending);
      }
    }
    this.flushing = false;
  }

  private async appendOne(pending: PendingAppend): Promise<void> {
    try {
      const row = await this.pool.one(sql.type(AppendRow)`
        select * from es.append(${pending.streamId}, ${expectedCode(pending.expected).toString()}::bigint, ${pending.payload}::jsonb)`);
      settle(pending, row);
    } catch (error) {
      pending.reject(error);
    }
  }

  async readStream(streamId: string): Promise<{ events: Port.RecordedEvent[]; revision: Port.StreamRevision }> {
    const rows = await this.pool.any(sql.type(EventRow)`
      select position, event_id::text, stream_id, revision, type, data, metadata, recorded_at
      from es.events where stream_id = ${streamId} order by revision`);
    const events = rows.map(toRecorded);
    const last = events.at(-1);
    return { events, revision: last ? last.revision : 'no-stream' };
  }

  async readAll(after: Port.Position, limit: number, dataOf?: ReadonlySet<string>): Promise<Port.RecordedEvent[]> {
    const data = dataOf
      ? sql.fragment`case when type = any(${sql.array([...dataOf], 'text')}) then data else '{}'::jsonb end`
      : sql.fragment`data`;
    const rows = await this.pool.any(sql.type(EventRow)`
      select position, event_id::text, stream_id, revision, type, ${data} as data, metadata, recorded_at
      from es.events where position > ${after.toString()}::bigint order by position limit ${limit}`);
    return rows.map(toRecorded);
  }

  async head(): Promise<Port.Position> {
    return this.pool.oneFirst(sql.type(z.object({ head: z.bigint() }))`
      select coalesce(max(position), 0)::bigint as head from es.events`);
  }

  /** What asks whether the store answers (the health probes run it on a connection of their own). */
  static readonly pingStatement = 'select 1 from es.schema_migrations limit 1';

  async ping(): Promise<void> {
    await this.pool.query(trustedSql(PostgresEventStore.pingStatement));
  }

  subscribeToAll(
    after: Port.Position,
    handle: (event: Port.RecordedEvent) => Promise<void>,
    onError: (error: unknown) => void = () => {},
  ): Port.Subscription {
    let stopped = false;
    let pending = false;
    let interrupt: () => void = () => {};
    const waker = () => {
      pending = true;
      interrupt();
    };
    let unwatch: () => void = () => {};
    const pollMs = this.options.pollIntervalMs ?? 1000;
    const batchSize = this.options.batchSize ?? 500;
    const loop = async () => {
      let position = after;
      unwatch = await this.watch(waker); // without notifications the poll still delivers
      while (!stopped) {
        pending = false;
        const batch = await this.readAll(position, batchSize);
        for (const event of batch) {
          if (stopped) return;
          await handle(event);
          position = event.position;
        }
        // A notification that arrived while reading means there may be more: read again at once.
        if (batch.length === batchSize || pending || stopped) continue;
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, pollMs);
          interrupt = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        interrupt = () => {};
      }
    };
    const done = loop().catch((error: unknown) => {
      if (!stopped) onError(error);
    });
    return {
      close: async () => {
        stopped = true;
        waker();
        await done;
        unwatch();
      },
    };
  }

  watch(onAppend: () => void): Promise<() => void> {
    return this.options.listener.on('es_events', onAppend);
  }

  async close(): Promise<void> {
    // The pool and the listener belong to the composition root, which closes them.
  }
}
