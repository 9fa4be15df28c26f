import { registrationRefusal } from '../marketplace/trust-boundary.ts';
import { accept, refuse, type Command, type Decider } from '../kernel/decider.ts';
import { isSubscribableKind } from './event-kinds.ts';
import type { WebhookSubscriberCreated, WebhookSubscriberDeleted } from './webhook.events.ts';
import { ledgerUrl } from './ledger-url.ts';

// Every subscriber lives in one stream, so a deletion and a creation are decided in order.
export const webhookSubscribersStream = () => 'webhooksubscribers-global';

export type CreateSubscriber = Command<
  'create-webhook-subscriber',
  {
    subscriberId: number;
    url: string;
    events: readonly string[];
    description: string | null;
    sealedSecret: string;
    allowedSchemes: readonly string[];
  }
>;
export type DeleteSubscriber = Command<'delete-webhook-subscriber', { subscriberId: number }>;
export type WebhookSubscriberCommand = CreateSubscriber | DeleteSubscriber;
export type WebhookSubscriberEvent = WebhookSubscriberCreated | WebhookSubscriberDeleted;

export type WebhookSubscribersState = Readonly<{ subscribers: ReadonlyMap<number, string> }>;

const notFound = (id: number) =>
  refuse<WebhookSubscriberEvent>({ code: 'not-found', detail: `no webhook subscriber ${id}` });

/** 400 for a URL the trust boundary refuses, 422 for an empty or unknown event list. */
function createRefusal(data: CreateSubscriber['data']) {
  const boundary = registrationRefusal(
    { origin: 'upstream', url: data.url, ref: null, pushPolicy: null },
    data.allowedSchemes,
  );
  if (boundary) return refuse<WebhookSubscriberEvent>(boundary);
  if (data.events.length === 0) {
    return refuse<WebhookSubscriberEvent>({ code: 'invalid-request', detail: 'events must name at least one kind' });
  }
  const unknown = data.events.filter((kind) => !isSubscribableKind(kind));
  if (unknown.length > 0) {
    return refuse<WebhookSubscriberEvent>({
      code: 'invalid-request',
      detail: `unknown event kind(s): ${unknown.join(', ')} (see GET /api/v1/webhooks/events)`,
    });
  }
  return null;
}

export const webhookSubscribersDecider: Decider<
  WebhookSubscribersState,
  WebhookSubscriberCommand,
  WebhookSubscriberEvent
> = {
  initialState: () => ({ subscribers: new Map() }),
  evolve(state, event) {
    const subscribers = new Map(state.subscribers);
    if (event.type === 'webhook-subscriber-created') subscribers.set(event.data.subscriberId, event.data.url);
    if (event.type === 'webhook-subscriber-deleted') subscribers.delete(event.data.subscriberId);
    return { subscribers };
  },
  decide(command, state) {
    const { meta } = command;
    switch (command.type) {
      case 'create-webhook-subscriber': {
        const { data } = command;
        const refusal = createRefusal(data);
        if (refusal) return refusal;
        return accept({
          type: 'webhook-subscriber-created',
          data: {
            subscriberId: data.subscriberId,
            url: data.url,
            events: [...new Set(data.events)],
            description: data.description,
            enabled: true,
            sealedSecret: data.sealedSecret,
            createdBy: meta.principal,
            createdAt: meta.at,
            ledgerUrl: ledgerUrl(data.url),
          },
        });
      }
      case 'delete-webhook-subscriber': {
        const url = state.subscribers.get(command.data.subscriberId);
        if (url === undefined) return notFound(command.data.subscriberId);
        return accept({
          type: 'webhook-subscriber-deleted',
          data: { subscriberId: command.data.subscriberId, url, ledgerUrl: ledgerUrl(url) },
        });
      }
    }
  },
};
