import { accept, type Command, type Decider } from '../kernel/decider.ts';
import { isSubscribableKind } from './event-kinds.ts';
import type { WebhookSubscriberCreated, WebhookSubscriberDeleted } from './webhook.events.ts';
import { ledgerUrl } from './ledger-url.ts';
import { endpointUrlCheck, evolveEndpoints, registerEndpoint, withEndpoint } from './signed-endpoint.ts';
import type { EndpointRegistration, EndpointSpec } from './signed-endpoint.ts';

// A webhook subscriber: a signed outbound endpoint (signed-endpoint.ts) that names the event kinds it receives.

// Every subscriber lives in one stream, so a deletion and a creation are decided in order.
export const webhookSubscribersStream = () => 'webhooksubscribers-global';

export type CreateSubscriber = Command<
  'create-webhook-subscriber',
  EndpointRegistration & { subscriberId: number; events: readonly string[]; description: string | null }
>;
export type DeleteSubscriber = Command<'delete-webhook-subscriber', { subscriberId: number }>;
export type WebhookSubscriberCommand = CreateSubscriber | DeleteSubscriber;
export type WebhookSubscriberEvent = WebhookSubscriberCreated | WebhookSubscriberDeleted;

/** Subscriber id to its URL. */
export type WebhookSubscribersState = Readonly<{ subscribers: ReadonlyMap<number, string> }>;

/** 422 for an empty or unknown event list. */
function eventsRefusal(events: readonly string[]) {
  if (events.length === 0) return { code: 'invalid-request', detail: 'events must name at least one kind' } as const;
  const unknown = events.filter((kind) => !isSubscribableKind(kind));
  if (unknown.length === 0) return null;
  return {
    code: 'invalid-request',
    detail: `unknown event kind(s): ${unknown.join(', ')} (see GET /api/v1/webhooks/events)`,
  } as const;
}

export const webhookSubscribersDecider: Decider<
  WebhookSubscribersState,
  WebhookSubscriberCommand,
  WebhookSubscriberEvent
> = {
  initialState: () => ({ subscribers: new Map() }),
  evolve: (state, { type, data }) => ({
    subscribers: evolveEndpoints(
      state.subscribers,
      data.subscriberId,
      type === 'webhook-subscriber-created' ? data.url : null,
    ),
  }),
  decide(command, state) {
    if (command.type === 'create-webhook-subscriber') {
      const { data } = command;
      // 400 for a URL the trust boundary refuses, then 422 for the event list.
      return registerEndpoint(
        data,
        command.meta,
        [endpointUrlCheck(data), () => eventsRefusal(data.events)],
        (signed): WebhookSubscriberEvent => ({
          type: 'webhook-subscriber-created',
          data: {
            subscriberId: data.subscriberId,
            url: data.url,
            events: [...new Set(data.events)],
            description: data.description,
            enabled: true,
            ...signed,
          },
        }),
      );
    }
    const { subscriberId } = command.data;
    return withEndpoint(state.subscribers, subscriberId, subscriber.noun, (url) =>
      accept<WebhookSubscriberEvent>({
        type: 'webhook-subscriber-deleted',
        data: { subscriberId, url, ledgerUrl: ledgerUrl(url) },
      }),
    );
  },
};

/** A subscriber, as a signed outbound endpoint. */
export const subscriber: EndpointSpec<WebhookSubscribersState, WebhookSubscriberCommand, WebhookSubscriberEvent> = {
  noun: 'webhook subscriber',
  url: 'webhook',
  counter: 'webhook-subscriber',
  stream: webhookSubscribersStream(),
  decider: webhookSubscribersDecider,
};
