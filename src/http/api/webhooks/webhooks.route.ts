import { Type } from 'typebox';
import {
  createWebhookSubscriber,
  deleteWebhookSubscriber,
  listWebhookSubscribers,
  webhookEventKindList,
} from '../../../application/outbound/webhook-subscribers.use-case.ts';
import { callerOf } from '../../auth/authorize.ts';
import type { HttpApp, HttpDeps } from '../../http-deps.ts';
import { problemResponses } from '../../schemas/common.schema.ts';
import { EndpointUrl, endpointCollectionRoutes, endpointDeleteRoute, endpointView } from './signed-endpoint.ts';

const where = { path: '/api/v1/webhooks', tags: ['webhooks'] };

const SubscriberView = endpointView(
  {},
  {
    events: Type.Array(Type.String()),
    description: Type.Union([Type.String(), Type.Null()]),
    enabled: Type.Boolean(),
  },
);

const description =
  'Outbound lifecycle webhooks (admin). Deliveries follow the Standard Webhooks convention: headers ' +
  '`webhook-id` (the delivery id, the de-duplication key), `webhook-timestamp`, `webhook-signature`.';

/** Outbound webhook subscribers: create, list, delete, and the event kinds. */
export function webhookSubscriberRoutes(app: HttpApp, deps: HttpDeps): void {
  endpointCollectionRoutes(
    app,
    deps,
    { ...where, view: SubscriberView, description },
    {
      summary: 'Register a webhook subscriber (admin); the signing secret is answered once',
      body: Type.Object(
        {
          url: EndpointUrl,
          events: Type.Array(Type.String({ maxLength: 100 }), { maxItems: 100 }),
          description: Type.Optional(Type.Union([Type.String({ maxLength: 2000 }), Type.Null()])),
        },
        { additionalProperties: false },
      ),
      refusals: [400, 403, 422],
      run: (deps, actor, { url, events, description: text = null }, meta) =>
        createWebhookSubscriber(deps, actor, { url, events, description: text }, meta),
    },
    { summary: 'Every webhook subscriber (admin); never a secret', run: listWebhookSubscribers },
  );

  app.get(
    `${where.path}/events`,
    {
      schema: {
        tags: where.tags,
        summary: 'Every outbound event kind with a one-line description (admin)',
        response: {
          200: Type.Array(Type.Object({ kind: Type.String(), description: Type.String() })),
          ...problemResponses(403),
        },
      },
    },
    async (request) => webhookEventKindList(deps, callerOf(request)),
  );

  endpointDeleteRoute(app, deps, where, 'Delete a webhook subscriber (admin)', deleteWebhookSubscriber);
}
