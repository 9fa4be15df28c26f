import { accept, refuse, type Command, type Decision, type Instant } from '../kernel/decider.ts';
import type { DeletionReason, SnapshotPurged, SnapshotRestored, SnapshotSoftDeleted } from './snapshot.events.ts';

/**
 * Deletion (orthogonal to state; docs/retention.md): mark a held, rejected or revoked snapshot deleted. The restore
 * window is the configured gateway.retention.restore-window, read by the handler and resolved here, at
 * deletion time, into purgeAfter.
 */
export type SoftDeleteSnapshot = Command<
  'soft-delete-snapshot',
  { snapshotId: number; reason: DeletionReason; restoreWindowMs: number }
>;
/** Clear the deletion marks of a soft-deleted snapshot before its purgeAfter. */
export type RestoreSnapshot = Command<'restore-snapshot', { snapshotId: number }>;
/** Record that compaction reclaimed a soft-deleted snapshot's content (its purgeAfter has passed at meta.at). */
export type PurgeSnapshot = Command<'purge-snapshot', { snapshotId: number }>;
/**
 * The retention policy's deletions in one marketplace, decided together and appended at once (one
 * `snapshot-soft-deleted` per snapshot). A snapshot no longer eligible when decided (approved, deleted or
 * purged meanwhile, or unknown) is skipped: the batch is never refused for it, and nothing eligible records
 * nothing. The by-hand DELETE stays the single command above, with its refusals.
 */
export type SoftDeleteSnapshots = Command<
  'soft-delete-snapshots',
  { snapshots: readonly Readonly<{ snapshotId: number; reason: DeletionReason }>[]; restoreWindowMs: number }
>;
export type DeletionCommand = SoftDeleteSnapshot | SoftDeleteSnapshots | RestoreSnapshot | PurgeSnapshot;

/** What the deletion decisions read of a snapshot in its marketplace's stream. */
export type DeletableSnapshot = Readonly<{
  snapshotId: number;
  sha: string;
  state: 'held' | 'approved' | 'rejected' | 'revoked';
  /** Withdrawn administratively: purging reclaims the content but keeps the row. */
  withdrawn: boolean;
  deleted?: boolean;
  purgeAfter?: Instant | null;
  /** Purged (only a withdrawn snapshot stays in the stream's state after its purge). */
  purged?: boolean;
}>;

/** Where the snapshot is: known, purged (its content is gone and it left the stream's state), or unknown. */
export type DeletionSubject =
  | Readonly<{ found: 'snapshot'; snapshot: DeletableSnapshot }>
  | Readonly<{ found: 'purged' }>
  | Readonly<{ found: 'none' }>;

type Home = Readonly<{ marketplaceId: number; marketplace: string }>;
type DeletionEvent = SnapshotSoftDeleted | SnapshotRestored | SnapshotPurged;

const plusMs = (at: Instant, ms: number): Instant => new Date(Date.parse(at) + ms).toISOString();

const notFound = (snapshotId: number, home: Home) =>
  refuse<DeletionEvent>({ code: 'snapshot-not-found', detail: `no snapshot ${snapshotId} in ${home.marketplace}` });

function decideSoftDelete(
  { data, meta }: SoftDeleteSnapshot,
  subject: DeletionSubject,
  home: Home,
): Decision<DeletionEvent> {
  if (subject.found === 'none') return notFound(data.snapshotId, home);
  if (subject.found === 'purged' || subject.snapshot.deleted)
    return refuse({
      code: 'snapshot-deleted',
      detail: `snapshot ${data.snapshotId} is already deleted${subject.found === 'purged' ? ' and purged' : ''}`,
    });
  const { snapshot } = subject;
  // Approved snapshots are never eligible, by policy or by hand.
  if (snapshot.state === 'approved')
    return refuse({
      code: 'snapshot-not-deletable',
      detail: `snapshot ${snapshot.snapshotId} is approved; only held, rejected or revoked snapshots can be deleted`,
    });
  return accept({
    type: 'snapshot-soft-deleted',
    data: {
      ...home,
      snapshotId: snapshot.snapshotId,
      sha: snapshot.sha,
      reason: data.reason,
      deletedAt: meta.at,
      deletedBy: meta.principal,
      purgeAfter: plusMs(meta.at, data.restoreWindowMs),
    },
  });
}

function decideRestore({ data, meta }: RestoreSnapshot, subject: DeletionSubject, home: Home): Decision<DeletionEvent> {
  if (subject.found === 'none') return notFound(data.snapshotId, home);
  if (subject.found === 'purged' || subject.snapshot.purged)
    return refuse({
      code: 'restore-window-elapsed',
      detail: `snapshot ${data.snapshotId} was purged: its content is gone (the ledger keeps its record)`,
    });
  const { snapshot } = subject;
  if (!snapshot.deleted)
    return refuse({ code: 'snapshot-not-deleted', detail: `snapshot ${snapshot.snapshotId} is not deleted` });
  // SoftDeleted → Live on POST restore, before purgeAfter.
  if (snapshot.purgeAfter && Date.parse(meta.at) >= Date.parse(snapshot.purgeAfter))
    return refuse({
      code: 'restore-window-elapsed',
      detail: `snapshot ${snapshot.snapshotId} could be restored until ${snapshot.purgeAfter}; it awaits its purge`,
      extensions: { purgeAfter: snapshot.purgeAfter },
    });
  return accept({
    type: 'snapshot-restored',
    data: {
      ...home,
      snapshotId: snapshot.snapshotId,
      sha: snapshot.sha,
      restoredAt: meta.at,
      restoredBy: meta.principal,
    },
  });
}

function decidePurge({ data, meta }: PurgeSnapshot, subject: DeletionSubject, home: Home): Decision<DeletionEvent> {
  if (subject.found === 'none') return notFound(data.snapshotId, home);
  // Purged already (a compaction retried after its record): nothing more to record.
  if (subject.found === 'purged' || subject.snapshot.purged) return accept();
  const { snapshot } = subject;
  if (!snapshot.deleted)
    return refuse({ code: 'snapshot-not-deleted', detail: `snapshot ${snapshot.snapshotId} is not deleted` });
  if (!snapshot.purgeAfter || Date.parse(meta.at) < Date.parse(snapshot.purgeAfter))
    return refuse({
      code: 'conflict',
      detail: `snapshot ${snapshot.snapshotId} is restorable until ${snapshot.purgeAfter ?? '(unknown)'}; it is not purged before`,
    });
  return accept({
    type: 'snapshot-purged',
    data: {
      ...home,
      snapshotId: snapshot.snapshotId,
      sha: snapshot.sha,
      withdrawn: snapshot.withdrawn,
      purgedAt: meta.at,
    },
  });
}

/** Each snapshot of the batch decided as a single soft delete would be; the refused ones (and repeats) skipped. */
function decideSoftDeleteMany(
  { data, meta }: SoftDeleteSnapshots,
  subjectOf: (snapshotId: number) => DeletionSubject,
  home: Home,
): Decision<DeletionEvent> {
  const decided = new Set<number>();
  const events: DeletionEvent[] = [];
  for (const { snapshotId, reason } of data.snapshots) {
    if (decided.has(snapshotId)) continue;
    decided.add(snapshotId);
    const single: SoftDeleteSnapshot = {
      type: 'soft-delete-snapshot',
      data: { snapshotId, reason, restoreWindowMs: data.restoreWindowMs },
      meta,
    };
    const decision = decideSoftDelete(single, subjectOf(snapshotId), home);
    if (decision.outcome === 'accepted') events.push(...decision.events);
  }
  return accept(...events);
}

/**
 * The deletion decisions on a marketplace's snapshots (`subjectOf` finds each in its stream's state). They
 * hold for a removed marketplace's snapshots too (its withdrawn rows are deleted and purged like any other;
 * only their rows stay), so the marketplace decider routes them here whether or not the marketplace is live.
 */
export function decideDeletion(
  command: DeletionCommand,
  subjectOf: (snapshotId: number) => DeletionSubject,
  home: Home,
): Decision<DeletionEvent> {
  switch (command.type) {
    case 'soft-delete-snapshot':
      return decideSoftDelete(command, subjectOf(command.data.snapshotId), home);
    case 'soft-delete-snapshots':
      return decideSoftDeleteMany(command, subjectOf, home);
    case 'restore-snapshot':
      return decideRestore(command, subjectOf(command.data.snapshotId), home);
    case 'purge-snapshot':
      return decidePurge(command, subjectOf(command.data.snapshotId), home);
  }
}
