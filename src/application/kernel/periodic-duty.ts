import type { LeaderDuty } from '../../projections/runner/leader.ts';
import type { Log } from './ports.ts';

export type PeriodicDutyOptions = Readonly<{
  log: Log;
  intervalMs: number;
  /** Why the duty does nothing (its setting is off), logged once at start; null: it runs. */
  disabled: string | null;
  /** The log message when a pass throws (the next pass runs as usual). */
  failure: string;
  pass: () => Promise<unknown>;
}>;

/** A leader duty that another can hurry: `wake` runs a pass now, or right after the one running. */
export type WakeableDuty = LeaderDuty & Readonly<{ wake(): void }>;

/**
 * A leader duty that runs `pass` at start and every `intervalMs`, never two passes at once; stop waits for
 * the one running. A wake while a pass runs is kept, and runs one more pass when it ends.
 */
export function periodicDuty(options: PeriodicDutyOptions): WakeableDuty {
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<unknown> | null = null;
  let again = false;
  const pass = (urgent: boolean) => {
    if (timer === null) return;
    if (running) {
      // A tick during a pass is dropped (the next comes soon); a wake is kept.
      again ||= urgent;
      return;
    }
    running = options
      .pass()
      .catch((error: unknown) => options.log.error({ err: error }, options.failure))
      .finally(() => {
        running = null;
        if (again) {
          again = false;
          pass(true);
        }
      });
  };
  return {
    start() {
      if (options.disabled !== null) {
        options.log.info(options.disabled);
        return;
      }
      timer = setInterval(() => pass(false), options.intervalMs);
      timer.unref();
      pass(false);
    },
    wake: () => pass(true),
    async stop() {
      if (timer) clearInterval(timer);
      timer = null;
      again = false;
      while (running) await running;
    },
  };
}
