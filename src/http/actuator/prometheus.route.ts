import { metricsExposition } from '../../application/kernel/operations.use-case.ts';
import type { HttpApp, HttpDeps } from '../http-deps.ts';

// Metrics in the Prometheus text format, for an authenticated scraper (a session or a machine credential).
export function prometheusRoute(app: HttpApp, deps: HttpDeps): void {
  app.get('/actuator/prometheus', { schema: { hide: true } }, async (_request, reply) => {
    const { contentType, body } = await metricsExposition(deps);
    return reply.type(contentType).send(body);
  });
}
