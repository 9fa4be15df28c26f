import { Type } from 'typebox';
import { problemPage } from '../../application/kernel/operations.use-case.ts';
import type { HttpApp, HttpDeps } from '../http-deps.ts';

// Decision 1: a problem's `type` dereferences to the page that explains it.
export function problemsRoute(app: HttpApp, deps: HttpDeps): void {
  app.get(
    '/problems/:code',
    {
      schema: { hide: true, params: Type.Object({ code: Type.String({ pattern: '^[a-z0-9-]{1,64}$' }) }) },
    },
    async (request, reply) =>
      reply.type('text/markdown; charset=utf-8').send(await problemPage(deps.problemsDir, request.params.code)),
  );
}
