import { runCommand } from '../kernel/run-command.ts';
import type { Position } from '../../adapters/eventstore/port.ts';
import { marketplaceDecider } from '../../domain/marketplace/marketplace.decider.ts';
import type { CommandMeta } from '../../domain/kernel/decider.ts';
import { streams } from '../../domain/kernel/streams.ts';
import type { DeletionCommand } from '../../domain/snapshot/snapshot-deletion.ts';
import type { DeletionReason, SnapshotPurged, SnapshotSoftDeleted } from '../../domain/snapshot/snapshot.events.ts';
import {
  purgedSnapshotById,
  snapshotById,
  type SnapshotRecord,
} from '../../projections/snapshots/snapshots.queries.ts';
import { execute } from '../kernel/execute.ts';
import type { Actor, Ports } from '../kernel/ports.ts';
import { reject, Rejected } from '../kernel/rejected.ts';
import { requireAdminRole } from '../access/standing.ts';

export type DeletionPorts = Pick<Ports, 'store' | 'waiter' | 'pool' | 'access' | 'retention'>;

/** Policy deletions carry actor retention-policy (docs/retention.md). */
export const retentionPolicyPrincipal = 'retention-policy';

/** The marks show on every snapshot read, and each act is a ledger entry. */
const readModels = ['snapshots', 'ledger'];

type Target = Readonly<{ marketplaceId: number; snapshot: SnapshotRecord | null }>;

/**
 * The marketplace stream a snapshot id lives in, from its row (live or removed marketplace alike) or,
 * once purged, from the trace the purge left; 404 when the gateway never had it.
 */
async function targetOf(deps: Pick<Ports, 'pool'>, snapshotId: number): Promise<Target> {
  const snapshot = await snapshotById(deps.pool, snapshotId);
  if (snapshot) return { marketplaceId: snapshot.marketplaceId, snapshot };
  const purged = await purgedSnapshotById(deps.pool, snapshotId);
  if (purged) return { marketplaceId: purged.marketplaceId, snapshot: null };
  throw reject('snapshot-not-found', `no snapshot ${snapshotId}`);
}

async function decide(deps: DeletionPorts, target: Target, command: DeletionCommand) {
  const decision = await execute(
    deps,
    marketplaceDecider,
    streams.marketplace(target.marketplaceId),
    command,
    readModels,
  );
  return decision.events;
}

/**
 * Soft-delete a held, rejected or revoked snapshot (docs/retention.md): by an admin (`actor`, reason
 * manual) or by the retention policy (`actor` null: principal retention-policy). purgeAfter is the
 * deletion instant plus gateway.retention.restore-window as configured now. Answers the row as the
 * snapshots projection writes it. 404 unknown, 403 not admin, 409 approved or already deleted.
 */
export async function softDeleteSnapshot(
  deps: DeletionPorts,
  actor: Actor | null,
  snapshotId: number,
  reason: DeletionReason,
  meta: CommandMeta,
): Promise<SnapshotRecord> {
  if (actor !== null) await requireAdminRole(deps, actor);
  const target = await targetOf(deps, snapshotId);
  const acting: CommandMeta =
    actor === null ? { ...meta, principal: retentionPolicyPrincipal, actorType: 'system' } : meta;
  const events = await decide(deps, target, {
    type: 'soft-delete-snapshot',
    data: { snapshotId, reason, restoreWindowMs: deps.retention.restoreWindowMs },
    meta: acting,
  });
  const deleted = events.find((e) => e.type === 'snapshot-soft-deleted');
  if (deleted?.type !== 'snapshot-soft-deleted' || target.snapshot === null)
    throw new Error('deletion accepted without snapshot-soft-deleted');
  const { deletedAt, purgeAfter } = deleted.data;
  return { ...target.snapshot, deletedAt, deletedReason: deleted.data.reason, purgeAfter };
}

export type PolicyDeletion = Readonly<{ snapshotId: number; reason: DeletionReason }>;
export type PolicyDeletions = Readonly<{ deleted: readonly SnapshotSoftDeleted['data'][]; position: Position | null }>;

/**
 * The retention policy's deletions in one marketplace (principal retention-policy): one decision on its stream
 * and one append, a `snapshot-soft-deleted` per snapshot still eligible then (one approved or deleted meanwhile
 * is skipped, not refused). Answers what was appended and where; the caller waits for the read models (a pass
 * waits once, after its last append). Nothing to delete reads nothing.
 */
export async function softDeleteByPolicy(
  deps: DeletionPorts,
  marketplaceId: number,
  snapshots: readonly PolicyDeletion[],
  meta: CommandMeta,
): Promise<PolicyDeletions> {
  if (snapshots.length === 0) return { deleted: [], position: null };
  const { decision, position } = await runCommand(deps.store, marketplaceDecider, streams.marketplace(marketplaceId), {
    type: 'soft-delete-snapshots',
    data: { snapshots, restoreWindowMs: deps.retention.restoreWindowMs },
    meta: { ...meta, principal: retentionPolicyPrincipal, actorType: 'system' },
  });
  if (decision.outcome === 'refused') throw new Rejected(decision.rejection);
  const deleted = decision.events.flatMap((e) => (e.type === 'snapshot-soft-deleted' ? [e.data] : []));
  return { deleted, position };
}

/** Clear a soft-deleted snapshot's marks before its purgeAfter (admin only). 409 not deleted, or too late. */
export async function restoreSnapshot(
  deps: DeletionPorts,
  actor: Actor,
  snapshotId: number,
  meta: CommandMeta,
): Promise<SnapshotRecord> {
  await requireAdminRole(deps, actor);
  const target = await targetOf(deps, snapshotId);
  const events = await decide(deps, target, { type: 'restore-snapshot', data: { snapshotId }, meta });
  if (!events.some((e) => e.type === 'snapshot-restored') || target.snapshot === null)
    throw new Error('restore accepted without snapshot-restored');
  return { ...target.snapshot, deletedAt: null, deletedReason: null, purgeAfter: null };
}

/**
 * Record a purge once compaction has reclaimed the content: only a soft-deleted snapshot whose
 * purgeAfter has passed at `meta.at` (409 otherwise; 404 unknown). The snapshots projection then
 * deletes the row, except a withdrawn one's. Answers what was recorded, or null when the snapshot
 * was purged before (nothing recorded: a retried compaction).
 */
export async function recordPurge(
  deps: DeletionPorts,
  snapshotId: number,
  meta: CommandMeta,
): Promise<SnapshotPurged['data'] | null> {
  const target = await targetOf(deps, snapshotId);
  const events = await decide(deps, target, { type: 'purge-snapshot', data: { snapshotId }, meta });
  const purged = events.find((e) => e.type === 'snapshot-purged');
  return purged?.type === 'snapshot-purged' ? purged.data : null;
}
