import type { Metrics } from '../adapters/system/metrics.ts';
import type { HttpApp } from './http-deps.ts';

/**
 * gateway_http_request_duration_seconds for every request: labelled by the route's pattern (never the URL),
 * the method and the status code sent, or `aborted` when the client left first. Measured on the raw response's
 * close, so hijacked answers (the facade's packs) and errors count as well.
 */
export function measureRequests(app: HttpApp, metrics: Metrics): void {
  app.addHook('onRequest', (request, reply, done) => {
    const end = metrics.http.startTimer();
    reply.raw.once('close', () =>
      end({
        method: request.method,
        route: request.routeOptions.url ?? 'unmatched',
        status: reply.raw.writableFinished ? String(reply.raw.statusCode) : 'aborted',
      }),
    );
    done();
  });
}
