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
  /** How long an announced append waits for others before the memory reads them all; 20 ms by default. */
  gatherMs?: number;
}>;

const batchSize = 1000;

/** Only these events' data is read: every replica follows every event, most of which neither memory applies. */
const applied: ReadonlySet<string> = new Set([...HoldingsMemory.eventTypes, ...TokenMemory.eventTypes]);

/**
 * The events are read soon after the store announces appends (`watch`): the appends announced within `gatherMs`
 * are read together, so a burst of appends costs one read, not one each. They are also read every `pollMs` in
 * case an announcement was lost. An answer waits for the appends announced before it, no later ones (under steady
 * appends it would wait forever), and reads them itself when the memory has not yet: a change a request made on
 * this replica (whose command waited for the read models) is in the next answer here.
 */
export class FacadeMemory {
  readonly holdings = new HoldingsMemory();
  readonly tokens = new TokenMemory();
  private position: Position = 0n;
  /** Appends announced so far, and how many of them a completed read covers (it began after them). */
  private announced = 0;
  private covered = -1;
  private passing: Promise<void> | null = null;
  private following = false;
  private unwatch: () => void = () => {};
  private timer: NodeJS.Timeout | null = null;
  private closed = false;
  /** Set once the read models are loaded: reads before would start from the wrong position. */
  private ready = false;
  /** One warning per outage of the event store, not one per attempt. */
  private failing = false;
  private readonly loaded: Promise<void>;

  private readonly deps: FacadeMemoryDeps;
  private constructor(deps: FacadeMemoryDeps) {
    this.deps = deps;
    this.loaded = this.load();
  }

  /** Starts following the store and loads the read models; answers wait for the load. */
  static start(deps: FacadeMemoryDeps): FacadeMemory {
    const memory = new FacadeMemory(deps);
    memory.timer = setInterval(() => {
      if (memory.ready) void memory.pass().catch(() => {});
    }, deps.pollMs ?? 1000);
    memory.timer.unref();
    return memory;
  }

  /** Resolves once every event the store announced before this call has been applied. */
  async current(): Promise<void> {
    await this.loaded;
    const target = this.announced;
    while (this.covered < target && !this.closed) await this.pass();
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    this.unwatch();
    await this.passing?.catch(() => {});
  }

  private async load(): Promise<void> {
    this.unwatch = await this.deps.store
      .watch(() => {
        this.announced += 1;
        if (this.ready) this.follow();
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
    await this.pass().catch(() => {});
  }

  /** Reads while announced appends are unread (a failed read is taken up again by the next poll or answer). */
  private follow(): void {
    if (this.following) return;
    this.following = true;
    void (async () => {
      try {
        await new Promise((resolve) => setTimeout(resolve, this.deps.gatherMs ?? 20).unref());
        while (this.covered < this.announced && !this.closed) await this.pass();
      } catch {
        // logged by pass()
      } finally {
        this.following = false;
      }
    })();
  }

  /** One read of every event after the last applied, covering the appends announced before it began. */
  private pass(): Promise<void> {
    this.passing ??= (async () => {
      const upTo = this.announced;
      try {
        await this.readToHead();
        this.covered = upTo;
        this.failing = false;
      } catch (error) {
        if (!this.failing) this.deps.logger.warn({ err: error }, 'the revocation check could not read the events');
        this.failing = true;
        throw error;
      } finally {
        this.passing = null;
      }
    })();
    return this.passing;
  }

  private async readToHead(): Promise<void> {
    for (;;) {
      const events = await this.deps.store.readAll(this.position, batchSize, applied);
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
