import cookie from '@fastify/cookie';
import helmet from '@fastify/helmet';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { registerAjvFormats, TypeBoxValidatorCompiler, type TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { randomUUID } from 'node:crypto';
import Fastify, { LogController } from 'fastify';
import type { HttpApp, HttpDeps } from './http-deps.ts';
import { apiDocsRoute } from './actuator/api-docs.route.ts';
import { adoptionRoutes } from './api/adoption/adoption.route.ts';
import { auditRoutes } from './api/audit/audit.route.ts';
import { auditSinkRoutes } from './api/audit/sinks.route.ts';
import { timeTravelRoutes } from './api/audit/time-travel.route.ts';
import { catalogRoutes } from './api/catalog/catalog.route.ts';
import { managedSettingsRoute } from './api/clients/managed-settings.route.ts';
import { compactRoute } from './api/retention/compact.route.ts';
import { mirrorRoutes } from './api/mirror/mirror.route.ts';
import { estateRoutes } from './api/estate/estate.route.ts';
import { marketplaceRoutes } from './api/marketplaces/marketplaces.route.ts';
import { roleRoutes } from './api/roles/roles.route.ts';
import { ingestRoutes } from './api/marketplaces/ingest.route.ts';
import { selectionRoutes } from './api/marketplaces/selection.route.ts';
import { syncRoutes } from './api/marketplaces/sync.route.ts';
import { webhookRoutes } from './hooks/webhook.route.ts';
import { webhookSubscriberRoutes } from './api/webhooks/webhooks.route.ts';
import { webhookDeliveryRoutes } from './api/webhooks/deliveries.route.ts';
import { outboundWebhooksDoc } from './api/webhooks/openapi-webhooks.ts';
import { snapshotReadRoutes } from './api/snapshots/reads.routes.ts';
import { policyRoutes } from './api/policy/policy.route.ts';
import { vettingRoutes } from './api/vetting/vetting.routes.ts';
import { decisionRoutes } from './api/snapshots/decisions.route.ts';
import { deletionRoutes } from './api/snapshots/deletion.route.ts';
import { retentionCandidatesRoute } from './api/retention/candidates.route.ts';
import { retentionEvaluateRoute } from './api/retention/evaluate.route.ts';
import { meRoute } from './api/session/me.route.ts';
import { machineTokenRoutes } from './api/tokens/machine-tokens.route.ts';
import { personalTokenRoutes } from './api/tokens/personal-tokens.route.ts';
import { registerAuthentication } from './auth/authenticate.ts';
import { registerRateLimits } from './limits/rate-limits.ts';
import { loginRoutes } from './auth/login.route.ts';
import { TokenUseRecorder } from '../application/access/token-use.ts';
import { facadeRoutes } from './git/facade.route.ts';
import { publishRoutes } from './git/publish.route.ts';
import { holdingsRoute } from './status/holdings.route.ts';
import { prometheusRoute } from './actuator/prometheus.route.ts';
import { healthRoute } from './actuator/health.route.ts';
import { sbomRoute } from './actuator/sbom.route.ts';
import { problemsRoute } from './actuator/problems.route.ts';
import { instanceOf, problemFor, sendProblem, toProblem } from './problems.ts';
import { faviconRoutes } from './portal/favicon.route.ts';
import { portalRoutes } from './portal/portal.route.ts';
import { securityHeaders } from './portal/security-headers.ts';
import { measureRequests } from './request-metrics.ts';
import { logRequests, requestLogger } from './request-log.ts';

export type { HttpApp, HttpDeps } from './http-deps.ts';

registerAjvFormats();

/** Builds the HTTP application; the caller listens and closes. Every surface is registered here. */
export async function buildServer(deps: HttpDeps): Promise<HttpApp> {
  const app = createApp(deps);
  logRequests(app);
  measureRequests(app, deps.metrics);
  problemHandlers(app, deps);
  await app.register(cookie);
  await app.register(helmet, securityHeaders(deps.baseUrl));
  const tokenUse = new TokenUseRecorder(deps.store, deps.clock, deps.logger);
  await registerRateLimits(app, deps); // before authentication: the address is counted first
  registerAuthentication(app, deps, tokenUse);
  await openApi(app, deps);
  routes(app, deps, tokenUse);
  faviconRoutes(app);
  await portalRoutes(app, deps);
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
  }).withTypeProvider<TypeBoxTypeProvider>();
  app.setValidatorCompiler(TypeBoxValidatorCompiler);
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

/** Every surface, in the order the OpenAPI document lists them. */
function routes(app: HttpApp, deps: HttpDeps, tokenUse: TokenUseRecorder): void {
  healthRoute(app, deps);
  apiDocsRoute(app, deps);
  problemsRoute(app, deps);
  loginRoutes(app, deps);
  meRoute(app, deps);
  personalTokenRoutes(app, deps);
  machineTokenRoutes(app, deps);
  roleRoutes(app, deps);
  marketplaceRoutes(app, deps);
  ingestRoutes(app, deps);
  decisionRoutes(app, deps);
  deletionRoutes(app, deps);
  vettingRoutes(app, deps);
  policyRoutes(app, deps);
  snapshotReadRoutes(app, deps);
  syncRoutes(app, deps);
  selectionRoutes(app, deps);
  webhookRoutes(app, deps);
  webhookDeliveryRoutes(app, deps);
  webhookSubscriberRoutes(app, deps);
  auditRoutes(app, deps);
  auditSinkRoutes(app, deps);
  adoptionRoutes(app, deps);
  timeTravelRoutes(app, deps);
  catalogRoutes(app, deps);
  managedSettingsRoute(app, deps);
  retentionCandidatesRoute(app, deps);
  retentionEvaluateRoute(app, deps);
  compactRoute(app, deps);
  mirrorRoutes(app, deps);
  estateRoutes(app, deps);
  const facadeCredentials = {
    pool: deps.pool,
    clock: deps.clock,
    tokenUse,
    idpBearer: deps.facade.idpBearerEnabled ? deps.identity : null,
  };
  facadeRoutes(app, deps, facadeCredentials);
  publishRoutes(app, deps, facadeCredentials);
  holdingsRoute(app, deps, facadeCredentials);
  prometheusRoute(app, deps);
  sbomRoute(app);
}
