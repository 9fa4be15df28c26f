import type { DomainEvent, DomainEventType, EventOf } from '../events.ts';
import type { WebhookEventKind } from './event-kinds.ts';

/**
 * The domain events an outbound kind announces, and nothing else: the body's `data` is the event's data as
 * recorded (never a secret). marketplace.snapshot.revoked is every revocation: a re-vet in ENFORCE mode, and
 * each withdrawal of a marketplace removal. The OpenAPI `webhooks` object is checked against OutboundData.
 */
export const outboundEvents = {
  'snapshot-revoked': 'marketplace.snapshot.revoked',
  'snapshot-captured': 'marketplace.snapshot.captured',
  'snapshot-approved': 'marketplace.snapshot.approved',
  'snapshot-rejected': 'marketplace.snapshot.rejected',
  'snapshot-soft-deleted': 'marketplace.snapshot.soft_deleted',
  'snapshot-restored': 'marketplace.snapshot.restored',
  'marketplace-registered': 'marketplace.registered',
  'marketplace-removed': 'marketplace.removed',
  'ingest-failed': 'marketplace.ingest_failed',
  'catalog-rebuilt': 'catalog.rebuilt',
} as const satisfies Partial<Record<DomainEventType, WebhookEventKind>>;

type Announced = keyof typeof outboundEvents;

/** Each sent kind's `data`, as outboundOf builds it. */
export type OutboundData = { [E in Announced as (typeof outboundEvents)[E]]: EventOf<E>['data'] };

export type Outbound = Readonly<{ kind: WebhookEventKind; data: Record<string, unknown> }>;

const isAnnounced = (type: DomainEventType): type is Announced => Object.hasOwn(outboundEvents, type);

/** The outbound event a domain event announces, if any: its kind and the body's `data` (never a secret). */
export function outboundOf(event: DomainEvent): Outbound | null {
  return isAnnounced(event.type) ? { kind: outboundEvents[event.type], data: { ...event.data } } : null;
}
