// The retention criteria (docs/retention.md): held-too-long selects held snapshots older than held-max-age; superseded
// selects held, rejected or revoked snapshots older than superseded-min-age when a later approved snapshot of the same
// marketplace exists; the min-idle veto removes any candidate whose SHA was fetched from its own marketplace through
// the facade within the window; approved snapshots are never eligible. Pure: `now` and the fetch recency come in as
// inputs.
import type { Instant } from '../kernel/decider.ts';
import type { DeletionReason } from '../snapshot/snapshot.events.ts';

/** The retention criteria a pass selects by (the policy's soft-deletion reasons), in the order they are tried. */
export const retentionCriteria = ['held-too-long', 'superseded'] as const satisfies readonly DeletionReason[];
export type RetentionCriterion = (typeof retentionCriteria)[number];

/** gateway.retention.* as the criteria read them. */
export type RetentionRules = Readonly<{
  /** Zero or negative disables held-too-long. */
  heldMaxAgeMs: number;
  supersededEnabled: boolean;
  supersededMinAgeMs: number;
  minIdleMs: number;
}>;

/** What the criteria read of one snapshot row (live or of a removed marketplace). */
export type RetentionSubject = Readonly<{
  snapshotId: number;
  marketplaceId: number;
  /** The marketplace's name: the facade's fetches are recorded under it. */
  marketplace: string;
  sha: string;
  state: 'held' | 'approved' | 'rejected' | 'revoked';
  /** The capture instant: ages are measured from it. */
  capturedAt: Instant;
  /** Administratively withdrawn (marketplace removal). */
  withdrawn: boolean;
  deleted: boolean;
}>;

export type RetentionCandidate = Omit<RetentionSubject, 'state'> &
  Readonly<{
    /** Never approved: approved snapshots are never eligible. */
    state: Exclude<RetentionSubject['state'], 'approved'>;
    criterion: RetentionCriterion;
    /** The latest fetch of the SHA from its own marketplace through the facade (outside min-idle), or null. */
    lastFetch: Instant | null;
  }>;

export type VetoedCandidate = RetentionCandidate & Readonly<{ lastFetch: Instant }>;

export type RetentionSelection = Readonly<{
  candidates: readonly RetentionCandidate[];
  /** Selected by a criterion, kept by the min-idle veto. */
  vetoed: readonly VetoedCandidate[];
}>;

/** The latest facade fetch of a (marketplace name, sha) pair, or undefined when none is known. */
export type FetchRecency = (marketplace: string, sha: string) => Instant | undefined;

const ms = (instant: Instant) => Date.parse(instant);

/** Capture order within a marketplace: capture instant, then id (ids are allocated in capture order). */
const capturedBefore = (a: RetentionSubject, b: RetentionSubject) =>
  ms(a.capturedAt) < ms(b.capturedAt) || (ms(a.capturedAt) === ms(b.capturedAt) && a.snapshotId < b.snapshotId);

/** The latest approved snapshot of each marketplace (by id): what "a later approved snapshot" is compared with. */
function latestApproved(subjects: readonly RetentionSubject[]): Map<number, RetentionSubject> {
  const latest = new Map<number, RetentionSubject>();
  for (const s of subjects) {
    if (s.state !== 'approved') continue;
    const seen = latest.get(s.marketplaceId);
    if (seen === undefined || capturedBefore(seen, s)) latest.set(s.marketplaceId, s);
  }
  return latest;
}

type Check = (s: RetentionSubject, ageMs: number, laterApproved: RetentionSubject | undefined) => boolean;

function checks(rules: RetentionRules): ReadonlyArray<readonly [RetentionCriterion, Check]> {
  return [
    // Held only: a withdrawn snapshot is revoked, so this never reaches it.
    ['held-too-long', (s, age) => rules.heldMaxAgeMs > 0 && s.state === 'held' && age > rules.heldMaxAgeMs],
    [
      'superseded',
      (s, age, later) =>
        rules.supersededEnabled &&
        s.state !== 'approved' &&
        age > rules.supersededMinAgeMs &&
        later !== undefined &&
        capturedBefore(s, later),
    ],
  ];
}

/**
 * The snapshots a retention pass would soft-delete, each with the first criterion that selects it, and those
 * the min-idle veto keeps. Approved snapshots are never eligible; a snapshot already soft-deleted is no
 * candidate. Ordered as given.
 */
export function selectForRetention(
  subjects: readonly RetentionSubject[],
  lastFetch: FetchRecency,
  rules: RetentionRules,
  now: Instant,
): RetentionSelection {
  const nowMs = ms(now);
  const later = latestApproved(subjects);
  const named = checks(rules);
  const candidates: RetentionCandidate[] = [];
  const vetoed: VetoedCandidate[] = [];
  for (const subject of subjects) {
    if (subject.deleted || subject.state === 'approved') continue;
    const age = nowMs - ms(subject.capturedAt);
    const criterion = named.find(([, check]) => check(subject, age, later.get(subject.marketplaceId)))?.[0];
    if (criterion === undefined) continue;
    const fetched = lastFetch(subject.marketplace, subject.sha);
    // Inside the window means fetched at or after now - min-idle.
    if (fetched !== undefined && ms(fetched) >= nowMs - rules.minIdleMs) {
      vetoed.push({ ...subject, state: subject.state, criterion, lastFetch: fetched });
    } else {
      candidates.push({ ...subject, state: subject.state, criterion, lastFetch: fetched ?? null });
    }
  }
  return { candidates, vetoed };
}
