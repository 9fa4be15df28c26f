import type { OpenAPIV3_1 } from 'openapi-types';
import { webhookEventKinds, type WebhookEventKind } from '../../../domain/webhook/event-kinds.ts';
import { outboundDataSchemas } from './outbound.schema.ts';

// OpenAPI 3.1's top-level `webhooks` object (docs/webhooks.md): one entry per outbound event kind, so
// receivers rely on the same additive promise as API clients.

const header = (name: string, description: string): OpenAPIV3_1.ParameterObject => ({
  name,
  in: 'header',
  required: true,
  description,
  schema: { type: 'string' },
});

const headers = [
  header('webhook-id', 'The delivery id: the same on every attempt of one delivery; de-duplicate on it.'),
  header('webhook-timestamp', 'Unix seconds of this attempt.'),
  header(
    'webhook-signature',
    'v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>"> keyed by the base64-decoded part of ' +
      "the subscriber's or sink's secret after whsec_ (Standard Webhooks; verify with its libraries).",
  ),
];

const delivery =
  'Delivered at least once; 2xx counts as delivered, anything else (a timeout too) is retried with the same ' +
  'webhook-id and backoff up to gateway.webhooks.max-attempts.';
const batchDelivery =
  'One POST per batch to an audit sink, at least once: entries in ledger order, de-duplicate on entry id. The ' +
  "sink's cursor moves to data.to only after a 2xx; a failed batch is offered again from the same cursor.";

const bodyOf = (kind: WebhookEventKind): OpenAPIV3_1.SchemaObject => ({
  type: 'object',
  required: ['type', 'timestamp', 'data'],
  properties: {
    type: { const: kind, description: 'The event kind.' },
    timestamp: {
      type: 'string',
      format: 'date-time',
      description: kind === 'audit.batch' ? 'When the gateway made the batch.' : 'When the event was recorded.',
    },
    data: outboundDataSchemas[kind] as OpenAPIV3_1.SchemaObject,
  },
});

/** Every outbound event kind as a POST the gateway makes to a subscriber (or, audit.batch, a sink). */
export function outboundWebhooksDoc(): Record<string, OpenAPIV3_1.PathItemObject> {
  return Object.fromEntries(
    (Object.entries(webhookEventKinds) as [WebhookEventKind, string][]).map(
      ([kind, summary]): [string, OpenAPIV3_1.PathItemObject] => [
        kind,
        {
          post: {
            summary,
            description: kind === 'audit.batch' ? batchDelivery : delivery,
            parameters: headers,
            // openapi-types' 3.1 request body still names the 3.0 schema type, which has no `const`.
            requestBody: { required: true, content: { 'application/json': { schema: bodyOf(kind) as never } } },
            responses: { '2XX': { description: 'Delivered' } },
          },
        },
      ],
    ),
  );
}
