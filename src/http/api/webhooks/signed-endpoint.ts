import { Type, type Static, type TObject, type TProperties } from 'typebox';
import type { CommandMeta } from '../../../domain/kernel/decider.ts';
import type { Actor } from '../../../application/kernel/ports.ts';
import { callerOf } from '../../auth/authorize.ts';
import type { HttpApp, HttpDeps } from '../../http-deps.ts';
import { actAs } from '../../auth/acting.ts';
import { problemResponses, Timestamp } from '../../schemas/common.schema.ts';
import { deleteRoute } from '../delete-route.ts';

// The routes' half of a signed outbound endpoint (domain/webhook/signed-endpoint.ts): the view's common fields,
// the secret answered once, the URL a body gives, and the create, list and delete routes that webhook
// subscribers (/api/v1/webhooks) and audit sinks (/api/v1/audit/sinks) both answer the same way.

/** An endpoint's target URL in a request body. */
export const EndpointUrl = Type.String({ maxLength: 2048 });

/** An endpoint as listed: id, what `named` adds, url, what `fields` adds, then who created it and when. */
export const endpointView = <N extends TProperties, F extends TProperties>(named: N, fields: F) =>
  Type.Object({
    id: Type.Integer(),
    ...named,
    url: Type.String(),
    ...fields,
    createdAt: Timestamp,
    createdBy: Type.String(),
  });

type Where = Readonly<{ path: string; tags: string[] }>;
type Problems = Parameters<typeof problemResponses>;

/**
 * POST `path` (answered 201 with the view and the signing secret, this once; `refusals` besides) and GET `path`
 * (every endpoint, never a secret; 403).
 */
export function endpointCollectionRoutes<B extends TObject, V extends TObject>(
  app: HttpApp,
  deps: HttpDeps,
  where: Where & Readonly<{ view: V; description: string }>,
  create: Readonly<{
    summary: string;
    body: B;
    refusals: Problems;
    run: (deps: HttpDeps, actor: Actor, body: Static<B>, meta: CommandMeta) => Promise<Static<V> & { secret: string }>;
  }>,
  list: Readonly<{ summary: string; run: (deps: HttpDeps, actor: Actor) => Promise<Static<V>[]> }>,
): void {
  const { path, tags, view, description } = where;
  const created = Type.Object({
    ...view.properties,
    secret: Type.String({ description: 'whsec_<base64 key>: shown once, never again' }),
  });
  app.post(
    path,
    {
      schema: {
        tags,
        summary: create.summary,
        description,
        body: create.body,
        response: { 201: created, ...problemResponses(...create.refusals) },
      },
    },
    async (request, reply) => {
      const answer = await actAs(deps, request, (caller, meta) =>
        create.run(deps, caller, request.body as Static<B>, meta),
      );
      return reply.code(201).send(answer);
    },
  );
  app.get(
    path,
    { schema: { tags, summary: list.summary, response: { 200: Type.Array(view), ...problemResponses(403) } } },
    async (request) => list.run(deps, callerOf(request)),
  );
}

/** DELETE `path`/:id: 204, or 404 when there is none. */
export const endpointDeleteRoute = (
  app: HttpApp,
  deps: HttpDeps,
  where: Where,
  summary: string,
  run: (deps: HttpDeps, actor: Actor, id: number, meta: CommandMeta) => Promise<void>,
): void => deleteRoute(app, deps, { ...where, summary }, (caller, id, meta) => run(deps, caller, id, meta));
