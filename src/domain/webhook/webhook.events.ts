import type { Event, Instant } from '../kernel/decider.ts';

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
    /** The URL as the ledger names it, query values masked (decision 357); absent on events recorded before. */
    ledgerUrl?: string;
  }
>;
export type WebhookSubscriberDeleted = Event<
  'webhook-subscriber-deleted',
  { subscriberId: number; url: string; ledgerUrl?: string }
>;

/** An audit sink (docs/webhooks.md): the ledger pushed in batches; the signing secret only ever carried sealed. */
export type AuditSinkCreated = Event<
  'audit-sink-created',
  {
    sinkId: number;
    name: string;
    url: string;
    enabled: boolean;
    /** The sink's batch size, clamped to gateway.audit-export.max-page-size; null: the setting. */
    batchSize: number | null;
    sealedSecret: string;
    createdBy: string;
    createdAt: Instant;
    /** The URL as the ledger names it, query values masked (decision 357); absent on events recorded before. */
    ledgerUrl?: string;
  }
>;
/** A sink switched on or off, or its batch size changed. */
export type AuditSinkUpdated = Event<
  'audit-sink-updated',
  { sinkId: number; name: string; enabled: boolean; batchSize: number | null }
>;
export type AuditSinkDeleted = Event<'audit-sink-deleted', { sinkId: number; name: string }>;
/** A replay: the next batch starts after `position` (0: from the first entry). */
export type AuditSinkCursorSet = Event<'audit-sink-cursor-set', { sinkId: number; name: string; position: number }>;
export type AuditSinkEvent = AuditSinkCreated | AuditSinkUpdated | AuditSinkDeleted | AuditSinkCursorSet;

/** A subscriber's or a sink's creation, deletion or change: an administrative act, on the ledger. */
export type WebhookTargetEvent = WebhookSubscriberCreated | WebhookSubscriberDeleted | AuditSinkEvent;

/**
 * One attempt at a delivery, as the dispatcher made it (a reactor records what it did: docs/architecture.md, Principles
 * 5). Its outcome: delivered (2xx), retrying (another attempt is due at nextAttemptAt) or failed (the last one).
 */
export type WebhookDeliveryAttempted = Event<
  'webhook-delivery-attempted',
  {
    deliveryId: number;
    /** The first attempt is 1. */
    attempt: number;
    outcome: 'delivered' | 'retrying' | 'failed';
    status: number | null;
    error: string | null;
    nextAttemptAt: Instant | null;
    at: Instant;
  }
>;

/** The audit push offered a sink its next batch: the `count` ledger entries after `from`, up to `to`. */
export type AuditBatchOffered = Event<
  'audit-batch-offered',
  { sinkId: number; name: string; from: number; to: number; count: number; at: Instant }
>;

/** What delivering does: housekeeping of the outbound channel, not on the ledger (a sink would feed itself). */
export type DeliveryEvent = WebhookDeliveryAttempted | AuditBatchOffered;

export type WebhookEvent = WebhookTargetEvent | DeliveryEvent;

/**
 * The ledger entry's detail for a subscriber's or a sink's creation, deletion or cursor change (never a secret).
 * Events recorded before decision 357 carry no ledgerUrl and keep their detail as it was, so a rebuild gives
 * every hash of the chain back.
 */
export function targetLedgerDetail(event: WebhookTargetEvent): string {
  switch (event.type) {
    case 'webhook-subscriber-created':
    case 'webhook-subscriber-deleted':
      return `webhook subscriber ${event.data.subscriberId}: ${event.data.ledgerUrl ?? event.data.url}`;
    case 'audit-sink-created':
      return `audit sink ${event.data.sinkId} '${event.data.name}': ${event.data.ledgerUrl ?? event.data.url}`;
    case 'audit-sink-deleted':
      return `audit sink ${event.data.sinkId} '${event.data.name}'`;
    case 'audit-sink-updated': {
      const { enabled, batchSize } = event.data;
      return `audit sink ${event.data.sinkId} '${event.data.name}': ${enabled ? 'enabled' : 'disabled'}, batch size ${batchSize ?? 'gateway.audit-export.batch-size'}`;
    }
    case 'audit-sink-cursor-set':
      return `audit sink ${event.data.sinkId} '${event.data.name}': cursor set to ${event.data.position}`;
  }
}
