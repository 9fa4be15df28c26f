import cookie from '@fastify/cookie';
import helmet from '@fastify/helmet';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { registerAjvFormats, type TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { randomUUID } from 'node:crypto';
import Fastify, { LogController } from 'fastify';
import type { HttpApp, HttpDeps } from './http-deps.ts';
import { lazySerializerFactory, lazyValidatorCompiler } from './lazy-compilers.ts';
import { actuatorPlugin } from './actuator/actuator.plugin.ts';
import { adoptionPlugin } from './api/adoption/adoption.plugin.ts';
import { auditPlugin } from './api/audit/audit.plugin.ts';
import { catalogPlugin } from './api/catalog/catalog.plugin.ts';
import { clientsPlugin } from './api/clients/clients.plugin.ts';
import { estatePlugin } from './api/estate/estate.plugin.ts';
import { marketplacesPlugin } from './api/marketplaces/marketplaces.plugin.ts';
import { mirrorPlugin } from './api/mirror/mirror.plugin.ts';
import { policyPlugin } from './api/policy/policy.plugin.ts';
import { retentionPlugin } from './api/retention/retention.plugin.ts';
import { rolesPlugin } from './api/roles/roles.plugin.ts';
import { sessionPlugin } from './api/session/session.plugin.ts';
import { snapshotsPlugin } from './api/snapshots/snapshots.plugin.ts';
import { tokensPlugin } from './api/tokens/tokens.plugin.ts';
import { vettingPlugin } from './api/vetting/vetting.plugin.ts';
import { outboundWebhooksDoc } from './api/webhooks/openapi-webhooks.ts';
import { webhooksPlugin } from './api/webhooks/webhooks.plugin.ts';
import { registerAuthentication } from './auth/authenticate.ts';
import type { FacadeCredentialDeps } from './auth/facade-credentials.ts';
import { gitPlugin } from './git/git.plugin.ts';
import { hooksPlugin } from './hooks/hooks.plugin.ts';
import { registerRateLimits } from './limits/rate-limits.ts';
import { TokenUseRecorder } from '../application/access/token-use.ts';
import { portalPlugin } from './portal/portal.plugin.ts';
import { statusPlugin } from './status/status.plugin.ts';
import { instanceOf, problemFor, sendProblem, toProblem } from './problems.ts';
import { securityHeaders } from './portal/security-headers.ts';
import { measureRequests } from './request-metrics.ts';
import { logRequests, requestLogger } from './request-log.ts';

export type { HttpApp, HttpDeps } from './http-deps.ts';

registerAjvFormats();

/**
 * Builds the HTTP application; the caller listens and closes. Every surface is registered here. Closing it waits for
 * the token uses its requests recorded (lastUsedAt is written off the request path).
 */
export async function buildServer(
  deps: HttpDeps,
  tokenUse = new TokenUseRecorder(deps.store, deps.clock, deps.logger),
): Promise<HttpApp> {
  const app = createApp(deps);
  app.addHook('onClose', () => tokenUse.idle());
  logRequests(app);
  measureRequests(app, deps.metrics);
  problemHandlers(app, deps);
  await app.register(cookie);
  await app.register(helmet, securityHeaders(deps.baseUrl));
  await registerRateLimits(app, deps); // before authentication: the address is counted first
  registerAuthentication(app, deps, tokenUse);
  await openApi(app, deps);
  await routes(app, deps, tokenUse);
  await app.register(portalPlugin, { deps });
  return app;
}

function createApp(deps: HttpDeps): HttpApp {
  const app = Fastify({
    loggerInstance: deps.logger,
    // Credentials in a query string (an OIDC code and state, tokens) never reach the log (decision 357).
    childLoggerFactory: requestLogger,
    // fastify's pair of lines per request is off: logRequests writes one line per request instead.
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: deps.bodyLimitBytes,
    genReqId: () => randomUUID(),
    forceCloseConnections: 'idle',
    return503OnClosing: true,
    requestTimeout: 120_000,
    connectionTimeout: 0,
    keepAliveTimeout: 10_000,
    // Behind a reverse proxy: the client address is the first in X-Forwarded-For that is not a trusted proxy.
    trustProxy: deps.trustedProxies?.length ? [...deps.trustedProxies] : false,
    // Strict bodies: unknown properties are refused (422), not stripped; nothing is coerced in a body.
    ajv: { customOptions: { removeAdditional: false, coerceTypes: false } },
    // Each route's validators and serializers are compiled on its first request (lazy-compilers.ts).
    schemaController: { compilersFactory: { buildSerializer: lazySerializerFactory } },
  }).withTypeProvider<TypeBoxTypeProvider>();
  app.setValidatorCompiler(lazyValidatorCompiler);
  // The API takes JSON only; surfaces that need a raw body (inbound webhooks) add their own parser.
  app.removeContentTypeParser('text/plain');
  return app;
}

/** Every error and every unknown path answers a problem document. */
function problemHandlers(app: HttpApp, deps: HttpDeps): void {
  app.setErrorHandler((error, request, reply) => {
    const { problem, headers } = toProblem(deps.baseUrl, error, request);
    if (problem.status >= 500 && problem.status !== 503) request.log.error({ err: error }, 'request failed');
    if (headers) void reply.headers(headers);
    return sendProblem(reply, problem);
  });
  app.setNotFoundHandler((request, reply) =>
    sendProblem(
      reply,
      problemFor(
        deps.baseUrl,
        {
          code: 'not-found',
          detail: `no resource at ${request.method} ${instanceOf(request)}`,
        },
        instanceOf(request),
      ),
    ),
  );
}

// Registered before the routes: @fastify/swagger collects the routes added after it.
async function openApi(app: HttpApp, deps: HttpDeps): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Skill Marketplace Governance Gateway',
        description: 'Management API (/api/v1), revocation check (/status/v1) and operational endpoints.',
        version: deps.version ?? '0.0.0',
      },
      servers: [{ url: deps.baseUrl }],
      components: {
        securitySchemes: {
          session: {
            type: 'apiKey',
            in: 'cookie',
            name: 'GATEWAY_SESSION',
            description: 'OIDC browser session; state-changing requests echo the XSRF-TOKEN cookie in X-XSRF-TOKEN',
          },
          machine: {
            type: 'http',
            scheme: 'bearer',
            description: 'machine API credential (gw_…), scoped by apiScopes',
          },
        },
      },
      security: [{ session: [] }, { machine: [] }],
      webhooks: outboundWebhooksDoc(),
    },
  });
  await app.register(swaggerUi, { routePrefix: '/docs', staticCSP: true });
}

/**
 * Every surface, one plugin per area, in the order the OpenAPI document lists them. Each is awaited, so
 * routes are added in this order whatever an area registers inside.
 */
async function routes(app: HttpApp, deps: HttpDeps, tokenUse: TokenUseRecorder): Promise<void> {
  const area = { deps };
  await app.register(actuatorPlugin, area);
  await app.register(sessionPlugin, area);
  await app.register(tokensPlugin, area);
  await app.register(rolesPlugin, area);
  await app.register(marketplacesPlugin, area);
  await app.register(snapshotsPlugin, area);
  await app.register(vettingPlugin, area);
  await app.register(policyPlugin, area);
  await app.register(hooksPlugin, area);
  await app.register(webhooksPlugin, area);
  await app.register(auditPlugin, area);
  await app.register(adoptionPlugin, area);
  await app.register(catalogPlugin, area);
  await app.register(clientsPlugin, area);
  await app.register(retentionPlugin, area);
  await app.register(mirrorPlugin, area);
  await app.register(estatePlugin, area);
  const credentials: FacadeCredentialDeps = {
    pool: deps.pool,
    clock: deps.clock,
    tokenUse,
    idpBearer: deps.facade.idpBearerEnabled ? deps.identity : null,
    // Tokens are looked up in the memory the revocation check answers from, when the gateway keeps one.
    ...(deps.facadeMemory ? { facadeMemory: deps.facadeMemory } : {}),
  };
  await app.register(gitPlugin, { deps, credentials });
  await app.register(statusPlugin, { deps, credentials });
}
