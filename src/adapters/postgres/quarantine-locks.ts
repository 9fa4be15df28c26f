import pg from 'pg';

/**
 * The advisory-lock namespace of quarantine repositories. Keys take PostgreSQL's two-int4 form
 * (namespace, marketplace id), a key space that never meets the single-bigint keys of the migration
 * lock (7306120430), the event store's append lock (7306120431) and the leader lock (7306120432).
 */
export const quarantineLockNamespace = 730_612_043;

/** What an exclusive attempt gives: the work's value, or that the repository was busy (nothing ran). */
export type ExclusiveOutcome<T> = Readonly<{ acquired: true; value: T }> | Readonly<{ acquired: false }>;

/**
 * Per quarantine repository, a readers-writer lock across replicas. Whatever writes objects that no
 * ref reaches yet (an ingest, from its fetch until its capture is recorded) holds it shared, so a prune
 * (compaction: refs removed, then `gc --prune=now`) taken exclusively never deletes them under it.
 */
export type QuarantineLocks = Readonly<{
  /** Runs `work` holding the repository's lock shared; waits while an exclusive holder prunes. */
  shared<T>(marketplaceId: number, work: () => Promise<T>): Promise<T>;
  /** Runs `work` holding the lock exclusively if nobody holds it now; never waits. */
  tryExclusive<T>(marketplaceId: number, work: () => Promise<T>): Promise<ExclusiveOutcome<T>>;
}>;

/**
 * Session-level advisory locks, each on a connection of its own for as long as the work runs (a pooled
 * connection would be held through a whole fetch). Released explicitly before the connection closes, so
 * the next attempt sees it free at once. A connection lost meanwhile loses the lock: `onLost` says so.
 */
export function postgresQuarantineLocks(url: string, onLost: (error: unknown) => void = () => {}): QuarantineLocks {
  const held = async <T>(
    mode: 'shared' | 'exclusive',
    marketplaceId: number,
    work: () => Promise<T>,
  ): Promise<ExclusiveOutcome<T>> => {
    const client = new pg.Client({ connectionString: url, application_name: `gateway-quarantine-${mode}` });
    let open = true;
    // Listened to from the start: an error nobody listens to would end the process.
    client.on('error', (error) => {
      if (open) onLost(error);
    });
    const key = [quarantineLockNamespace, marketplaceId];
    try {
      await client.connect();
      if (mode === 'shared') await client.query('select pg_advisory_lock_shared($1, $2)', key);
      else {
        const { rows } = await client.query<{ locked: boolean }>('select pg_try_advisory_lock($1, $2) as locked', key);
        if (!rows[0]?.locked) return { acquired: false };
      }
      try {
        return { acquired: true, value: await work() };
      } finally {
        const unlock = mode === 'shared' ? 'pg_advisory_unlock_shared' : 'pg_advisory_unlock';
        await client.query(`select ${unlock}($1, $2)`, key).catch(() => {});
      }
    } finally {
      open = false;
      await client.end().catch(() => {});
    }
  };
  return {
    async shared(marketplaceId, work) {
      const outcome = await held('shared', marketplaceId, work);
      if (!outcome.acquired) throw new Error('a shared quarantine lock is always granted');
      return outcome.value;
    },
    tryExclusive: (marketplaceId, work) => held('exclusive', marketplaceId, work),
  };
}
