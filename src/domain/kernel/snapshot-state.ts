// A snapshot's lifecycle state. Shared: the snapshot events record it, the approve gate checks it, waivers refuse a
// snapshot no decision can follow, and policy rules read it as `snapshot.state`.
export const snapshotStates = ['held', 'approved', 'rejected', 'revoked'] as const;
export type SnapshotState = (typeof snapshotStates)[number];
