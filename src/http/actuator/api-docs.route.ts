import type { HttpApp, HttpDeps } from '../http-deps.ts';

// The OpenAPI document is served at /v3/api-docs (the reference UI at /docs).
// `servers` is the base URL in force when asked (it follows the bound port when gateway.server.port is 0).
export function apiDocsRoute(app: HttpApp, deps: Pick<HttpDeps, 'baseUrl'>): void {
  app.get('/v3/api-docs', { schema: { hide: true } }, async () => ({
    ...app.swagger(),
    servers: [{ url: deps.baseUrl }],
  }));
}
