// What approving and rejecting share: the ports, the addressed snapshot with the approver check, the read
// models a decision waits for, and the answer.
import { type RoleAssignment } from '../../domain/role/permissions.ts';
import type { SnapshotApproved, SnapshotRejected } from '../../domain/snapshot/snapshot.events.ts';
import { type SnapshotRecord } from '../../projections/snapshots/snapshots.queries.ts';
import { addressedSnapshot, type AddressedSnapshot } from './addressed-snapshot.ts';
import type { Actor, Ports } from '../kernel/ports.ts';
import { requireApprover } from '../access/standing.ts';

export type DecidePorts = Pick<
  Ports,
  'store' | 'waiter' | 'pool' | 'gitStore' | 'vetting' | 'access' | 'marketplaces' | 'policy'
>;

/** Approval publishes: the command answers once the published repository serves it. */
export const readModels = ['snapshots', 'marketplaces', 'ledger', 'publication'];

export type Decided = Readonly<{ snapshot: SnapshotRecord }>;

/** The addressed snapshot (404) and the actor's roles, refused with 403 unless the actor approves for its marketplace. */
export async function approverOf(
  deps: DecidePorts,
  snapshotId: number,
  actor: Actor,
): Promise<AddressedSnapshot & { roles: RoleAssignment[] }> {
  const addressed = await addressedSnapshot(deps, snapshotId);
  return { ...addressed, roles: await requireApprover(deps, actor, addressed.marketplace) };
}

// The answer is the row as the snapshots projection writes it for the decision (the approval test
// compares it with a later read), so a decision reads the snapshot's row once.
export const decidedRow = (snapshot: SnapshotRecord, event: SnapshotApproved | SnapshotRejected): SnapshotRecord =>
  event.type === 'snapshot-approved'
    ? {
        ...snapshot,
        state: 'approved',
        decidedBy: event.data.approvedBy,
        decidedAt: event.data.approvedAt,
        decisionReason: event.data.overrideReason,
        approvedAt: event.data.approvedAt,
        revokedBy: null,
        revokedAt: null,
      }
    : {
        ...snapshot,
        state: 'rejected',
        decidedBy: event.data.rejectedBy,
        decidedAt: event.data.rejectedAt,
        decisionReason: event.data.reason ?? null,
      };
