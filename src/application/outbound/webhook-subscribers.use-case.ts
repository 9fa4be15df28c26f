import { isSubscribableKind, webhookEventKinds } from '../../domain/webhook/event-kinds.ts';
import { subscriber } from '../../domain/webhook/webhook.decider.ts';
import {
  webhookSubscriberById,
  webhookSubscribers,
  type WebhookSubscriberRecord,
} from '../../projections/webhooks/webhooks.queries.ts';
import { deliveries, type DeliveryFilter, type DeliveryRecord } from '../../projections/webhooks/deliveries.queries.ts';

/** The states a delivery moves through, as the deliveries route names them. */
export { deliveryStates } from '../../projections/webhooks/deliveries.queries.ts';
import type { Actor, Ports } from '../kernel/ports.ts';
import { requireAdminRole } from '../access/standing.ts';
import { endpointUseCases, type EndpointPorts } from './signed-endpoint.ts';

export type WebhookSubscriberPorts = EndpointPorts;
export type SubscriberBody = Readonly<{ url: string; events: readonly string[]; description: string | null }>;

/** A subscriber: a signed outbound endpoint (signed-endpoint.ts) with the event kinds it receives. */
const subscribers = endpointUseCases({
  ...subscriber,
  readModels: ['webhooks', 'ledger'],
  byId: webhookSubscriberById,
  register: (_: WebhookSubscriberPorts, subscriberId, registration, { events, description }: SubscriberBody, meta) =>
    ({
      type: 'create-webhook-subscriber',
      data: { subscriberId, ...registration, events, description },
      meta,
    }) as const,
  remove: (subscriberId, meta) => ({ type: 'delete-webhook-subscriber', data: { subscriberId }, meta }) as const,
});

/** Registers a subscriber (admin); the secret is answered this once and stored sealed. */
export const createWebhookSubscriber = subscribers.create;

/**
 * The registration itself, for a caller with its own authority (the declarative estate, principal
 * config-reconciler): `declaredSecret` is the signing secret it brings, null to issue one. Stored sealed.
 */
export const addWebhookSubscriber = subscribers.add;

/** Deletes a subscriber (admin); 404 when there is none. */
export const deleteWebhookSubscriber = subscribers.remove;

/** Every subscriber (admin), never a secret. */
export async function listWebhookSubscribers(
  deps: Pick<Ports, 'pool' | 'access'>,
  actor: Actor,
): Promise<WebhookSubscriberRecord[]> {
  await requireAdminRole(deps, actor);
  return webhookSubscribers(deps.pool);
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
