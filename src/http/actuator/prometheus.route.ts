import type { HttpApp, HttpDeps } from '../http-deps.ts';

// Metrics in the Prometheus text format, for an authenticated scraper (a session or a machine credential).
export function prometheusRoute(app: HttpApp, deps: HttpDeps): void {
  app.get('/actuator/prometheus', { schema: { hide: true } }, async (_request, reply) =>
    reply.type(deps.metrics.registry.contentType).send(await deps.metrics.registry.metrics()),
  );
}
