// What the request log records of a request (decision 357). fastify logs each request's URL; an OIDC callback
// carries the authorization code and state in its query, and other clients put tokens there too. The value of
// any query parameter named like a credential is replaced before the line is written; the rest of the URL
// stays, so the log still says which path was asked for with which parameters.
import type { FastifyBaseLogger, FastifyInstance, FastifyRequest } from 'fastify';
import type { Bindings, ChildLoggerOptions } from 'pino';

const censor = '[redacted]';

/** Query parameter names whose values are credentials, exactly or as part of the name (client_secret, access_token). */
const credentialNames =
  /^(code|state|nonce|session_state|code_verifier|sig|signature|key|apikey|api_key|auth|assertion|ticket|otp)$|token|secret|passw|pwd|credential|session/i;

/** The URL with the value of every credential-named query parameter replaced; the path and other parameters as sent. */
export function redactedUrl(url: string): string {
  const start = url.indexOf('?');
  if (start < 0) return url;
  const end = url.indexOf('#', start);
  const query = url.slice(start + 1, end < 0 ? undefined : end);
  const pairs = query.split('&').map((pair) => {
    const eq = pair.indexOf('=');
    const rawName = eq < 0 ? pair : pair.slice(0, eq);
    let name = rawName;
    try {
      name = decodeURIComponent(rawName.replace(/\+/g, ' '));
    } catch {
      // a malformed escape: judge the name as sent
    }
    return eq >= 0 && credentialNames.test(name) ? `${rawName}=${censor}` : pair;
  });
  return `${url.slice(0, start)}?${pairs.join('&')}`;
}

/** fastify's request serializer, with the URL redacted. */
const requestSerializer = (request: FastifyRequest) => ({
  method: request.method,
  url: redactedUrl(request.url),
  host: request.host,
  remoteAddress: request.ip,
  remotePort: request.socket?.remotePort,
});

/** The child logger of each request: its `req` written through the redacting serializer. */
export function requestLogger(
  logger: FastifyBaseLogger,
  bindings: Bindings,
  options: ChildLoggerOptions,
): FastifyBaseLogger {
  return logger.child(bindings, { ...options, serializers: { ...options.serializers, req: requestSerializer } });
}

/**
 * Requests that write no line at info: the health endpoint (polled by load balancers and orchestrators
 * every few seconds) and static files (the portal's hashed assets, the icon). They are still logged at
 * debug, and their failures at error like any other request's.
 */
export const quietRequest = (path: string): boolean =>
  path === '/actuator/health' ||
  path.startsWith('/actuator/health/') ||
  path.startsWith('/assets/') ||
  path.startsWith('/docs/static/') ||
  path === '/favicon.ico' ||
  path === '/favicon.svg';

/**
 * One line per request, written when its answer is sent (fastify's own pair of "incoming request" and
 * "request completed" lines is off): method, redacted URL, status and time, so a terminal stays readable.
 */
export function logRequests(app: FastifyInstance): void {
  app.addHook('onResponse', async (request, reply) => {
    const path = request.url.split('?')[0] ?? request.url;
    const level = quietRequest(path) ? 'debug' : 'info';
    const millis = Math.round(reply.elapsedTime * 10) / 10;
    request.log[level](
      { req: request, res: { statusCode: reply.statusCode }, responseTime: millis },
      `${request.method} ${redactedUrl(request.url)} ${reply.statusCode} ${millis} ms`,
    );
  });
}
