// Liveness and readiness: the database and the event store, each probed one probe at a time and answered
// from a recent probe under load.

const probe = async (check: () => Promise<unknown>, timeoutMs = 2000) => {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      check(),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error('timed out')), timeoutMs);
      }),
    ]);
    return { status: 'UP' as const };
  } catch (error) {
    return { status: 'DOWN' as const, detail: error instanceof Error ? error.message : 'unreachable' };
  } finally {
    clearTimeout(timer);
  }
};

export type Probe = Awaited<ReturnType<typeof probe>>;

/** A probe that finished less than this long ago is the answer. */
const freshMs = 1000;
/** A probe that finished less than this long ago is the answer while a new one runs. */
const staleMs = 2000;

/**
 * Probes `check` one probe at a time (a request that comes while one runs takes its answer) and answers
 * from the last probe while it is recent: under load a request then waits for no database round trip.
 */
const probed = (
  check: () => Promise<unknown>,
  onConnectionLost: ((listener: () => void) => void) | undefined,
): (() => Promise<Probe>) => {
  let last: Readonly<{ at: number; probe: Probe }> | null = null;
  let running: Promise<Probe> | null = null;
  // A lost probe connection makes any earlier answer stale, and a probe running then too: the next
  // request probes anew.
  let generation = 0;
  onConnectionLost?.(() => {
    generation += 1;
    last = null;
  });
  const refresh = () => {
    const started = generation;
    return (running ??= probe(check)
      .then((result) => {
        if (generation === started) last = { at: performance.now(), probe: result };
        return result;
      })
      .finally(() => {
        running = null;
      }));
  };
  return async () => {
    const age = last === null ? Infinity : performance.now() - last.at;
    if (age < freshMs) return last!.probe;
    if (age < staleMs) {
      void refresh();
      return last!.probe;
    }
    return refresh();
  };
};

/** What a gateway's health is read from: its two probes, and when their connection was lost. */
export type HealthChecks = Readonly<{
  database(): Promise<void>;
  eventStore(): Promise<void>;
  onConnectionLost?(listener: () => void): void;
}>;

export type Health = Readonly<{
  status: 'UP' | 'DOWN';
  components: Readonly<{ database: Probe; eventStore: Probe & Readonly<{ backend: string }> }>;
}>;

/**
 * The health of a gateway whose event store is `backend`. The probes are made on the first call:
 * making the checker reads nothing of the dependencies.
 */
export function healthChecker(checks: HealthChecks, backend: string): () => Promise<Health> {
  let probes: Readonly<{ database: () => Promise<Probe>; eventStore: () => Promise<Probe> }> | null = null;
  const probesOf = () =>
    (probes ??= {
      database: probed(checks.database, checks.onConnectionLost),
      eventStore: probed(checks.eventStore, checks.onConnectionLost),
    });
  return async () => {
    const [database, eventStore] = await Promise.all([probesOf().database(), probesOf().eventStore()]);
    const status = database.status === 'UP' && eventStore.status === 'UP' ? 'UP' : 'DOWN';
    return { status, components: { database, eventStore: { ...eventStore, backend } } };
  };
}
