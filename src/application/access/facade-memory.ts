// What the revocation check and its credential check answer from, on every replica (docs/facade.md): the
// served, revoked and removed state of every captured commit and the tokens in use, kept in memory and
// brought up to date from the event stream. Each replica reads the stream itself, from where the read
// models it started from stood: a change recorded on any replica is here as soon as the store announces it.
import type { EventStore, Position } from '../../adapters/eventstore/port.ts';
import type { DatabasePool } from '../../adapters/postgres/pool.ts';
import { holdingsSource } from '../../projections/snapshots/holdings.queries.ts';
import { HoldingsMemory } from './holdings-memory.ts';
import { TokenMemory } from './token-memory.ts';

export type FacadeMemoryDeps = Readonly<{
  store: EventStore;
  pool: DatabasePool;
  logger: Readonly<{ warn(details: object, message: string): void }>;
  /** How often the stream is read when no append was announced (a lost notification); 1 s by default. */
  pollMs?: number;
}>;

const batchSize = 1000;

/**
 * The events are read after every append the store announces (`watch`), and every `pollMs` in case an
 * announcement was lost. An answer waits while an announced append is unread, so a change a request made on
 * this replica (whose command waited for the read models) is in the next answer here.
 */
export class FacadeMemory {
  readonly holdings = new HoldingsMemory();
  readonly tokens = new TokenMemory();
  private position: Position = 0n;
  private announced = true;
  private reading: Promise<void> | null = null;
  private unwatch: () => void = () => {};
  private timer: NodeJS.Timeout | null = null;
  private closed = false;
  /** Set once the read models are loaded: reads before would start from the wrong position. */
  private ready = false;
  /** One warning per outage of the event store, not one per attempt. */
  private failing = false;
  private readonly loaded: Promise<void>;

  private constructor(private readonly deps: FacadeMemoryDeps) {
    this.loaded = this.load();
  }

  /** Starts following the store and loads the read models; answers wait for the load. */
  static start(deps: FacadeMemoryDeps): FacadeMemory {
    const memory = new FacadeMemory(deps);
    memory.timer = setInterval(() => {
      if (memory.ready) void memory.read().catch(() => {});
    }, deps.pollMs ?? 1000);
    memory.timer.unref();
    return memory;
  }

  /** Resolves once every event the store announced before this call has been applied. */
  async current(): Promise<void> {
    await this.loaded;
    if (this.announced || this.reading) await this.read();
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    this.unwatch();
    await this.reading?.catch(() => {});
  }

  private async load(): Promise<void> {
    this.unwatch = await this.deps.store
      .watch(() => {
        this.announced = true;
        if (this.ready) void this.read().catch(() => {});
      })
      .catch(() => () => {});
    // A read model not there yet, or being rebuilt for a new version: the events alone, from the first.
    const source = await holdingsSource(this.deps.pool).catch((error: unknown) => {
      this.deps.logger.warn({ err: error }, 'the revocation check starts from the events alone');
      return null;
    });
    this.holdings.load(source);
    this.position = source ? [source.marketplacesAt, source.snapshotsAt, source.tokensAt].reduce(min) : 0n;
    this.ready = true;
    await this.read().catch(() => {});
  }

  /** Reads and applies every event after the last one applied; one read at a time, again while announced. */
  private read(): Promise<void> {
    this.reading ??= (async () => {
      try {
        do {
          this.announced = false;
          await this.readToHead();
        } while (this.announced && !this.closed);
        this.failing = false;
      } catch (error) {
        this.announced = true; // answers keep waiting for the events until a read succeeds
        if (!this.failing) this.deps.logger.warn({ err: error }, 'the revocation check could not read the events');
        this.failing = true;
        throw error;
      } finally {
        this.reading = null;
      }
    })();
    return this.reading;
  }

  private async readToHead(): Promise<void> {
    for (;;) {
      const events = await this.deps.store.readAll(this.position, batchSize);
      for (const event of events) {
        this.holdings.apply(event);
        this.tokens.apply(event);
        this.position = event.position;
      }
      if (events.length < batchSize || this.closed) return;
    }
  }
}

const min = (a: bigint, b: bigint): bigint => (a < b ? a : b);
