import { Type } from 'typebox';
import type { HttpApp, HttpDeps } from '../http-deps.ts';

const Component = Type.Object({
  status: Type.Union([Type.Literal('UP'), Type.Literal('DOWN')]),
  detail: Type.Optional(Type.String()),
});
const Health = Type.Object({
  status: Type.Union([Type.Literal('UP'), Type.Literal('DOWN')]),
  components: Type.Object({
    database: Component,
    eventStore: Type.Intersect([Component, Type.Object({ backend: Type.String() })]),
  }),
});

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

type Probe = Awaited<ReturnType<typeof probe>>;

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

// GET /actuator/health is the only unauthenticated path (docs/access.md). However many probes come
// (load balancers, orchestrators, monitors), the database and the event store are asked once at a time,
// at most about once a second, on a connection of their own.
export function healthRoute(app: HttpApp, deps: HttpDeps): void {
  // Made on the first request: registering the route reads nothing of the dependencies.
  let probes: Readonly<{ database: () => Promise<Probe>; eventStore: () => Promise<Probe> }> | null = null;
  const probesOf = () =>
    (probes ??= {
      database: probed(deps.checks.database, deps.checks.onConnectionLost),
      eventStore: probed(deps.checks.eventStore, deps.checks.onConnectionLost),
    });
  app.get(
    '/actuator/health',
    {
      schema: {
        tags: ['actuator'],
        summary: 'Liveness and readiness of the database and the event store',
        response: { 200: Health, 503: Health },
      },
    },
    async (_request, reply) => {
      const [database, eventStore] = await Promise.all([probesOf().database(), probesOf().eventStore()]);
      const status = database?.status === 'UP' && eventStore?.status === 'UP' ? 'UP' : 'DOWN';
      return reply.code(status === 'UP' ? 200 : 503).send({
        status,
        components: { database, eventStore: { ...eventStore, backend: deps.store.backend } },
      });
    },
  );
}
