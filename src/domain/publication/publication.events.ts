import type { Event } from '../kernel/decider.ts';

/** Startup reconciliation found the published repository out of step with the events and converged it. */
export type PublicationRepaired = Event<
  'publication-repaired',
  {
    marketplaceId: number;
    marketplace: string;
    /** Refs (re)created or moved to what the events say. */
    restored: readonly string[];
    /** Refs that should not have been there, deleted. */
    removed: readonly string[];
  }
>;

/** A ref of the published repository pointed at a commit no approval covers (before the repair). */
export type PublicationServedNotApproved = Event<
  'publication-served-not-approved',
  {
    marketplaceId: number;
    marketplace: string;
    ref: string;
    sha: string;
  }
>;

/**
 * A revoked snapshot's refs could not be removed from the published repository (it needs a
 * person). Publication keeps retrying; this is recorded once per snapshot.
 */
export type SnapshotUnpublishFailed = Event<
  'snapshot-unpublish-failed',
  {
    marketplaceId: number;
    marketplace: string;
    snapshotId: number;
    sha: string;
    error: string;
  }
>;

export type PublicationEvent = PublicationRepaired | PublicationServedNotApproved | SnapshotUnpublishFailed;
