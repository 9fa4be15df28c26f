import { isSubscribableKind, webhookEventKinds } from '../../domain/webhook/event-kinds.ts';
import { webhookSubscribersDecider, webhookSubscribersStream } from '../../domain/webhook/webhook.decider.ts';
import type { CommandMeta } from '../../domain/kernel/decider.ts';
import {
  webhookSubscriberById,
  webhookSubscribers,
  type WebhookSubscriberRecord,
} from '../../projections/webhooks/webhooks.queries.ts';
import { deliveries, type DeliveryFilter, type DeliveryRecord } from '../../projections/webhooks/deliveries.queries.ts';
import type { Actor, Ports } from '../kernel/ports.ts';
import { requireAdminRole } from '../access/standing.ts';
import { addEndpoint, changeEndpoint, type EndpointPorts } from './signed-endpoint.ts';

/** A subscriber: a signed outbound endpoint (signed-endpoint.ts) with the event kinds it receives. */
const subscriber = {
  noun: 'webhook subscriber',
  url: 'webhook',
  counter: 'webhook-subscriber',
  decider: webhookSubscribersDecider,
  stream: webhookSubscribersStream(),
  readModels: ['webhooks', 'ledger'],
  byId: webhookSubscriberById,
};

export type WebhookSubscriberPorts = EndpointPorts;
export type SubscriberBody = Readonly<{ url: string; events: readonly string[]; description: string | null }>;

/** Registers a subscriber (admin); the secret is answered this once and stored sealed. */
export async function createWebhookSubscriber(
  deps: WebhookSubscriberPorts,
  actor: Actor,
  body: SubscriberBody,
  meta: CommandMeta,
): Promise<WebhookSubscriberRecord & { secret: string }> {
  await requireAdminRole(deps, actor);
  return addWebhookSubscriber(deps, body, meta, null);
}

/**
 * The registration itself, for a caller with its own authority (the declarative estate, principal
 * config-reconciler): `declaredSecret` is the signing secret it brings, null to issue one. Stored sealed.
 */
export async function addWebhookSubscriber(
  deps: WebhookSubscriberPorts,
  body: SubscriberBody,
  meta: CommandMeta,
  declaredSecret: string | null,
): Promise<WebhookSubscriberRecord & { secret: string }> {
  return addEndpoint(deps, subscriber, body.url, declaredSecret, (subscriberId, registration) => ({
    type: 'create-webhook-subscriber' as const,
    data: { subscriberId, ...registration, events: body.events, description: body.description },
    meta,
  }));
}

/** Every subscriber (admin), never a secret. */
export async function listWebhookSubscribers(
  deps: Pick<Ports, 'pool' | 'access'>,
  actor: Actor,
): Promise<WebhookSubscriberRecord[]> {
  await requireAdminRole(deps, actor);
  return webhookSubscribers(deps.pool);
}

/** Deletes a subscriber (admin); 404 when there is none. */
export async function deleteWebhookSubscriber(
  deps: WebhookSubscriberPorts,
  actor: Actor,
  subscriberId: number,
  meta: CommandMeta,
): Promise<void> {
  await requireAdminRole(deps, actor);
  await changeEndpoint(deps, subscriber, { type: 'delete-webhook-subscriber', data: { subscriberId }, meta });
}

/** Every event kind a subscriber may name, with its one-line description (admin); sink-only kinds are left out. */
export async function webhookEventKindList(
  deps: Pick<Ports, 'pool' | 'access'>,
  actor: Actor,
): Promise<{ kind: string; description: string }[]> {
  await requireAdminRole(deps, actor);
  return Object.entries(webhookEventKinds)
    .filter(([kind]) => isSubscribableKind(kind))
    .map(([kind, description]) => ({ kind, description }));
}

/** Deliveries, newest first (admin); `nextBefore` pages on when the page is full. */
export async function listDeliveries(
  deps: Pick<Ports, 'pool' | 'access'>,
  actor: Actor,
  filter: DeliveryFilter,
): Promise<{ deliveries: DeliveryRecord[]; nextBefore: number | null }> {
  await requireAdminRole(deps, actor);
  const page = await deliveries(deps.pool, filter);
  return { deliveries: page, nextBefore: page.length === filter.limit ? page.at(-1)!.id : null };
}
