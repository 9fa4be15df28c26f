import type { ChildProcess } from 'node:child_process';

/** What the owner of a supervised server hears about it. */
export type SupervisionEvents = Readonly<{
  /** The server exited on its own (crash, kill -9): a restart begins. */
  onExit?: (description: string) => void;
  /** A restart attempt failed; another follows unless it was the last. */
  onAttemptFailed?: (attempt: number, error: Error) => void;
  /** The server accepts connections again, `downMs` after it exited. */
  onRestarted?: (attempt: number, downMs: number) => void;
  /** Every attempt failed: the server stays down, and the process should exit so a supervisor restarts it. */
  onGiveUp?: (error: Error) => void;
}>;

/**
 * The waits before each restart attempt: 5 attempts, the last one starting 15 s after the crash, so that
 * with the time each start takes the gateway gives up after about 30 s (decision: database loss).
 * The first is short: after a kill -9 of the postmaster its backends exit on their own within
 * milliseconds, and a start before they have left finds their shared memory still attached and fails.
 */
export const restartDelaysMs: readonly number[] = [250, 750, 2000, 4000, 8000];

const describeExit = (code: number | null, signal: NodeJS.Signals | null) =>
  signal ? `killed by ${signal}` : `exited with code ${code}`;

/**
 * Keeps one server process running: when it exits while not being stopped, `spawn` is called again
 * (PostgreSQL runs crash recovery when it starts on a data directory that was not shut down cleanly)
 * after each of `delaysMs`, until one attempt accepts connections or every attempt has failed.
 */
export class Supervisor {
  private child: ChildProcess;
  private stopping = false;
  private restarting: Promise<void> | null = null;
  private wake: () => void = () => {};

  private readonly spawn: () => Promise<ChildProcess>;
  private readonly events: SupervisionEvents;
  private readonly delaysMs: readonly number[];
  constructor(
    first: ChildProcess,
    spawn: () => Promise<ChildProcess>,
    events: SupervisionEvents,
    delaysMs: readonly number[] = restartDelaysMs,
  ) {
    this.spawn = spawn;
    this.events = events;
    this.delaysMs = delaysMs;
    this.child = first;
    this.watch(first);
  }

  private watch(child: ChildProcess): void {
    this.child = child;
    child.once('exit', (code, signal) => {
      if (this.stopping || this.child !== child) return;
      this.events.onExit?.(describeExit(code, signal));
      this.restarting = this.restart(performance.now()).finally(() => {
        this.restarting = null;
      });
    });
  }

  private async restart(downSince: number): Promise<void> {
    let last: Error = new Error('no restart attempted');
    for (const [index, delay] of this.delaysMs.entries()) {
      await this.sleep(delay);
      if (this.stopping) return;
      try {
        const child = await this.spawn();
        this.watch(child);
        if (this.stopping) return; // stop() is waiting for this restart, and stops the new child
        this.events.onRestarted?.(index + 1, Math.round(performance.now() - downSince));
        return;
      } catch (error) {
        last = error instanceof Error ? error : new Error(String(error));
        this.events.onAttemptFailed?.(index + 1, last);
      }
    }
    const seconds = Math.round((performance.now() - downSince) / 1000);
    this.events.onGiveUp?.(
      new Error(
        `the embedded PostgreSQL could not be restarted: ${this.delaysMs.length} attempts over ${seconds} s failed (last: ${last.message})`,
      ),
    );
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }

  /** Stops supervising and the server: SIGINT (fast shutdown), SIGQUIT after 15 s. */
  async stop(): Promise<void> {
    this.stopping = true;
    this.wake();
    await this.restarting;
    const child = this.child;
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGINT'); // fast shutdown: roll back open transactions, checkpoint, exit
    const timeout = setTimeout(() => child.kill('SIGQUIT'), 15_000);
    await exited;
    clearTimeout(timeout);
  }
}
