import type { Event, Instant } from '../kernel/decider.ts';
import type { SnapshotState } from '../kernel/snapshot-state.ts';
import type { UnresolvedSource } from '../plugin/manifest-policy.ts';
import type { LeftOut } from './selection.ts';

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

/** ingest-failed, its detail the reason, root cause and next step. */
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
    /** Why, in the reviewer's words; absent when none was given (and on older events). */
    reason?: string;
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

/** Why a snapshot was soft-deleted (by hand, or by a retention criterion). */
export const deletionReasons = ['manual', 'held-too-long', 'superseded'] as const;
export type DeletionReason = (typeof deletionReasons)[number];

/**
 * Deletion (orthogonal to state; docs/retention.md): a held, rejected or revoked snapshot is marked deleted; its
 * content stays readable and it can be restored until `purgeAfter` (deletion + gateway.retention.restore-window).
 */
export type SnapshotSoftDeleted = Event<
  'snapshot-soft-deleted',
  {
    snapshotId: number;
    marketplaceId: number;
    marketplace: string;
    sha: string;
    reason: DeletionReason;
    deletedAt: Instant;
    /** The admin, or `retention-policy` for a deletion by a retention criterion. */
    deletedBy: string;
    purgeAfter: Instant;
  }
>;

/** A soft-deleted snapshot's deletion marks cleared before its purge. */
export type SnapshotRestored = Event<
  'snapshot-restored',
  {
    snapshotId: number;
    marketplaceId: number;
    marketplace: string;
    sha: string;
    restoredAt: Instant;
    restoredBy: string;
  }
>;

/**
 * Compaction purged a soft-deleted snapshot past its purgeAfter: its quarantine ref is gone and its row
 * removed, except an administratively withdrawn one, whose row is kept (only its content is reclaimed).
 */
export type SnapshotPurged = Event<
  'snapshot-purged',
  {
    snapshotId: number;
    marketplaceId: number;
    marketplace: string;
    sha: string;
    /** Administratively withdrawn: the row stays. */
    withdrawn: boolean;
    purgedAt: Instant;
  }
>;

export type SnapshotEvent =
  | SnapshotCaptured
  | PluginWithheld
  | IngestSucceeded
  | IngestFailed
  | SnapshotApproved
  | SnapshotRejected
  | SnapshotRevoked
  | SnapshotSoftDeleted
  | SnapshotRestored
  | SnapshotPurged;
