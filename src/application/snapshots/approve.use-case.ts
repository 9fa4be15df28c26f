// Approving a snapshot, and what rejecting shares with it: the approver check on the addressed snapshot,
// the read models a decision waits for, and the answer.
import { isAdmin, type RoleAssignment } from '../../domain/role/permissions.ts';
import type { CommandMeta } from '../../domain/kernel/decider.ts';
import { marketplaceDecider } from '../../domain/marketplace/marketplace.decider.ts';
import { streams } from '../../domain/kernel/streams.ts';
import type { ApproveInputs } from '../../domain/snapshot/approve-gate.ts';
import type { ApproveSnapshot, RejectSnapshot } from '../../domain/snapshot/snapshot.decider.ts';
import { evaluate } from '../../domain/vetting/outcome.ts';
import { approvalRead, type ApprovalRead } from '../../projections/snapshots/addressed.queries.ts';
import type { SnapshotRecord } from '../../projections/snapshots/snapshots.queries.ts';
import { execute } from '../kernel/execute.ts';
import { policyDenials, policyVariablesOf, snapshotTreeFacts } from '../policy/evaluation.ts';
import { reject } from '../kernel/rejected.ts';
import type { SnapshotApproved, SnapshotRejected } from '../../domain/snapshot/snapshot.events.ts';
import { addressedFrom, type AddressedSnapshot } from './addressed-snapshot.ts';
import type { Actor, Ports } from '../kernel/ports.ts';
import { approving, rolesWith } from '../access/standing.ts';

export type DecidePorts = Pick<
  Ports,
  'store' | 'waiter' | 'pool' | 'gitStore' | 'vetting' | 'access' | 'marketplaces' | 'policy'
>;

/** Approval publishes: the command answers once the published repository serves it. */
const readModels = ['snapshots', 'marketplaces', 'ledger', 'publication'];

export type Decided = Readonly<{ snapshot: SnapshotRecord }>;

export type Subject = AddressedSnapshot & Readonly<{ roles: RoleAssignment[]; read: ApprovalRead }>;

/**
 * The addressed snapshot (404) and the actor's roles, refused with 403 unless the actor approves for its
 * marketplace; with them the approval's other inputs, all read in one statement.
 */
export async function approverOf(deps: DecidePorts, snapshotId: number, actor: Actor): Promise<Subject> {
  const read = await approvalRead(deps.pool, snapshotId, actor.principal);
  const addressed = addressedFrom(deps, snapshotId, read);
  return { ...addressed, read, roles: approving(rolesWith(deps, actor, read.grants), addressed.marketplace) };
}

// The answer is the row as the snapshots projection writes it for the decision (the approval test
// compares it with a later read), so a decision reads the snapshot's row once.
const decidedRow = (snapshot: SnapshotRecord, event: SnapshotApproved | SnapshotRejected): SnapshotRecord =>
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

/**
 * Everything the approve gate depends on beyond the snapshot's own history, as read with the subject: the
 * latest vetting run, the marketplace's waivers, withdrawn commits, and the enabled policy rules with the
 * variables they see (the tree is read only when a rule is enabled).
 */
async function approvalInputs(
  deps: DecidePorts,
  subject: Subject,
  actor: Actor,
  overrideReason: string | null,
  at: string,
): Promise<ApproveInputs> {
  const { snapshot, marketplace, roles } = subject;
  const {
    run,
    waivers,
    withdrawnShas: [...withdrawn],
    rules,
  } = subject.read;
  const minimumReleaseAgeMs = deps.marketplaces.minimumReleaseAgeMs;
  const denials =
    rules.length === 0
      ? []
      : await policyDenials(
          deps,
          rules,
          policyVariablesOf(
            {
              snapshot,
              marketplace,
              tree: await snapshotTreeFacts(deps, snapshot),
              run,
              waivers,
              approver: { principal: actor.principal, roles },
              minimumReleaseAgeMs,
            },
            at,
          ),
        );
  const vetting = evaluate(run?.verdicts ?? null, snapshot.sha, waivers, at);
  return {
    minimumReleaseAgeMs,
    withdrawnShas: [...withdrawn],
    overrideReason,
    policyDenials: denials,
    vetting: { outcome: vetting.outcome, uncovered: vetting.uncovered, unanswered: vetting.unanswered },
  };
}

/**
 * Approve a held or revoked snapshot: the approver's roles, the gate's inputs, one decision in the
 * marketplace's stream (refusals may record policy-denied), and the row as approved.
 */
export async function approveSnapshot(
  deps: DecidePorts,
  snapshotId: number,
  actor: Actor,
  overrideReason: string | null,
  meta: CommandMeta,
): Promise<Decided> {
  const subject = await approverOf(deps, snapshotId, actor);
  if (overrideReason !== null && !isAdmin(subject.roles))
    throw reject('forbidden', 'overriding a BLOCKED vetting outcome needs the admin role');
  const inputs = await approvalInputs(deps, subject, actor, overrideReason, meta.at);
  return decided(deps, subject, { type: 'approve-snapshot', data: { snapshotId, inputs }, meta }, 'snapshot-approved');
}

/** One decision on the addressed snapshot, in its marketplace's stream; the answer is the row as decided. */
export async function decided(
  deps: DecidePorts,
  subject: AddressedSnapshot,
  command: ApproveSnapshot | RejectSnapshot,
  expected: (SnapshotApproved | SnapshotRejected)['type'],
): Promise<Decided> {
  const decision = await execute(
    deps,
    marketplaceDecider,
    streams.marketplace(subject.marketplace.id),
    command,
    readModels,
  );
  const event = decision.events.find((e): e is SnapshotApproved | SnapshotRejected => e.type === expected);
  if (event === undefined) throw new Error(`${command.type} accepted without ${expected}`);
  return { snapshot: decidedRow(subject.snapshot, event) };
}
