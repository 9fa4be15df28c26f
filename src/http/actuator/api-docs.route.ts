import type { HttpApp } from '../http-deps.ts';

// spec, Versioning: the OpenAPI document is served at /v3/api-docs (the reference UI at /docs).
// Both become authenticated once sessions exist (identity issue).
export function apiDocsRoute(app: HttpApp): void {
  app.get('/v3/api-docs', { schema: { hide: true } }, async () => app.swagger());
}
