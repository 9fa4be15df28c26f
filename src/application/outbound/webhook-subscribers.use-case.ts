import { isSubscribableKind, webhookEventKinds } from '../../domain/webhook/event-kinds.ts';
import { webhookSubscribersDecider, webhookSubscribersStream } from '../../domain/webhook/webhook.decider.ts';
import type { CommandMeta } from '../../domain/kernel/decider.ts';
import {
  webhookSubscriberById,
  webhookSubscribers,
  type WebhookSubscriberRecord,
} from '../../projections/webhooks/webhooks.queries.ts';
import { deliveries, type DeliveryFilter, type DeliveryRecord } from '../../projections/webhooks/deliveries.queries.ts';
import { execute } from '../kernel/execute.ts';
import type { Actor, Ports } from '../kernel/ports.ts';
import { reject } from '../kernel/rejected.ts';
import { refuseDeniedLiteral } from './outbound-checks.ts';
import { requireAdminRole } from '../access/standing.ts';
import { newSigningSecret } from './signing-secret.ts';

const readModels = ['webhooks', 'ledger'];

export type WebhookSubscriberPorts = Pick<
  Ports,
  'store' | 'waiter' | 'pool' | 'ids' | 'access' | 'secrets' | 'marketplaces' | 'outbound'
>;
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
  refuseDeniedLiteral(deps, body.url, 'the webhook url is outside the outbound boundary');
  const secret = declaredSecret ?? newSigningSecret();
  const subscriberId = await deps.ids('webhook-subscriber');
  const data = {
    subscriberId,
    url: body.url,
    events: body.events,
    description: body.description,
    sealedSecret: deps.secrets.seal(secret),
    allowedSchemes: deps.marketplaces.allowedUrlSchemes,
  };
  await execute(
    deps,
    webhookSubscribersDecider,
    webhookSubscribersStream(),
    { type: 'create-webhook-subscriber', data, meta },
    readModels,
  );
  const created = await webhookSubscriberById(deps.pool, subscriberId);
  if (!created) throw reject('not-found', `no webhook subscriber ${subscriberId}`);
  return { ...created, secret };
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
  const command = { type: 'delete-webhook-subscriber', data: { subscriberId }, meta } as const;
  await execute(deps, webhookSubscribersDecider, webhookSubscribersStream(), command, readModels);
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
