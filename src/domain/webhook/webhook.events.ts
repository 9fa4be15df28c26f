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

/** An audit sink (issue 16): the ledger pushed in batches; the signing secret only ever carried sealed. */
export type AuditSinkCreated = Event<
  'audit-sink-created',
  {
    sinkId: number;
    name: string;
    url: string;
    enabled: boolean;
    sealedSecret: string;
    createdBy: string;
    createdAt: Instant;
  }
>;
export type AuditSinkDeleted = Event<'audit-sink-deleted', { sinkId: number; name: string }>;
/** A replay: the next batch starts after `position` (0: from the first entry). */
export type AuditSinkCursorSet = Event<'audit-sink-cursor-set', { sinkId: number; name: string; position: number }>;
export type AuditSinkEvent = AuditSinkCreated | AuditSinkDeleted | AuditSinkCursorSet;

export type WebhookEvent = WebhookSubscriberCreated | WebhookSubscriberDeleted | AuditSinkEvent;

/** The ledger entry's detail for a subscriber's or a sink's creation, deletion or cursor change (never a secret). */
export function targetLedgerDetail(event: WebhookEvent): string {
  switch (event.type) {
    case 'webhook-subscriber-created':
    case 'webhook-subscriber-deleted':
      return `webhook subscriber ${event.data.subscriberId}: ${event.data.url}`;
    case 'audit-sink-created':
      return `audit sink ${event.data.sinkId} '${event.data.name}': ${event.data.url}`;
    case 'audit-sink-deleted':
      return `audit sink ${event.data.sinkId} '${event.data.name}'`;
    case 'audit-sink-cursor-set':
      return `audit sink ${event.data.sinkId} '${event.data.name}': cursor set to ${event.data.position}`;
  }
}
