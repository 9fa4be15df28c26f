import type { Logger } from 'pino';
import type { EventStore, Position, RecordedEvent } from '../../adapters/eventstore/port.ts';
import {
  sql,
  trustedSql,
  type DatabasePool,
  type DatabaseTransactionConnection,
} from '../../adapters/postgres/pool.ts';
import { advanceCheckpoints, createCheckpointsSql, readCheckpoints } from './checkpoints.ts';
import { typesHandledBy } from './dispatch.ts';
import type { Projection } from './projection.ts';

export type RunnerOptions = Readonly<{ batchSize: number; idlePollMs: number; logger: Logger }>;
export type Progress = Readonly<{ position: Position; head: Position }>;

export type ProjectionStatus = Readonly<{
  name: string;
  version: number;
  position: Position;
  head: Position;
  lag: Position;
  rebuildable: boolean;
}>;

const dropTable = (table: string) => trustedSql(`drop table if exists ${table} cascade`);

/**
 * Feeds projections from the event store. Only the leader runs it (leader.ts); `rebuild` and
 * `catchUp` are also used by the command line with the leader lock held.
 */
export class ProjectionRunner {
  private running: Promise<void> | null = null;
  private stopping = false;
  private wake: () => void = () => {};
  /** Checkpoint positions as this runner last read or moved them; null until read, and after any failure. */
  private positions: Map<string, Position> | null = null;

  private readonly pool: DatabasePool;
  private readonly store: EventStore;
  readonly projections: readonly Projection[];
  private readonly options: RunnerOptions;
  constructor(pool: DatabasePool, store: EventStore, projections: readonly Projection[], options: RunnerOptions) {
    this.pool = pool;
    this.store = store;
    this.projections = projections;
    this.options = options;
    const names = new Set(projections.map((p) => p.name));
    if (names.size !== projections.length) throw new Error('projection names must be unique');
  }

  /**
   * Creates missing read models and rebuilds those whose version changed, so that a schema change
   * is a version bump (decision 15). Returns the names it (re)created.
   */
  async prepare(): Promise<string[]> {
    await this.pool.query(trustedSql(createCheckpointsSql));
    // A leader starting again: another may have moved the checkpoints since this runner last did.
    this.positions = null;
    const checkpoints = await readCheckpoints(this.pool);
    const reset: string[] = [];
    for (const projection of this.projections) {
      const checkpoint = checkpoints.get(projection.name);
      if (checkpoint?.version === projection.version) continue;
      await this.reset(projection);
      reset.push(projection.name);
    }
    return reset;
  }

  private async reset(projection: Projection): Promise<void> {
    this.positions = null;
    await this.pool.transaction(async (tx) => {
      for (const table of projection.tables) await tx.query(dropTable(table));
      for (const statement of projection.createSql) await tx.query(trustedSql(statement));
      await tx.query(sql.unsafe`
        insert into projection_checkpoints (name, version, position) values (${projection.name}, ${projection.version}, 0)
        on conflict (name) do update set version = excluded.version, position = 0`);
    });
  }

  /**
   * Applies every stored event to every projection behind it; returns the position reached. It ends at the
   * first batch shorter than the batch size: an append that lands after it wakes the runner again.
   */
  async catchUp(onProgress?: (progress: Progress) => void): Promise<Position> {
    if (this.projections.length === 0) return this.store.head();
    const head = onProgress ? await this.store.head() : 0n;
    try {
      for (;;) {
        const positions = await this.knownPositions();
        const behind = this.projections.map((projection) => ({
          projection,
          position: positions.get(projection.name) ?? 0n,
        }));
        // Read from the projection furthest behind. (Not capped at the head read above: projections may
        // already be past it when appends land during the catch-up.)
        const from = behind.reduce((min, b) => (b.position < min ? b.position : min), behind[0]!.position);
        const batch = await this.store.readAll(from, this.options.batchSize);
        const last = batch.at(-1);
        if (!last) return from;
        await this.applyBatch(behind, from, batch, last.position, positions);
        onProgress?.({ position: last.position, head: head > last.position ? head : last.position });
        if (this.stopping || batch.length < this.options.batchSize) return last.position;
      }
    } catch (error) {
      // Whatever failed, the next attempt reads the checkpoints again.
      this.positions = null;
      throw error;
    }
  }

  /**
   * A projection acting on the batch applies it in a transaction of its own, in registry order, so a reactor
   * that reads through the pool (the catalog) sees what the projections before it committed. The others only
   * move their checkpoints, in the last of those transactions (or one of their own when none acts): a fetch's
   * ledger entry used to cost each of a dozen projections a transaction, a checkpoint update and a notification.
   */
  private async applyBatch(
    behind: ReadonlyArray<{ projection: Projection; position: Position }>,
    from: Position,
    batch: readonly RecordedEvent[],
    to: Position,
    positions: Map<string, Position>,
  ): Promise<void> {
    const acting: Array<{ projection: Projection; position: Position; events: readonly RecordedEvent[] }> = [];
    const idle: Array<{ name: string; from: Position }> = [];
    for (const { projection, position } of behind) {
      if (position >= to) continue;
      const events = position <= from ? batch : batch.filter((event) => event.position > position);
      const types = projection.eventTypes ?? typesHandledBy(projection.apply);
      if (types && !events.some((event) => types.has(event.type))) idle.push({ name: projection.name, from: position });
      else acting.push({ projection, position, events });
    }
    for (const [index, { projection, position, events }] of acting.entries()) {
      const moves = [{ name: projection.name, from: position }, ...(index === acting.length - 1 ? idle : [])];
      await this.pool.transaction(async (tx) => {
        await projection.apply(tx, events);
        await this.advance(tx, moves, to);
      });
      for (const move of moves) positions.set(move.name, to);
    }
    if (acting.length > 0 || idle.length === 0) return;
    await this.pool.transaction((tx) => this.advance(tx, idle, to));
    for (const move of idle) positions.set(move.name, to);
  }

  /** The checkpoints as this runner last read or moved them (only it moves them while it runs). */
  private async knownPositions(): Promise<Map<string, Position>> {
    if (this.positions === null) {
      const checkpoints = await readCheckpoints(this.pool);
      this.positions = new Map([...checkpoints].map(([name, checkpoint]) => [name, checkpoint.position]));
    }
    return this.positions;
  }

  private async advance(
    tx: DatabaseTransactionConnection,
    moves: ReadonlyArray<{ name: string; from: bigint }>,
    to: bigint,
  ): Promise<void> {
    if (!(await advanceCheckpoints(tx, moves, to)))
      throw new Error(
        `a checkpoint of ${moves.map((m) => m.name).join(', ')} moved under this runner: is a second leader running?`,
      );
  }

  /** Runs until stop(): catches up, then waits for appends (notification or poll). */
  start(): void {
    if (this.running) return;
    this.stopping = false;
    // Another leader may have moved the checkpoints while this one was not running.
    this.positions = null;
    this.running = (async () => {
      const unwatch = await this.store.watch(() => this.wake()).catch(() => () => {});
      let backoff = 500;
      try {
        while (!this.stopping) {
          let woken = false;
          const sleeping = new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, this.options.idlePollMs);
            this.wake = () => {
              woken = true;
              clearTimeout(timer);
              resolve();
            };
          });
          try {
            await this.catchUp();
            backoff = 500;
          } catch (error) {
            // A projection that fails stays where it was; the next attempt retries the same batch.
            this.options.logger.error({ err: error }, 'projection batch failed; retrying');
            await new Promise((resolve) => setTimeout(resolve, backoff));
            backoff = Math.min(backoff * 2, 30_000);
            continue;
          }
          if (!woken) await sleeping;
        }
      } finally {
        this.wake = () => {};
        unwatch();
      }
    })();
  }

  async stop(): Promise<void> {
    this.stopping = true;
    this.wake();
    await this.running;
    this.running = null;
  }

  /** Drops every rebuildable read model and replays the store from position 0. */
  async rebuild(onProgress?: (progress: Progress) => void): Promise<Position> {
    await this.pool.query(trustedSql(createCheckpointsSql));
    for (const projection of this.projections) {
      if (projection.rebuild !== false) await this.reset(projection);
    }
    return this.catchUp(onProgress);
  }

  async status(): Promise<ProjectionStatus[]> {
    const [checkpoints, head] = await Promise.all([readCheckpoints(this.pool), this.store.head()]);
    return this.projections.map((projection) => {
      const checkpoint = checkpoints.get(projection.name);
      const position = checkpoint?.position ?? 0n;
      return {
        name: projection.name,
        version: checkpoint?.version ?? projection.version,
        position,
        head,
        lag: head - position,
        rebuildable: projection.rebuild !== false,
      };
    });
  }
}
