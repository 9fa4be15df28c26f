import type { LeaderDuty } from '../projections/runner/leader.ts';
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

/** A leader duty that runs `pass` at start and every `intervalMs`, never two passes at once; stop waits for the one running. */
export function periodicDuty(options: PeriodicDutyOptions): LeaderDuty {
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<unknown> | null = null;
  const pass = () => {
    if (running) return;
    running = options
      .pass()
      .catch((error: unknown) => options.log.error({ err: error }, options.failure))
      .finally(() => {
        running = null;
      });
  };
  return {
    start() {
      if (options.disabled !== null) {
        options.log.info(options.disabled);
        return;
      }
      timer = setInterval(pass, options.intervalMs);
      timer.unref();
      pass();
    },
    async stop() {
      if (timer) clearInterval(timer);
      timer = null;
      await running;
    },
  };
}
