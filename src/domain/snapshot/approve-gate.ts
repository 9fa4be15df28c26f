import type { Instant, Rejection } from '../shared/decider.ts';
import type { SnapshotState } from './snapshot.events.ts';

export type GateSnapshot = Readonly<{
  snapshotId: number;
  sha: string;
  state: SnapshotState;
  capturedAt: Instant;
  /** Withdrawn administratively (marketplace removal): never approved again. */
  withdrawn: boolean;
}>;

/** What the approval depends on beyond the snapshot's own history, read by the handler. */
export type ApproveInputs = Readonly<{
  minimumReleaseAgeMs: number;
  /** Commits of this marketplace withdrawn administratively. */
  withdrawnShas: readonly string[];
}>;

export type GateContext = Readonly<{ snapshot: GateSnapshot; inputs: ApproveInputs; at: Instant }>;
export type GateCheck = Readonly<{ name: string; check: (context: GateContext) => Rejection | null }>;

const day = 86_400_000;
const describe = (ms: number) => (ms >= day ? `${Math.round((ms / day) * 10) / 10} days` : `${Math.round(ms / 60_000)} minutes`);

/**
 * The approve gate: named checks in order; the first refusal wins. A later capability (vetting
 * outcome, policy rules) adds a check here without touching the route.
 */
export const approveGate: readonly GateCheck[] = [
  {
    name: 'notDecided',
    check: ({ snapshot }) => snapshot.state === 'approved'
      ? { code: 'snapshot-already-decided', detail: `snapshot ${snapshot.snapshotId} is already approved` } : null,
  },
  {
    name: 'notRejected',
    check: ({ snapshot }) => snapshot.state === 'rejected'
      ? { code: 'snapshot-already-decided', detail: `snapshot ${snapshot.snapshotId} was rejected; a rejected snapshot is not approved` } : null,
  },
  {
    name: 'notWithdrawn',
    check: ({ snapshot, inputs }) => snapshot.withdrawn || inputs.withdrawnShas.includes(snapshot.sha)
      ? { code: 'snapshot-withdrawn', detail: `commit ${snapshot.sha} was withdrawn administratively and cannot be approved again` } : null,
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
        extensions: { approvableAt: new Date(Date.parse(snapshot.capturedAt) + inputs.minimumReleaseAgeMs).toISOString() },
      };
    },
  },
];

export function runGate(checks: readonly GateCheck[], context: GateContext): Rejection | null {
  for (const { check } of checks) {
    const refusal = check(context);
    if (refusal) return refusal;
  }
  return null;
}
