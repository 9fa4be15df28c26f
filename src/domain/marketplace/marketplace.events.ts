import type { Event, Instant } from '../kernel/decider.ts';

export const marketplaceOrigins = ['upstream', 'hosted'] as const;
export type MarketplaceOrigin = (typeof marketplaceOrigins)[number];
export const pushPolicies = ['append-only', 'allow-rewrite'] as const;
export type PushPolicy = (typeof pushPolicies)[number];

export type MarketplaceRegistered = Event<
  'marketplace-registered',
  {
    marketplaceId: number;
    name: string;
    origin: MarketplaceOrigin;
    url: string | null;
    pushPolicy: PushPolicy | null;
    registeredAt: Instant;
    registeredBy: string | null;
  }
>;

export type MarketplaceRemoved = Event<
  'marketplace-removed',
  {
    marketplaceId: number;
    name: string;
    reason: string;
    removedAt: Instant;
    removedBy: string;
    withdrawnSnapshotIds: readonly number[];
  }
>;

// A live name is reserved by its own stream (`marketplacename-<name>`), so that two registrations
// racing for one name cannot both win; removal releases it for a new marketplace.
export type MarketplaceNameReserved = Event<
  'marketplace-name-reserved',
  {
    name: string;
    marketplaceId: number;
    /** When the registration began (absent on reservations recorded before it was kept). */
    reservedAt?: Instant;
  }
>;
export type MarketplaceNameReleased = Event<'marketplace-name-released', { name: string; marketplaceId: number }>;

/** Removal: the name leaves every token's publish grant (fetch grants are kept). */
export type MarketplacePushScopesRemoved = Event<
  'marketplace-push-scopes-removed',
  {
    marketplaceId: number;
    name: string;
    tokenIds: readonly number[];
  }
>;

export const syncModes = ['on-demand', 'scheduled', 'webhook'] as const;
export type SyncMode = (typeof syncModes)[number];

/**
 * Entering webhook mode issues a new secret; leaving it discards the secret. The
 * event carries the secret sealed (AES-256-GCM under gateway.secrets.key), never in clear.
 */
export type SyncModeChanged = Event<
  'sync-mode-changed',
  {
    marketplaceId: number;
    name: string;
    mode: SyncMode;
    previousMode: SyncMode;
    /** Sealed webhook secret in webhook mode; null otherwise. */
    sealedWebhookSecret: string | null;
  }
>;

/**
 * Curation (docs/marketplaces.md, Selection): which plugins the gateway serves from now on; it takes effect at the next
 * ingest. Both lists empty clears the selection (every plugin is served).
 */
export type MarketplaceSelectionSet = Event<
  'marketplace-selection-set',
  {
    marketplaceId: number;
    name: string;
    include: readonly string[];
    exclude: readonly string[];
    setAt: Instant;
    setBy: string;
  }
>;

export type MarketplaceEvent =
  MarketplaceRegistered | MarketplaceRemoved | MarketplacePushScopesRemoved | SyncModeChanged | MarketplaceSelectionSet;
export type MarketplaceNameEvent = MarketplaceNameReserved | MarketplaceNameReleased;
