import type { Logger } from 'pino';
import type { AdvisoryLock } from '../../adapters/postgres/advisory-lock.ts';

export type LeaderDuty = Readonly<{ start(): void | Promise<void>; stop(): Promise<void> }>;

/**
 * Projections, reactors and schedules run on exactly one replica: the one holding the advisory
 * lock. The others retry every `retryMs`; a replica that loses the lock stops its duties at once.
 */
export class Leadership {
  private timer: NodeJS.Timeout | null = null;
  private leading = false;
  private stopped = false;
  private failing = false;

  private readonly lock: AdvisoryLock;
  private readonly duties: readonly LeaderDuty[];
  private readonly logger: Logger;
  private readonly retryMs;
  constructor(lock: AdvisoryLock, duties: readonly LeaderDuty[], logger: Logger, retryMs = 2000) {
    this.lock = lock;
    this.duties = duties;
    this.logger = logger;
    this.retryMs = retryMs;
  }

  get isLeader(): boolean {
    return this.leading;
  }

  /** Tries once now; resolves with whether this process leads, and keeps trying in the background. */
  async start(): Promise<boolean> {
    this.stopped = false;
    await this.attempt();
    return this.leading;
  }

  private async attempt(): Promise<void> {
    this.timer = null;
    if (this.stopped) return;
    let acquired = false;
    try {
      acquired = await this.lock.tryAcquire((error) => {
        void this.lost(error);
      });
    } catch (error) {
      // Logged once per outage: while the database is down, this fails on every retry.
      if (!this.failing) this.logger.warn({ err: error }, 'leader lock attempt failed; retrying');
      this.failing = true;
    }
    if (acquired && !this.leading) await this.lead();
    if (!this.leading) this.retryLater();
  }

  private async lead(): Promise<void> {
    this.failing = false;
    this.leading = true;
    this.logger.info('leader lock acquired: running projections and reactors here');
    try {
      for (const duty of this.duties) {
        if (!this.leading) return; // the lock was lost meanwhile; lost() stopped what had started
        await duty.start();
      }
    } catch (error) {
      // A duty that cannot start (the database went away again) must not leave half the duties
      // running under a lock that nobody retries: stop them, let the lock go, and try again later.
      this.logger.error({ err: error }, 'leader duties failed to start: releasing the lock and retrying');
      await this.stopDuties();
      await this.lock.release();
    }
  }

  private retryLater(): void {
    if (this.stopped || this.timer) return;
    this.timer = setTimeout(() => {
      void this.attempt();
    }, this.retryMs);
    this.timer.unref();
  }

  private async lost(error: unknown): Promise<void> {
    this.logger.error({ err: error }, 'leader lock lost: stopping projections and reactors');
    await this.stopDuties();
    this.retryLater();
  }

  private async stopDuties(): Promise<void> {
    if (!this.leading) return;
    this.leading = false;
    // Each duty is stopped even when another fails to (as it may while the database is gone).
    for (const duty of [...this.duties].reverse())
      await duty.stop().catch((error: unknown) => this.logger.warn({ err: error }, 'a leader duty failed to stop'));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.stopDuties();
    await this.lock.release();
  }
}
