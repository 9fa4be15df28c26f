import type { Position } from '../../adapters/eventstore/port.ts';
import type { Listener } from '../../adapters/postgres/listener.ts';
import type { DatabasePool } from '../../adapters/postgres/pool.ts';
import { checkpointChannel, readCheckpoints } from './checkpoints.ts';

/** The read models named did not reach a position in time; the change itself was recorded. */
export class ProjectionLag extends Error {
  readonly position: Position;
  readonly behind: readonly string[];
  constructor(position: Position, behind: readonly string[]) {
    super(`read models ${behind.join(', ')} have not yet reached position ${position}`);
    this.position = position;
    this.behind = behind;
    this.name = 'ProjectionLag';
  }
}

type Waiter = { position: Position; names: readonly string[]; resolve: () => void };

/**
 * Read-your-writes: a command answers only once the projections it reads from have reached the
 * position it appended. Works across replicas: checkpoints live in PostgreSQL, a NOTIFY on each
 * advance wakes waiters, and a poll covers a lost notification.
 */
export class ProjectionWaiter {
  private readonly known = new Map<string, Position>();
  /** Whether `known` was read from the table at least once. */
  private loaded = false;
  private readonly waiters = new Set<Waiter>();
  private poller: NodeJS.Timeout | null = null;
  private unlisten: (() => void) | null = null;

  private readonly pool: DatabasePool;
  private readonly listener: Listener;
  readonly allProjections: readonly string[];
  private readonly options: Readonly<{ timeoutMs: number; pollMs?: number }>;
  constructor(
    pool: DatabasePool,
    listener: Listener,
    allProjections: readonly string[],
    options: Readonly<{ timeoutMs: number; pollMs?: number }>,
  ) {
    this.pool = pool;
    this.listener = listener;
    this.allProjections = allProjections;
    this.options = options;
  }

  async start(): Promise<void> {
    this.unlisten = await this.listener.on(checkpointChannel, (payload) => {
      const at = payload.lastIndexOf(':');
      if (at > 0) this.learn(payload.slice(0, at), BigInt(payload.slice(at + 1)));
      else void this.refresh().catch(() => {});
      this.settle();
    });
  }

  stop(): void {
    this.unlisten?.();
    if (this.poller) clearInterval(this.poller);
    this.poller = null;
  }

  async waitFor(
    position: Position,
    names: readonly string[] = this.allProjections,
    timeoutMs = this.options.timeoutMs,
  ): Promise<void> {
    if (this.reached(position, names)) return;
    // Notifications keep `known` current once it was read; a lost one is what the poll below is for.
    if (!this.loaded) {
      await this.refresh();
      if (this.reached(position, names)) return;
    }
    await new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        position,
        names,
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
      };
      const timer = setTimeout(() => {
        this.waiters.delete(waiter);
        this.stopPollingIfIdle();
        reject(
          new ProjectionLag(
            position,
            names.filter((name) => (this.known.get(name) ?? 0n) < position),
          ),
        );
      }, timeoutMs);
      this.waiters.add(waiter);
      this.poller ??= setInterval(() => {
        void this.refresh().then(
          () => this.settle(),
          () => {},
        );
      }, this.options.pollMs ?? 250);
    });
  }

  private reached(position: Position, names: readonly string[]): boolean {
    return names.every((name) => (this.known.get(name) ?? 0n) >= position);
  }

  private learn(name: string, position: Position): void {
    // Positions only grow, except across a rebuild, which resets them; a rebuild refreshes from the table.
    if ((this.known.get(name) ?? 0n) < position) this.known.set(name, position);
  }

  private async refresh(): Promise<void> {
    const checkpoints = await readCheckpoints(this.pool);
    this.known.clear();
    for (const [name, checkpoint] of checkpoints) this.known.set(name, checkpoint.position);
    this.loaded = true;
  }

  private settle(): void {
    for (const waiter of this.waiters) {
      if (!this.reached(waiter.position, waiter.names)) continue;
      this.waiters.delete(waiter);
      waiter.resolve();
    }
    this.stopPollingIfIdle();
  }

  private stopPollingIfIdle(): void {
    if (this.waiters.size > 0 || !this.poller) return;
    clearInterval(this.poller);
    this.poller = null;
  }
}
