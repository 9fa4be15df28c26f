import type { PolicyDenied } from '../policy/policy.events.ts';
import {
  accept,
  refuse,
  type Command,
  type CommandMeta,
  type Decision,
  type Instant,
  type Rejection,
} from '../kernel/decider.ts';
import { approveGate, runGate, type ApproveInputs, type GateSnapshot } from './approve-gate.ts';
import type { DeletionSubject } from './snapshot-deletion.ts';
import type { SnapshotEvent } from './snapshot.events.ts';

export type ApproveSnapshot = Command<'approve-snapshot', { snapshotId: number; inputs: ApproveInputs }>;
/** `reason`: why, in the reviewer's words (optional; blank is none). */
export type RejectSnapshot = Command<'reject-snapshot', { snapshotId: number; reason?: string | null }>;
/** Continuous re-vetting in ENFORCE mode withdraws an approval that now violates (not administrative). */
export type RevokeSnapshot = Command<'revoke-snapshot', { snapshotId: number; reason: string }>;
export type SnapshotCommand = ApproveSnapshot | RejectSnapshot | RevokeSnapshot;

/** A snapshot as its marketplace's stream knows it: what the approve gate and the deletion decisions check. */
export type SnapshotEntry = GateSnapshot &
  Readonly<{
    /** While soft-deleted: until when it can be restored. */
    purgeAfter?: Instant | null;
    /** Purged; only a withdrawn snapshot stays in the state after its purge. */
    purged?: boolean;
  }>;

/** The snapshots of one marketplace, by id, and which commit each captured. */
export type SnapshotsState = Readonly<{
  snapshots: ReadonlyMap<number, SnapshotEntry>;
  captured: ReadonlyMap<string, number>;
  /** Snapshots purged and gone from `snapshots` (a restore or a second delete answers 409, not 404). */
  purged?: ReadonlySet<number>;
}>;

/** Where the snapshots live: their marketplace, named in every event. */
export type SnapshotHome = Readonly<{ marketplaceId: number; marketplace: string }>;

export type SnapshotDecisionEvent = SnapshotEvent | PolicyDenied;

export const noSnapshots: SnapshotsState = { snapshots: new Map(), captured: new Map(), purged: new Set() };

/** The snapshot a deletion command addresses, as the deletion decisions see it. */
export function deletionSubject(state: SnapshotsState, snapshotId: number): DeletionSubject {
  const snapshot = state.snapshots.get(snapshotId);
  if (snapshot) return { found: 'snapshot', snapshot };
  return state.purged?.has(snapshotId) ? { found: 'purged' } : { found: 'none' };
}

const withSnapshot = (state: SnapshotsState, snapshotId: number, change: Partial<SnapshotEntry>): SnapshotsState => {
  const current = state.snapshots.get(snapshotId);
  if (!current) return state;
  const snapshots = new Map(state.snapshots);
  snapshots.set(snapshotId, { ...current, ...change });
  return { ...state, snapshots };
};

/** The snapshot half of the marketplace stream's evolve. */
export function evolveSnapshots(state: SnapshotsState, event: SnapshotDecisionEvent): SnapshotsState {
  switch (event.type) {
    case 'snapshot-captured': {
      const { snapshotId, sha, state: initial, capturedAt } = event.data;
      const snapshots = new Map(state.snapshots);
      snapshots.set(snapshotId, { snapshotId, sha, state: initial, capturedAt, withdrawn: false });
      const captured = new Map(state.captured);
      captured.set(sha, snapshotId);
      return { ...state, snapshots, captured };
    }
    case 'snapshot-approved':
      return withSnapshot(state, event.data.snapshotId, { state: 'approved' });
    case 'snapshot-rejected':
      return withSnapshot(state, event.data.snapshotId, { state: 'rejected' });
    case 'snapshot-revoked':
      return withSnapshot(state, event.data.snapshotId, { state: 'revoked', withdrawn: event.data.administrative });
    case 'snapshot-soft-deleted':
      return withSnapshot(state, event.data.snapshotId, { deleted: true, purgeAfter: event.data.purgeAfter });
    case 'snapshot-restored':
      return withSnapshot(state, event.data.snapshotId, { deleted: false, purgeAfter: null });
    case 'snapshot-purged': {
      // The content is gone: the commit can be captured anew. A withdrawn snapshot's row stays, marked.
      if (event.data.withdrawn) return withSnapshot(state, event.data.snapshotId, { deleted: true, purged: true });
      const snapshots = new Map(state.snapshots);
      snapshots.delete(event.data.snapshotId);
      const captured = new Map(state.captured);
      if (captured.get(event.data.sha) === event.data.snapshotId) captured.delete(event.data.sha);
      return { snapshots, captured, purged: new Set([...(state.purged ?? []), event.data.snapshotId]) };
    }
    case 'plugin-withheld':
    case 'ingest-succeeded':
    case 'ingest-failed':
    case 'policy-denied':
      return state;
  }
}

// A decision waits for the restore: a deleted snapshot is on its way out (its purge would drop an approval).
const deletedRefusal = (snapshotId: number): Rejection => ({
  code: 'snapshot-deleted',
  detail: `snapshot ${snapshotId} is soft-deleted; restore it before deciding on it`,
});

/** Decides on one snapshot of a live marketplace (the marketplace decider checks that it is live). */
export function decideSnapshot(
  command: SnapshotCommand,
  state: SnapshotsState,
  home: SnapshotHome,
): Decision<SnapshotDecisionEvent> {
  const { meta } = command;
  const snapshot = state.snapshots.get(command.data.snapshotId);
  if (!snapshot)
    return refuse({
      code: 'snapshot-not-found',
      detail: `no snapshot ${command.data.snapshotId} in ${home.marketplace}`,
    });
  const base = { ...home, snapshotId: snapshot.snapshotId, sha: snapshot.sha };
  if (snapshot.deleted) return refuse(deletedRefusal(snapshot.snapshotId));
  switch (command.type) {
    case 'approve-snapshot': {
      const { inputs } = command.data;
      const refusal = runGate(approveGate, { snapshot, inputs, at: meta.at });
      if (refusal) {
        const { record = [], ...rejection } = refusal;
        return refuse<SnapshotDecisionEvent>(
          rejection,
          ...record.map((denial): PolicyDenied => ({ type: 'policy-denied', data: { ...home, ...denial } })),
        );
      }
      // The override is recorded only when it was what let the approval through.
      const overrideReason = inputs.vetting.outcome === 'BLOCKED' ? inputs.overrideReason : null;
      return accept({
        type: 'snapshot-approved',
        data: { ...base, approvedAt: meta.at, approvedBy: meta.principal, overrideReason },
      });
    }
    case 'revoke-snapshot':
      // Only an approval can be withdrawn; a snapshot decided otherwise meanwhile is left as it is.
      if (snapshot.state !== 'approved') return accept();
      return accept({
        type: 'snapshot-revoked',
        data: {
          ...base,
          reason: command.data.reason,
          administrative: false,
          revokedAt: meta.at,
          revokedBy: meta.principal,
        },
      });
    case 'reject-snapshot':
      // held or revoked → rejected; never age-gated (docs/marketplaces.md, States).
      if (snapshot.state === 'approved' || snapshot.state === 'rejected') {
        return refuse({
          code: 'snapshot-already-decided',
          detail: `snapshot ${snapshot.snapshotId} is already ${snapshot.state}`,
        });
      }
      return accept({ type: 'snapshot-rejected', data: { ...base, ...rejectedBy(meta, command.data.reason) } });
  }
}

/** Who rejected, when, and why when a reason was given (blank is none). */
const rejectedBy = (meta: CommandMeta, reason: string | null | undefined) => {
  const why = reason?.trim();
  return { rejectedAt: meta.at, rejectedBy: meta.principal, ...(why ? { reason: why } : {}) };
};
