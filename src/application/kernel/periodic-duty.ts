import type { LeaderDuty } from '../../projections/runner/leader.ts';
import type { Log } from './ports.ts';

/** What a duty is called in the logs, and what it logs when it is off or a pass fails. */
export type DutyKind = Readonly<{
  component: string;
  /** Why the duty does nothing (its setting is off), logged once at start. */
  disabled: string;
  /** The log message when a pass throws (the next pass runs as usual). */
  failure: string;
}>;

/** Whether the duty runs, and how often. */
export type DutySchedule = Readonly<{ enabled: boolean; intervalMs: number }>;

/** A leader duty that another can hurry: `wake` runs a pass now, or right after the one running. */
export type WakeableDuty = LeaderDuty & Readonly<{ wake(): void }>;

/**
 * A leader duty that runs `pass` at start and every `intervalMs`, never two passes at once; stop waits for
 * the one running. A wake while a pass runs is kept, and runs one more pass when it ends.
 */
export function periodicDuty(
  logger: Log,
  kind: DutyKind,
  schedule: DutySchedule,
  runPass: () => Promise<unknown>,
): WakeableDuty {
  const log = logger.child({ component: kind.component });
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
    running = runPass()
      .catch((error: unknown) => log.error({ err: error }, kind.failure))
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
      if (!schedule.enabled) {
        log.info(kind.disabled);
        return;
      }
      timer = setInterval(() => pass(false), schedule.intervalMs);
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
