import { Type } from 'typebox';
import { healthChecker } from '../../application/kernel/health.use-case.ts';
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

// GET /actuator/health is the only unauthenticated path (docs/access.md). However many probes come
// (load balancers, orchestrators, monitors), the database and the event store are asked once at a time,
// at most about once a second, on a connection of their own.
export function healthRoute(app: HttpApp, deps: HttpDeps): void {
  // Made on the first request: registering the route reads nothing of the dependencies.
  let health: ReturnType<typeof healthChecker> | null = null;
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
      const answer = await (health ??= healthChecker(deps.checks, deps.store.backend))();
      return reply.code(answer.status === 'UP' ? 200 : 503).send(answer);
    },
  );
}
