// The mirror compares only refs/heads/main and refs/snapshots/* (docs/mirror.md). Pure: what is served,
// what the mirror holds, and what a push must do about the difference.

export type RefMap = ReadonlyMap<string, string>;

export const mainRef = 'refs/heads/main';
const snapshotsPrefix = 'refs/snapshots/';

/** Whether the mirror compares and pushes `ref`. */
export const isMirroredRef = (ref: string): boolean => ref === mainRef || ref.startsWith(snapshotsPrefix);

export const mirroredRefs = (refs: RefMap): Map<string, string> =>
  new Map([...refs].filter(([ref]) => isMirroredRef(ref)));

/** What a push does: refs to set (`ref` → sha) and refs to delete, each in name order. */
export type MirrorPlan = Readonly<{ set: ReadonlyArray<readonly [string, string]>; remove: readonly string[] }>;

export function mirrorPlan(served: RefMap, mirror: RefMap): MirrorPlan {
  const set = [...served].filter(([ref, sha]) => mirror.get(ref) !== sha).sort(([a], [b]) => (a < b ? -1 : 1));
  const remove = [...mirror.keys()].filter((ref) => isMirroredRef(ref) && !served.has(ref)).sort();
  return { set, remove };
}

/** The explicit refspecs of a plan: forced updates (a catalog commit has no parent) and `:ref` deletions. */
export const refspecsOf = (plan: MirrorPlan): string[] => [
  ...plan.set.map(([ref, sha]) => `+${sha}:${ref}`),
  ...plan.remove.map((ref) => `:${ref}`),
];

/** The mirror drift report (docs/mirror.md). */
export type MirrorDriftReport = Readonly<{
  enabled: boolean;
  marketplace: string | null;
  url: string | null;
  reachable: boolean;
  inSync: boolean;
  servedTip: string | null;
  mirrorTip: string | null;
  missingOnMirror: readonly string[];
  staleOnMirror: readonly string[];
  pendingUpdates: number;
  lastAttemptAt: string | null;
  lastAttemptOutcome: 'ok' | 'failed' | 'none';
  error: string | null;
}>;

/** When no mirror is configured, enabled is false and everything else is null, empty or false. */
export const disabledReport: MirrorDriftReport = {
  enabled: false,
  marketplace: null,
  url: null,
  reachable: false,
  inSync: false,
  servedTip: null,
  mirrorTip: null,
  missingOnMirror: [],
  staleOnMirror: [],
  pendingUpdates: 0,
  lastAttemptAt: null,
  lastAttemptOutcome: 'none',
  error: null,
};

export type LastAttempt = Readonly<{ at: string; outcome: 'ok' | 'failed'; error: string | null }>;

/** One name's live comparison: served refs (or why they could not be read) against the mirror's (or why not). */
export type DriftInput = Readonly<{
  name: string;
  url: string;
  served: Readonly<{ refs: RefMap }> | Readonly<{ refused: string }>;
  mirror: Readonly<{ refs: RefMap }> | Readonly<{ unreachable: string }>;
  last: LastAttempt | null;
}>;

/**
 * The report of one mirrored name. When the two sides cannot be compared (the mirror is unreachable, or
 * the gateway refused to read its own storage) nothing is confirmed: inSync is false and pendingUpdates
 * counts every served ref, and at least one (the deletions that cannot be checked either).
 */
export function driftReport(input: DriftInput): MirrorDriftReport {
  const served = 'refs' in input.served ? mirroredRefs(input.served.refs) : null;
  const mirror = 'refs' in input.mirror ? mirroredRefs(input.mirror.refs) : null;
  const plan = served && mirror ? mirrorPlan(served, mirror) : null;
  const missing = plan ? plan.set.map(([ref]) => ref) : [];
  const stale = plan ? [...plan.remove] : [];
  const pending = plan ? missing.length + stale.length : Math.max(1, served?.size ?? 0);
  const problem =
    'refused' in input.served
      ? `refused: ${input.served.refused}`
      : 'unreachable' in input.mirror
        ? `mirror unreachable: ${input.mirror.unreachable}`
        : null;
  return {
    enabled: true,
    marketplace: input.name,
    url: input.url,
    reachable: mirror !== null,
    inSync: plan !== null && pending === 0,
    servedTip: served?.get(mainRef) ?? null,
    mirrorTip: mirror?.get(mainRef) ?? null,
    missingOnMirror: missing,
    staleOnMirror: stale,
    pendingUpdates: pending,
    lastAttemptAt: input.last?.at ?? null,
    lastAttemptOutcome: input.last?.outcome ?? 'none',
    error: problem ?? (input.last?.outcome === 'failed' ? input.last.error : null),
  };
}
