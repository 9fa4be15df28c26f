import { Type } from 'typebox';
import type { CommandMeta } from '../../domain/kernel/decider.ts';
import { actAs, actAsAdmin } from '../auth/acting.ts';
import type { Caller } from '../auth/caller.ts';
import type { HttpApp, HttpDeps } from '../http-deps.ts';
import { IdParams, problemResponses } from '../schemas/common.schema.ts';

export type DeleteRoute = Readonly<{
  path: string;
  tags: string[];
  summary: string;
  /** Refuse anyone but an admin (403) before the use case runs; else the use case checks the caller. */
  adminOnly?: boolean;
}>;

/** DELETE `path`/:id answering 204, or the use case's refusal (404 when there is none). */
export function deleteRoute(
  app: HttpApp,
  deps: HttpDeps,
  route: DeleteRoute,
  run: (caller: Caller, id: number, meta: CommandMeta) => Promise<unknown>,
): void {
  app.delete(
    `${route.path}/:id`,
    {
      schema: {
        tags: route.tags,
        summary: route.summary,
        params: IdParams,
        response: { 204: Type.Null(), ...problemResponses(403, 404) },
      },
    },
    async (request, reply) => {
      const act = (caller: Caller, meta: CommandMeta) => run(caller, request.params.id, meta);
      await (route.adminOnly ? actAsAdmin(deps, request, act) : actAs(deps, request, act));
      return reply.code(204).send(null);
    },
  );
}
