import type { Event, Instant } from '../shared/decider.ts';

/** An outbound webhook subscriber; the signing secret is only ever carried sealed. */
export type WebhookSubscriberCreated = Event<
  'webhook-subscriber-created',
  {
    subscriberId: number;
    url: string;
    events: string[];
    description: string | null;
    enabled: boolean;
    sealedSecret: string;
    createdBy: string;
    createdAt: Instant;
  }
>;
export type WebhookSubscriberDeleted = Event<'webhook-subscriber-deleted', { subscriberId: number; url: string }>;

export type WebhookEvent = WebhookSubscriberCreated | WebhookSubscriberDeleted;
