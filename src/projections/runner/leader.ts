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

  constructor(
    private readonly lock: AdvisoryLock,
    private readonly duties: readonly LeaderDuty[],
    private readonly logger: Logger,
    private readonly retryMs = 2000,
  ) {}

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
    if (this.stopped) return;
    try {
      const acquired = await this.lock.tryAcquire((error) => {
        void this.lost(error);
      });
      if (acquired && !this.leading) {
        this.leading = true;
        this.logger.info('leader lock acquired: running projections and reactors here');
        for (const duty of this.duties) await duty.start();
      }
    } catch (error) {
      this.logger.warn({ err: error }, 'leader lock attempt failed');
    }
    if (!this.leading) this.retryLater();
  }

  private retryLater(): void {
    if (this.stopped) return;
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
    for (const duty of [...this.duties].reverse()) await duty.stop();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.stopDuties();
    await this.lock.release();
  }
}
