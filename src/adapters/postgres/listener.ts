import pg from 'pg';

type Handler = (payload: string) => void;

/**
 * One LISTEN connection per process, shared by everything that waits on a notification channel.
 * A lost connection is re-established on the next subscription or after a short back-off; while
 * it is down, waiters fall back to their poll.
 */
export class Listener {
  private client: pg.Client | null = null;
  private connecting: Promise<pg.Client> | null = null;
  private readonly handlers = new Map<string, Set<Handler>>();
  private closed = false;

  constructor(
    private readonly url: string,
    private readonly onError: (error: unknown) => void = () => {},
  ) {}

  async on(channel: string, handler: Handler): Promise<() => void> {
    let set = this.handlers.get(channel);
    if (!set) {
      set = new Set();
      this.handlers.set(channel, set);
      try {
        const client = await this.connect();
        await client.query(`listen ${pg.escapeIdentifier(channel)}`);
      } catch (error) {
        this.onError(error);
      }
    }
    set.add(handler);
    return () => {
      set.delete(handler);
    };
  }

  private connect(): Promise<pg.Client> {
    if (this.client) return Promise.resolve(this.client);
    this.connecting ??= (async () => {
      const client = new pg.Client({ connectionString: this.url });
      client.on('notification', (message) => {
        for (const handler of this.handlers.get(message.channel) ?? []) handler(message.payload ?? '');
      });
      client.on('error', (error) => {
        this.onError(error);
        this.client = null;
        this.connecting = null;
        if (!this.closed)
          setTimeout(() => {
            void this.relisten();
          }, 1000).unref();
      });
      await client.connect();
      this.client = client;
      return client;
    })().finally(() => {
      this.connecting = null;
    });
    return this.connecting;
  }

  private async relisten(): Promise<void> {
    if (this.closed) return;
    try {
      const client = await this.connect();
      for (const channel of this.handlers.keys()) await client.query(`listen ${pg.escapeIdentifier(channel)}`);
      // Anything may have been missed while disconnected: wake every waiter once.
      for (const set of this.handlers.values()) for (const handler of set) handler('');
    } catch (error) {
      this.onError(error);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.connecting?.catch(() => {});
    await this.client?.end().catch(() => {});
    this.client = null;
  }
}
