import type { Event, Instant } from '../shared/decider.ts';
import type { UnresolvedSource } from './manifest-policy.ts';
import type { LeftOut } from '../marketplace/selection.ts';

export const snapshotStates = ['held', 'approved', 'rejected', 'revoked'] as const;
export type SnapshotState = (typeof snapshotStates)[number];

export const ingestTriggers = ['on-demand', 'scheduled', 'webhook', 'push'] as const;
export type IngestTrigger = (typeof ingestTriggers)[number];

/** A commit pinned in quarantine: held, or rejected at once when its manifest breaks policy. */
export type SnapshotCaptured = Event<
  'snapshot-captured',
  {
    snapshotId: number;
    marketplaceId: number;
    marketplace: string;
    sha: string;
    upstreamSha: string;
    state: Extract<SnapshotState, 'held' | 'rejected'>;
    violation: string | null;
    capturedAt: Instant;
    ingestedBy: string | null;
    trigger: IngestTrigger;
    /** The tip's commit time upstream (upstreamUpdatedAt). */
    committedAt: Instant | null;
    description: string | null;
    /** Plugins withheld because their external source could not be read (absent on older events). */
    unresolved?: readonly UnresolvedSource[];
    /** Plugins the marketplace's selection left out of this snapshot, and why (absent on older events). */
    leftOut?: readonly LeftOut[];
  }
>;

/**
 * One plugin withheld from a new snapshot's composite (gateway.ingest.external-sources
 * withhold-unresolved): its external source could not be read, so the snapshot does not serve it.
 */
export type PluginWithheld = Event<
  'plugin-withheld',
  {
    marketplaceId: number;
    marketplace: string;
    snapshotId: number;
    sha: string;
    plugin: string;
    /** The entry's source as written in the upstream manifest. */
    source: Readonly<Record<string, unknown>>;
    reason: string;
    nextStep: string;
  }
>;

export type IngestSucceeded = Event<
  'ingest-succeeded',
  {
    marketplaceId: number;
    marketplace: string;
    at: Instant;
    snapshotId: number;
    sha: string;
    /** false when the commit was captured before: no second snapshot. */
    created: boolean;
    trigger: IngestTrigger;
  }
>;

/** spec, Events: ingest-failed, detail "reason, root cause, next step". */
export type IngestFailed = Event<
  'ingest-failed',
  {
    marketplaceId: number;
    marketplace: string;
    at: Instant;
    reason: string;
    rootCause: string;
    nextStep: string;
    trigger: IngestTrigger;
  }
>;

export type SnapshotApproved = Event<
  'snapshot-approved',
  {
    snapshotId: number;
    marketplaceId: number;
    marketplace: string;
    sha: string;
    approvedAt: Instant;
    approvedBy: string;
    /** An administrator's reason for approving over a blocked vetting outcome. */
    overrideReason: string | null;
  }
>;

export type SnapshotRejected = Event<
  'snapshot-rejected',
  {
    snapshotId: number;
    marketplaceId: number;
    marketplace: string;
    sha: string;
    rejectedAt: Instant;
    rejectedBy: string;
  }
>;

export type SnapshotRevoked = Event<
  'snapshot-revoked',
  {
    snapshotId: number;
    marketplaceId: number;
    marketplace: string;
    sha: string;
    reason: string;
    /** Administrative withdrawal (marketplace removal): its row is never purged; a re-approval is refused. */
    administrative: boolean;
    revokedAt: Instant;
    revokedBy: string;
  }
>;

export type SnapshotEvent =
  | SnapshotCaptured
  | PluginWithheld
  | IngestSucceeded
  | IngestFailed
  | SnapshotApproved
  | SnapshotRejected
  | SnapshotRevoked;
