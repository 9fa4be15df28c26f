import { Type } from 'typebox';
import {
  createWebhookSubscriber,
  deleteWebhookSubscriber,
  listWebhookSubscribers,
  webhookEventKindList,
} from '../../../application/outbound/webhook-subscribers.use-case.ts';
import { callerOf, metaFor } from '../../auth/authorize.ts';
import type { HttpApp, HttpDeps } from '../../http-deps.ts';
import { IdParams, problemResponses, Timestamp } from '../../schemas/common.schema.ts';

const tags = ['webhooks'];

const SubscriberView = Type.Object({
  id: Type.Integer(),
  url: Type.String(),
  events: Type.Array(Type.String()),
  description: Type.Union([Type.String(), Type.Null()]),
  enabled: Type.Boolean(),
  createdAt: Timestamp,
  createdBy: Type.String(),
});
const CreatedView = Type.Object({
  ...SubscriberView.properties,
  secret: Type.String({ description: 'whsec_<base64 key>: shown once, never again' }),
});

const description =
  'Outbound lifecycle webhooks (admin). Deliveries follow the Standard Webhooks convention: headers ' +
  '`webhook-id` (the delivery id, the de-duplication key), `webhook-timestamp`, `webhook-signature`.';

/** Outbound webhook subscribers: create, list, delete, and the event kinds. */
export function webhookSubscriberRoutes(app: HttpApp, deps: HttpDeps): void {
  app.post(
    '/api/v1/webhooks',
    {
      schema: {
        tags,
        summary: 'Register a webhook subscriber (admin); the signing secret is answered once',
        description,
        body: Type.Object(
          {
            url: Type.String({ maxLength: 2048 }),
            events: Type.Array(Type.String({ maxLength: 100 }), { maxItems: 100 }),
            description: Type.Optional(Type.Union([Type.String({ maxLength: 2000 }), Type.Null()])),
          },
          { additionalProperties: false },
        ),
        response: { 201: CreatedView, ...problemResponses(400, 403, 422) },
      },
    },
    async (request, reply) => {
      const caller = callerOf(request);
      const { url, events, description: text = null } = request.body;
      const created = await createWebhookSubscriber(
        deps,
        caller,
        { url, events, description: text },
        metaFor(deps, request, caller),
      );
      return reply.code(201).send(created);
    },
  );

  app.get(
    '/api/v1/webhooks',
    {
      schema: {
        tags,
        summary: 'Every webhook subscriber (admin); never a secret',
        response: { 200: Type.Array(SubscriberView), ...problemResponses(403) },
      },
    },
    async (request) => listWebhookSubscribers(deps, callerOf(request)),
  );

  app.get(
    '/api/v1/webhooks/events',
    {
      schema: {
        tags,
        summary: 'Every outbound event kind with a one-line description (admin)',
        response: {
          200: Type.Array(Type.Object({ kind: Type.String(), description: Type.String() })),
          ...problemResponses(403),
        },
      },
    },
    async (request) => webhookEventKindList(deps, callerOf(request)),
  );

  app.delete(
    '/api/v1/webhooks/:id',
    {
      schema: {
        tags,
        summary: 'Delete a webhook subscriber (admin)',
        params: IdParams,
        response: { 204: Type.Null(), ...problemResponses(403, 404) },
      },
    },
    async (request, reply) => {
      const caller = callerOf(request);
      await deleteWebhookSubscriber(deps, caller, request.params.id, metaFor(deps, request, caller));
      return reply.code(204).send(null);
    },
  );
}
