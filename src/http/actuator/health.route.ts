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

/** Probes `check`, one probe at a time: a request that comes while one runs takes its answer. */
const joined = (check: () => Promise<unknown>): (() => Promise<Probe>) => {
  let running: Promise<Probe> | null = null;
  return () =>
    (running ??= probe(check).finally(() => {
      running = null;
    }));
};

// spec, Endpoints: GET /actuator/health is the only unauthenticated path. However many probes come at
// once (load balancers, orchestrators, monitors), the database and the event store are asked once at a time.
export function healthRoute(app: HttpApp, deps: HttpDeps): void {
  const probeDatabase = joined(deps.checks.database);
  const probeEventStore = joined(deps.checks.eventStore);
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
      const [database, eventStore] = await Promise.all([probeDatabase(), probeEventStore()]);
      const status = database?.status === 'UP' && eventStore?.status === 'UP' ? 'UP' : 'DOWN';
      return reply.code(status === 'UP' ? 200 : 503).send({
        status,
        components: { database, eventStore: { ...eventStore, backend: deps.store.backend } },
      });
    },
  );
}
