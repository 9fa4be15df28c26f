import type { Event } from '../kernel/decider.ts';

/** What one pass did for one mirrored name (a marketplace, or the catalog with a null marketplaceId). */
export type MirrorTargetOutcome = Readonly<{
  name: string;
  marketplaceId: number | null;
  outcome: 'ok' | 'failed';
  /** Null when ok; `refused: …` when the gateway declined to act on its own storage; never a credential. */
  error: string | null;
  /** Refs pushed (set or moved) and deleted on the mirror by this pass. */
  pushed: number;
  deleted: number;
  /** Nothing served under the name and nothing left on the mirror: the name is no longer followed. */
  retired: boolean;
}>;

/**
 * The mirror duty records what it did (docs/architecture.md, Principles 5). One fact per pass that acted, failed,
 * refused or answered a request (a pass finding everything in sync records nothing). No ledger entry of its own.
 */
export type MirrorReconciled = Event<
  'mirror-reconciled',
  {
    at: string;
    trigger: 'startup' | 'change' | 'retry' | 'api';
    /** The POST /api/v1/mirror/reconcile requests this pass answers. */
    requests: readonly string[];
    targets: readonly MirrorTargetOutcome[];
  }
>;

/** POST /api/v1/mirror/reconcile: the leader's mirror duty runs a pass (any replica may take the request). */
export type MirrorReconcileRequested = Event<'mirror-reconcile-requested', { requestId: string }>;

/**
 * mirror-reconciliation-refused, "mirror refused to act": the gateway's own published storage
 * answered incompletely for `name`, so nothing was pushed or deleted there.
 */
export type MirrorReconciliationRefused = Event<
  'mirror-reconciliation-refused',
  { name: string; marketplaceId: number | null; reason: string }
>;

export type MirrorEvent = MirrorReconciled | MirrorReconcileRequested | MirrorReconciliationRefused;
