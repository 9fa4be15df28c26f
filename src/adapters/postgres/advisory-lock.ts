import pg from 'pg';

/**
 * A session-level advisory lock held on a connection of its own. Losing the connection loses the
 * lock, and `onLost` says so, so that the holder stops what only the leader may do.
 */
export class AdvisoryLock {
  private client: pg.Client | null = null;

  private readonly url: string;
  private readonly key: bigint;
  constructor(url: string, key: bigint) {
    this.url = url;
    this.key = key;
  }

  get held(): boolean {
    return this.client !== null;
  }

  async tryAcquire(onLost: (error: unknown) => void): Promise<boolean> {
    if (this.client) return true;
    const client = new pg.Client({ connectionString: this.url, application_name: 'gateway-leader' });
    // Listened to from the start: a connection that breaks before the lock is taken emits an error
    // too, and one nobody listens to would end the process.
    client.on('error', (error) => {
      if (this.client !== client) return;
      this.client = null;
      onLost(error);
    });
    try {
      await client.connect();
      const result = await client.query<{ locked: boolean }>('select pg_try_advisory_lock($1) as locked', [
        this.key.toString(),
      ]);
      if (!result.rows[0]?.locked) {
        await client.end();
        return false;
      }
    } catch (error) {
      await client.end().catch(() => {});
      throw error;
    }
    this.client = client;
    return true;
  }

  async release(): Promise<void> {
    const client = this.client;
    this.client = null;
    if (!client) return;
    await client.query('select pg_advisory_unlock($1)', [this.key.toString()]).catch(() => {});
    await client.end().catch(() => {});
  }
}
