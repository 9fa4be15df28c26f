import pg from 'pg';
import { connectOrEnd } from './client-connect.ts';

/**
 * The connection health probes run on: one per process, opened on the first probe, never shared with
 * requests. When it is lost (the database stopped, restarted, or dropped it), `onLost` is told at once,
 * so that no earlier probe's answer is given as current; the next probe connects again.
 */
export class HealthConnection {
  private client: pg.Client | null = null;
  private connecting: Promise<pg.Client> | null = null;
  private closed = false;

  private readonly url: string;
  private readonly onLost: () => void;
  private readonly timeoutMs;
  constructor(url: string, onLost: () => void, timeoutMs = 2000) {
    this.url = url;
    this.onLost = onLost;
    this.timeoutMs = timeoutMs;
  }

  /** Runs a statement the code owns (never input) and discards its rows. */
  async run(statement: string): Promise<void> {
    const client = await this.connect();
    await client.query(statement);
  }

  private connect(): Promise<pg.Client> {
    if (this.closed) return Promise.reject(new Error('the health connection is closed'));
    if (this.client !== null) return Promise.resolve(this.client);
    this.connecting ??= (async () => {
      const client = new pg.Client({
        connectionString: this.url,
        application_name: 'gateway-health',
        connectionTimeoutMillis: this.timeoutMs,
        query_timeout: this.timeoutMs,
      });
      client.on('error', () => this.lost(client));
      client.on('end', () => this.lost(client));
      this.client = await connectOrEnd(client);
      return client;
    })().finally(() => {
      this.connecting = null;
    });
    return this.connecting;
  }

  private lost(client: pg.Client): void {
    if (this.client !== client) return;
    this.client = null;
    client.end().catch(() => {});
    if (!this.closed) this.onLost();
  }

  async close(): Promise<void> {
    this.closed = true;
    const client = this.client;
    this.client = null;
    await client?.end().catch(() => {});
  }
}
