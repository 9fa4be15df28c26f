// The effective vetting outcome (docs/vetting.md): recomputed from the latest run and the waivers
// active at an instant; the recorded outcome is never rewritten.
import type { Instant } from '../kernel/decider.ts';
import { isBlocking, pathOfLocation, type Finding, type VerdictState } from '../kernel/findings.ts';
import type { Classification, RecordedOutcome, Uncovered, Verdict, WaiverScope } from './vetting.events.ts';

export type EffectiveOutcome = 'CLEAR' | 'CLEAR_WITH_WAIVERS' | 'BLOCKED';

export type WaiverTerms = Readonly<{
  waiverId: number;
  ruleId: string;
  scope: WaiverScope;
  scopeValue: string;
  approvedBy: string;
  expiresAt: Instant;
  revokedAt: Instant | null;
}>;

export type Suppressed = Readonly<{
  connector: string;
  ruleId: string;
  location: string;
  waiverId: number;
  approvedBy: string;
  expiresAt: Instant;
}>;

export type Evaluation = Readonly<{
  outcome: EffectiveOutcome;
  recordedOutcome: RecordedOutcome;
  suppressed: readonly Suppressed[];
  uncovered: readonly Uncovered[];
  /** Connectors that block without having answered: ERROR (including a timeout) or PENDING. */
  unanswered: readonly string[];
}>;

/** States that block approval whatever the findings. */
const blockingStates: ReadonlySet<VerdictState> = new Set(['FAIL', 'ERROR', 'PENDING']);

export const recordedOutcomeOf = (verdicts: readonly Verdict[]): RecordedOutcome =>
  verdicts.some((v) => blockingStates.has(v.state)) ? 'BLOCKED' : 'CLEAR';

/** Active at `at`: not revoked, and `at` is before its expiry. */
export const waiverActive = (waiver: Pick<WaiverTerms, 'expiresAt' | 'revokedAt'>, at: Instant): boolean =>
  waiver.revokedAt === null && Date.parse(at) < Date.parse(waiver.expiresAt);

/** A PATH waiver covers the path itself and everything under it when it names a directory. */
const pathCovered = (scopeValue: string, path: string): boolean => {
  const prefix = scopeValue.replace(/\/+$/, '');
  return path === prefix || path.startsWith(`${prefix}/`);
};

export function waiverCovers(waiver: WaiverTerms, finding: Finding, sha: string): boolean {
  if (waiver.ruleId !== finding.id) return false;
  return waiver.scope === 'SNAPSHOT'
    ? waiver.scopeValue === sha
    : pathCovered(waiver.scopeValue, pathOfLocation(finding.location));
}

/** Run null (never vetted) is BLOCKED. */
export function evaluate(
  verdicts: readonly Verdict[] | null,
  sha: string,
  waivers: readonly WaiverTerms[],
  at: Instant,
): Evaluation {
  if (verdicts === null)
    return { outcome: 'BLOCKED', recordedOutcome: 'BLOCKED', suppressed: [], uncovered: [], unanswered: [] };
  const active = waivers.filter((w) => waiverActive(w, at));
  const suppressed: Suppressed[] = [];
  const uncovered: Uncovered[] = [];
  const unanswered: string[] = [];
  for (const verdict of verdicts) {
    if (verdict.state === 'ERROR' || verdict.state === 'PENDING') {
      unanswered.push(verdict.connector);
      continue;
    }
    if (verdict.state !== 'FAIL') continue;
    const blocking = verdict.findings.filter(isBlocking);
    if (blocking.length === 0) {
      // A FAIL without a finding to waive (an external scanner's bare verdict) blocks as it stands.
      uncovered.push({
        connector: verdict.connector,
        ruleId: `${verdict.connector}/fail`,
        location: '',
        severity: 'HIGH',
        message: verdict.detail ?? `${verdict.connector} failed`,
      });
      continue;
    }
    for (const finding of blocking) {
      const waiver = active.find((w) => waiverCovers(w, finding, sha));
      if (waiver) {
        suppressed.push({
          connector: verdict.connector,
          ruleId: finding.id,
          location: finding.location,
          waiverId: waiver.waiverId,
          approvedBy: waiver.approvedBy,
          expiresAt: waiver.expiresAt,
        });
      } else {
        uncovered.push({
          connector: verdict.connector,
          ruleId: finding.id,
          location: finding.location,
          severity: finding.severity,
          message: finding.message,
        });
      }
    }
  }
  const recordedOutcome = recordedOutcomeOf(verdicts);
  const outcome: EffectiveOutcome =
    uncovered.length > 0 || unanswered.length > 0
      ? 'BLOCKED'
      : recordedOutcome === 'BLOCKED'
        ? 'CLEAR_WITH_WAIVERS'
        : 'CLEAR';
  return { outcome, recordedOutcome, suppressed, uncovered, unanswered };
}

/**
 * Re-vet classification (docs/vetting.md, Vetting again): VIOLATION when a finding no waiver covers blocks;
 * INCONCLUSIVE when the chain blocks only because a connector errored, timed out or has not answered.
 */
export function classify(evaluation: Evaluation): Classification {
  if (evaluation.outcome !== 'BLOCKED') return 'CLEAR';
  return evaluation.uncovered.length > 0 ? 'VIOLATION' : 'INCONCLUSIVE';
}
