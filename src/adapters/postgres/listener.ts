import pg from 'pg';
import { connectOrEnd } from './client-connect.ts';

type Handler = (payload: string) => void;

const firstRetryMs = 250;
const maxRetryMs = 5000;

/**
 * One LISTEN connection per process, shared by everything that waits on a notification channel.
 * A lost connection is re-established with a growing back-off (up to 5 s) until the database answers
 * again, and every channel is listened to anew; while it is down, waiters fall back to their poll.
 */
export class Listener {
  private client: pg.Client | null = null;
  private connecting: Promise<pg.Client> | null = null;
  private readonly handlers = new Map<string, Set<Handler>>();
  private closed = false;
  private retry: NodeJS.Timeout | null = null;
  private retryMs = firstRetryMs;
  // One report per outage, not one per attempt.
  private reported = false;

  private readonly url: string;
  private readonly onError: (error: unknown) => void;
  constructor(url: string, onError: (error: unknown) => void = () => {}) {
    this.url = url;
    this.onError = onError;
  }

  async on(channel: string, handler: Handler): Promise<() => void> {
    let set = this.handlers.get(channel);
    if (!set) {
      set = new Set();
      this.handlers.set(channel, set);
      try {
        const client = await this.connect();
        await client.query(`listen ${pg.escapeIdentifier(channel)}`);
      } catch (error) {
        this.failed(error);
      }
    }
    set.add(handler);
    return () => {
      set.delete(handler);
    };
  }

  /** Whether the LISTEN connection is up (tests observe the re-subscription with it). */
  get connected(): boolean {
    return this.client !== null;
  }

  private connect(): Promise<pg.Client> {
    if (this.client) return Promise.resolve(this.client);
    this.connecting ??= (async () => {
      const client = new pg.Client({ connectionString: this.url });
      client.on('notification', (message) => {
        for (const handler of this.handlers.get(message.channel) ?? []) handler(message.payload ?? '');
      });
      const lost = (error: unknown) => {
        if (this.client !== client) return;
        this.client = null;
        void client.end().catch(() => {});
        this.failed(error);
      };
      client.on('error', lost);
      client.on('end', () => lost(new Error('the notification connection ended')));
      this.client = await connectOrEnd(client);
      return client;
    })().finally(() => {
      this.connecting = null;
    });
    return this.connecting;
  }

  private failed(error: unknown): void {
    if (!this.reported) this.onError(error);
    this.reported = true;
    this.scheduleRelisten();
  }

  private scheduleRelisten(): void {
    if (this.closed || this.retry) return;
    this.retry = setTimeout(() => {
      this.retry = null;
      void this.relisten();
    }, this.retryMs);
    this.retry.unref();
    this.retryMs = Math.min(this.retryMs * 2, maxRetryMs);
  }

  private async relisten(): Promise<void> {
    if (this.closed) return;
    try {
      const client = await this.connect();
      for (const channel of this.handlers.keys()) await client.query(`listen ${pg.escapeIdentifier(channel)}`);
    } catch (error) {
      this.failed(error);
      return;
    }
    this.retryMs = firstRetryMs;
    this.reported = false;
    // Anything may have been missed while disconnected: wake every waiter once.
    for (const set of this.handlers.values()) for (const handler of set) handler('');
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.retry) clearTimeout(this.retry);
    this.retry = null;
    await this.connecting?.catch(() => {});
    const client = this.client;
    this.client = null;
    await client?.end().catch(() => {});
  }
}
