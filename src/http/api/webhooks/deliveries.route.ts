import { Type } from 'typebox';
import { deliveryStates, listDeliveries } from '../../../application/outbound/webhook-subscribers.use-case.ts';
import { callerOf } from '../../auth/authorize.ts';
import type { HttpApp, HttpDeps } from '../../http-deps.ts';
import { literalUnion, NullableTimestamp, problemResponses, Timestamp } from '../../schemas/common.schema.ts';

const NullableId = Type.Union([Type.Integer(), Type.Null()]);
const DeliveryView = Type.Object({
  id: Type.Integer({ description: 'The delivery id, sent as webhook-id (the de-duplication key)' }),
  subscriberId: NullableId,
  sinkId: NullableId,
  event: Type.String(),
  state: literalUnion(deliveryStates),
  attempts: Type.Integer(),
  nextAttemptAt: NullableTimestamp,
  lastStatus: Type.Union([Type.Integer(), Type.Null()]),
  lastError: Type.Union([Type.String(), Type.Null()]),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
const Id = Type.Integer({ minimum: 1, maximum: 9_007_199_254_740_991 });

/** GET /api/v1/webhooks/deliveries (admin; webhooks:read). */
export function webhookDeliveryRoutes(app: HttpApp, deps: HttpDeps): void {
  app.get(
    '/api/v1/webhooks/deliveries',
    {
      schema: {
        tags: ['webhooks'],
        summary: 'Webhook deliveries, newest first (admin); page on with nextBefore',
        querystring: Type.Object({
          subscriber: Type.Optional(Id),
          sink: Type.Optional(Id),
          state: Type.Optional(literalUnion(deliveryStates)),
          limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 100 })),
          before: Type.Optional(Id),
        }),
        response: {
          200: Type.Object({ deliveries: Type.Array(DeliveryView), nextBefore: NullableId }),
          ...problemResponses(403),
        },
      },
    },
    async (request) => {
      const q = request.query;
      return listDeliveries(deps, callerOf(request), {
        subscriber: q.subscriber ?? null,
        sink: q.sink ?? null,
        state: q.state ?? null,
        before: q.before ?? null,
        limit: q.limit ?? 100,
      });
    },
  );
}
