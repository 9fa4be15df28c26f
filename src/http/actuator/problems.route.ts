import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Type } from 'typebox';
import { rejectionCodes } from '../../domain/kernel/rejection.ts';
import { reject } from '../../application/kernel/rejected.ts';
import type { HttpApp, HttpDeps } from '../http-deps.ts';

const known = new Set<string>(rejectionCodes);

// Decision 1: a problem's `type` dereferences to the page that explains it.
export function problemsRoute(app: HttpApp, deps: HttpDeps): void {
  app.get(
    '/problems/:code',
    {
      schema: { hide: true, params: Type.Object({ code: Type.String({ pattern: '^[a-z0-9-]{1,64}$' }) }) },
    },
    async (request, reply) => {
      const { code } = request.params;
      if (!known.has(code)) throw reject('not-found', `no problem type '${code}'`);
      const page = await readFile(join(deps.problemsDir, `${code}.md`), 'utf8').catch(() => `# ${code}\n`);
      return reply.type('text/markdown; charset=utf-8').send(page);
    },
  );
}
