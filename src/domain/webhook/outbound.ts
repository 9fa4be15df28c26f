import type { DomainEvent } from '../events.ts';
import type { WebhookEventKind } from './event-kinds.ts';

export type Outbound = Readonly<{ kind: WebhookEventKind; data: Record<string, unknown> }>;

/** The outbound event a domain event announces, if any: its kind and the body's `data` (never a secret). */
export function outboundOf(event: DomainEvent): Outbound | null {
  switch (event.type) {
    case 'snapshot-revoked':
      // Every revocation: a re-vet in ENFORCE mode, and each withdrawal of a marketplace removal.
      return { kind: 'marketplace.snapshot.revoked', data: { ...event.data } };
    case 'snapshot-captured':
      return { kind: 'marketplace.snapshot.captured', data: { ...event.data } };
    case 'snapshot-approved':
      return { kind: 'marketplace.snapshot.approved', data: { ...event.data } };
    case 'snapshot-rejected':
      return { kind: 'marketplace.snapshot.rejected', data: { ...event.data } };
    case 'marketplace-registered':
      return { kind: 'marketplace.registered', data: { ...event.data } };
    case 'marketplace-removed':
      return { kind: 'marketplace.removed', data: { ...event.data } };
    case 'ingest-failed':
      return { kind: 'marketplace.ingest_failed', data: { ...event.data } };
    case 'catalog-rebuilt':
      return { kind: 'catalog.rebuilt', data: { ...event.data } };
    default:
      return null;
  }
}

/** The retry schedule (spec, Limits): attempt n is followed by base * 2^(n-1), capped at max. */
export const backoffAfter = (attempt: number, baseMs: number, maxMs: number): number =>
  Math.min(maxMs, baseMs * 2 ** Math.max(0, attempt - 1));
