import type { RecordedEvent } from '../../adapters/eventstore/port.ts';
import type { DatabaseTransactionConnection } from '../../adapters/postgres/pool.ts';

/**
 * A read model fed from the event stream. Its rows are written only by `apply`, in the same
 * transaction that advances its checkpoint, so each event takes effect exactly once.
 */
export interface Projection {
  /** Unique; also the checkpoint's key. */
  readonly name: string;
  /** Bump it when `createSql` or the meaning of rows changes: the leader then rebuilds it at startup. */
  readonly version: number;
  /** Tables the projection owns, dropped before a rebuild (in this order). */
  readonly tables: readonly string[];
  /** DDL statements creating those tables from nothing, run in order. */
  readonly createSql: readonly string[];
  /** Reactors act on the world; a rebuild never drops or replays them. */
  readonly rebuild?: boolean;
  /**
   * The event types `apply` acts on, when it says (dispatch.ts knows them for a dispatched `apply`): a
   * batch with none of them advances the checkpoint without a transaction of its own. Absent: every type.
   */
  readonly eventTypes?: ReadonlySet<string> | undefined;
  /** Applies a batch of events in global order (every event, including types it ignores); see dispatch.ts. */
  apply(tx: DatabaseTransactionConnection, events: readonly RecordedEvent[]): Promise<void>;
}

/** A reactor: it acts on the world from the events and owns no table, so a rebuild never drops or replays it. */
export const reactor = (acts: Pick<Projection, 'name' | 'version' | 'eventTypes' | 'apply'>): Projection => ({
  ...acts,
  tables: [],
  createSql: [],
  rebuild: false,
});
