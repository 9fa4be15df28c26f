import type { PolicyDenied } from '../policy/policy.events.ts';
import type { Instant, Rejection } from '../kernel/decider.ts';
import type { EffectiveOutcome } from '../vetting/outcome.ts';
import type { Uncovered } from '../vetting/vetting.events.ts';
import type { SnapshotState } from '../kernel/snapshot-state.ts';

export type GateSnapshot = Readonly<{
  snapshotId: number;
  sha: string;
  state: SnapshotState;
  capturedAt: Instant;
  /** Withdrawn administratively (marketplace removal): never approved again. */
  withdrawn: boolean;
  /** Soft-deleted (docs/retention.md): marked, restorable until its purge. */
  deleted?: boolean;
}>;

/** What the approval depends on beyond the snapshot's own history, read by the handler. */
export type ApproveInputs = Readonly<{
  minimumReleaseAgeMs: number;
  /** Commits of this marketplace withdrawn administratively. */
  withdrawnShas: readonly string[];
  /** The effective vetting outcome at this instant (latest run, active waivers). */
  vetting: Readonly<{ outcome: EffectiveOutcome; uncovered: readonly Uncovered[]; unanswered: readonly string[] }>;
  /** An admin's reason to approve a BLOCKED snapshot all the same (the handler checks the role); null: none. */
  overrideReason: string | null;
  /** Every enabled policy rule that matched or failed to evaluate (the handler evaluates them). */
  policyDenials: readonly PolicyDenial[];
}>;

export type PolicyDenial = Readonly<{
  rule: string;
  ruleId: number;
  outcome: 'matched' | 'error';
  error: string | null;
}>;

export type GateContext = Readonly<{ snapshot: GateSnapshot; inputs: ApproveInputs; at: Instant }>;
/** A refusal, with what it records (a policy denial is recorded as well as answered). */
export type GateRefusal = Rejection &
  Readonly<{ record?: readonly Omit<PolicyDenied['data'], 'marketplaceId' | 'marketplace'>[] }>;
export type GateCheck = Readonly<{ name: string; check: (context: GateContext) => GateRefusal | null }>;

const day = 86_400_000;
const describe = (ms: number) =>
  ms >= day ? `${Math.round((ms / day) * 10) / 10} days` : `${Math.round(ms / 60_000)} minutes`;

/**
 * The approve gate: named checks in order; the first refusal wins. A later capability (vetting
 * outcome, policy rules) adds a check here without touching the route.
 */
export const approveGate: readonly GateCheck[] = [
  {
    name: 'notDecided',
    check: ({ snapshot }) =>
      snapshot.state === 'approved'
        ? { code: 'snapshot-already-decided', detail: `snapshot ${snapshot.snapshotId} is already approved` }
        : null,
  },
  {
    name: 'notRejected',
    check: ({ snapshot }) =>
      snapshot.state === 'rejected'
        ? {
            code: 'snapshot-already-decided',
            detail: `snapshot ${snapshot.snapshotId} was rejected; a rejected snapshot is not approved`,
          }
        : null,
  },
  {
    name: 'notWithdrawn',
    check: ({ snapshot, inputs }) =>
      snapshot.withdrawn || inputs.withdrawnShas.includes(snapshot.sha)
        ? {
            code: 'snapshot-withdrawn',
            detail: `commit ${snapshot.sha} was withdrawn administratively and cannot be approved again`,
          }
        : null,
  },
  {
    // BLOCKED refuses with 409 unless an admin overrides with a reason (recorded on the approval).
    name: 'vettingClear',
    check: ({ snapshot, inputs }) => {
      const { vetting, overrideReason } = inputs;
      if (vetting.outcome !== 'BLOCKED' || overrideReason !== null) return null;
      const why =
        vetting.uncovered.length > 0
          ? `${vetting.uncovered.length} blocking finding(s) no active waiver covers`
          : vetting.unanswered.length > 0
            ? `no answer from ${vetting.unanswered.join(', ')}`
            : 'the snapshot has not been vetted';
      return {
        code: 'vetting-blocked',
        detail: `snapshot ${snapshot.snapshotId} is BLOCKED by vetting (${why}); waive the findings, re-vet, or an admin may override with a reason`,
        extensions: { outcome: vetting.outcome, uncovered: vetting.uncovered, unanswered: vetting.unanswered },
      };
    },
  },
  {
    // Policy rules: any match or evaluation error refuses, naming every deciding rule; one policy-denied each.
    name: 'policyAllows',
    check: ({ snapshot, inputs }) => {
      const denials = inputs.policyDenials;
      if (denials.length === 0) return null;
      return {
        code: 'policy-denied',
        detail: `denied by policy: ${denials.map((d) => (d.outcome === 'matched' ? `rule '${d.rule}' matched` : `rule '${d.rule}' failed to evaluate (${d.error ?? 'error'})`)).join('; ')}`,
        extensions: {
          denials: denials.map((d) => ({
            rule: d.rule,
            outcome: d.outcome,
            ...(d.error === null ? {} : { error: d.error }),
          })),
        },
        record: denials.map((d) => ({
          snapshotId: snapshot.snapshotId,
          sha: snapshot.sha,
          rule: d.rule,
          ruleId: d.ruleId,
          outcome: d.outcome,
          error: d.error,
        })),
      };
    },
  },
  {
    name: 'releaseAgeElapsed',
    check: ({ snapshot, inputs, at }) => {
      const age = Date.parse(at) - Date.parse(snapshot.capturedAt);
      if (age >= inputs.minimumReleaseAgeMs) return null;
      const remaining = inputs.minimumReleaseAgeMs - age;
      return {
        code: 'release-age-not-elapsed',
        detail: `the minimum release age is ${describe(inputs.minimumReleaseAgeMs)}; this commit can be approved in ${describe(remaining)}`,
        extensions: {
          approvableAt: new Date(Date.parse(snapshot.capturedAt) + inputs.minimumReleaseAgeMs).toISOString(),
        },
      };
    },
  },
];

export function runGate(checks: readonly GateCheck[], context: GateContext): GateRefusal | null {
  for (const { check } of checks) {
    const refusal = check(context);
    if (refusal) return refusal;
  }
  return null;
}
