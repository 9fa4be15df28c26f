import type { OpenAPIV3_1 } from 'openapi-types';
import { webhookEventKinds } from '../../../domain/webhook/event-kinds.ts';

// OpenAPI 3.1's top-level `webhooks` object (issue 16, item 5): one entry per outbound event kind, so
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
      'the subscriber secret after whsec_ (Standard Webhooks; verify with its libraries).',
  ),
];

const bodyOf = (kind: string): OpenAPIV3_1.SchemaObject => ({
  type: 'object',
  required: ['type', 'timestamp', 'data'],
  properties: {
    type: { const: kind },
    timestamp: { type: 'string', format: 'date-time', description: 'When the event was recorded.' },
    data: {
      type: 'object',
      additionalProperties: true,
      description:
        kind === 'audit.batch'
          ? '{sink, from, to, entries[]}: ledger entries in the export form.'
          : 'The recorded event: its identifiers (snapshotId, marketplaceId, marketplace, sha, ...), never a secret.',
    },
  },
});

/** Every outbound event kind as a POST the gateway makes to a subscriber (or, audit.batch, a sink). */
export function outboundWebhooksDoc(): Record<string, OpenAPIV3_1.PathItemObject> {
  return Object.fromEntries(
    Object.entries(webhookEventKinds).map(([kind, summary]): [string, OpenAPIV3_1.PathItemObject] => [
      kind,
      {
        post: {
          summary,
          description:
            'Delivered at least once; 2xx counts as delivered, anything else (a timeout too) is retried with ' +
            'backoff up to gateway.webhooks.max-attempts.',
          parameters: headers,
          // openapi-types' 3.1 request body still names the 3.0 schema type, which has no `const`.
          requestBody: { required: true, content: { 'application/json': { schema: bodyOf(kind) as never } } },
          responses: { '2XX': { description: 'Delivered' } },
        },
      },
    ]),
  );
}
