import type { AccessEvent } from './access/access.events.ts';
import type { AuditEvent } from './audit/audit.events.ts';
import type { CatalogEvent } from './catalog/catalog.events.ts';
import type { CompactionEvent } from './compaction/compaction.events.ts';
import type { EstateEvent } from './estate/estate.events.ts';
import type { MarketplaceEvent, MarketplaceNameEvent } from './marketplace/marketplace.events.ts';
import type { MirrorEvent } from './mirror/mirror.events.ts';
import type { RoleEvent, RolesRead } from './role/role.events.ts';
import type { PublicationEvent } from './publication/publication.events.ts';
import type { PublishEvent } from './publish/publish.events.ts';
import type { RetentionEvent } from './retention/retention.events.ts';
import type { SnapshotEvent } from './snapshot/snapshot.events.ts';
import type { TokenEvent } from './token/token.events.ts';
import type { PolicyEvent } from './policy/policy.events.ts';
import type { VettingEvent } from './vetting/vetting.events.ts';
import type { WebhookEvent } from './webhook/webhook.events.ts';

// The single registry of event types: what the store may hold and projections may see.
export type DomainEvent =
  | MarketplaceEvent
  | MarketplaceNameEvent
  | AccessEvent
  | RoleEvent
  | RolesRead
  | TokenEvent
  | SnapshotEvent
  | PublicationEvent
  | PublishEvent
  | VettingEvent
  | PolicyEvent
  | CatalogEvent
  | MirrorEvent
  | CompactionEvent
  | WebhookEvent
  | RetentionEvent
  | EstateEvent
  | AuditEvent;
export type DomainEventType = DomainEvent['type'];

export const domainEventTypes = [
  'marketplace-registered',
  'marketplace-removed',
  'marketplace-push-scopes-removed',
  'marketplace-pushed',
  'marketplace-name-reserved',
  'marketplace-name-released',
  'info-refs',
  'upload-pack',
  'role-granted',
  'role-revoked',
  'roles-read',
  'token-issued',
  'token-revoked',
  'token-used',
  'snapshot-captured',
  'plugin-withheld',
  'ingest-succeeded',
  'ingest-failed',
  'snapshot-approved',
  'snapshot-rejected',
  'snapshot-revoked',
  'publication-repaired',
  'publication-served-not-approved',
  'snapshot-unpublish-failed',
  'vetting-verdict',
  'vetting-completed',
  'vetter-toggled',
  'vetting-chain-mode-changed',
  'vetting-chain-order-changed',
  'waiver-created',
  'waiver-revoked',
  'waiver-lapsed',
  'revet-clear',
  'revet-inconclusive',
  'revet-violation',
  'revet-violation-affected',
  'policy-rule-created',
  'policy-rule-updated',
  'policy-rule-deleted',
  'policy-denied',
  'sync-mode-changed',
  'marketplace-selection-set',
  'catalog-rebuilt',
  'catalog-name-collision',
  'catalog-rebuild-requested',
  'webhook-subscriber-created',
  'webhook-subscriber-deleted',
  'audit-sink-created',
  'audit-sink-updated',
  'audit-sink-deleted',
  'audit-sink-cursor-set',
  'snapshot-soft-deleted',
  'snapshot-restored',
  'snapshot-purged',
  'staging-refs-swept',
  'webhook-deliveries-swept',
  'external-caches-pruned',
  'retention-evaluated',
  'webhook-delivery-attempted',
  'audit-batch-offered',
  'mirror-reconciled',
  'mirror-reconcile-requested',
  'mirror-reconciliation-refused',
  'estate-reconcile-triggered',
  'estate-reconciliation-failed',
  'marketplace-upstream-unreachable',
  'audit-checkpoint-signed',
] as const satisfies readonly DomainEventType[];

// Compile-time check that the list above names every member of the union.
type Missing = Exclude<DomainEventType, (typeof domainEventTypes)[number]>;
const everyTypeListed: Missing extends never ? true : Missing = true;
void everyTypeListed;

const known = new Set<string>(domainEventTypes);
export const isDomainEventType = (type: string): type is DomainEventType => known.has(type);

export type EventOf<T extends DomainEventType> = Extract<DomainEvent, { type: T }>;

/** A fact built by name: the compiler checks `data` against the event type it names. */
export const fact = <T extends DomainEventType>(type: T, data: EventOf<T>['data']): EventOf<T> =>
  ({ type, data }) as EventOf<T>;
