import type { EventStore } from '../../adapters/eventstore/port.ts';
import { RevisionConflict } from '../../adapters/eventstore/port.ts';
import type { GitStore } from '../../adapters/git/git-store.ts';
import type { SnapshotUnpublishFailed } from '../../domain/publication/publication.events.ts';
import { isDomainEventType, type DomainEvent } from '../../domain/events.ts';
import { streams } from '../../domain/shared/streams.ts';
import { desiredRefs } from '../../domain/publication/desired-refs.ts';
import { publicationTarget } from '../snapshots/snapshots.queries.ts';
import type { Projection } from '../runner/projection.ts';
import { outsideTransaction } from '../runner/outside-transaction.ts';

/** Marketplaces whose served set an event changes. */
function touched(event: DomainEvent): number | null {
  switch (event.type) {
    case 'snapshot-approved':
    case 'snapshot-revoked':
      return event.data.marketplaceId;
    case 'marketplace-removed':
      return event.data.marketplaceId;
    default:
      return null;
  }
}

/**
 * DESIGN.md 6: publication is a projection that converges each published bare repository to the
 * approved snapshots. It runs after the snapshots projection in the registry, so the target it reads
 * is the state at the end of the same batch; converging is idempotent, so a replay is harmless.
 */
export type PublicationDeps = Readonly<{ gitStore: GitStore; store: EventStore | null; now(): string }>;

type Revoked = Readonly<{ marketplaceId: number; marketplace: string; snapshotId: number; sha: string }>;

export const publicationProjection = (deps: PublicationDeps): Projection => ({
  name: 'publication',
  version: 1,
  tables: [],
  createSql: [],
  async apply(tx, events) {
    const marketplaces = new Set<number>();
    const revoked: Revoked[] = [];
    for (const recorded of events) {
      if (!isDomainEventType(recorded.type)) continue;
      const event = { type: recorded.type, data: recorded.data } as DomainEvent;
      const id = touched(event);
      if (id !== null) marketplaces.add(id);
      if (event.type === 'snapshot-revoked') revoked.push(event.data);
    }
    for (const marketplaceId of marketplaces) {
      const { approved, tip } = await publicationTarget(tx, marketplaceId);
      try {
        await deps.gitStore.converge(marketplaceId, desiredRefs(approved, tip));
      } catch (error) {
        // The runner retries the batch with backoff; a revocation that cannot take effect needs a person.
        await recordUnpublishFailed(deps, revoked.filter((r) => r.marketplaceId === marketplaceId && !approved.includes(r.sha)), error);
        throw error;
      }
    }
  },
});

// apply() runs inside the runner's transaction: the failure is recorded outside it.
/** One snapshot-unpublish-failed per snapshot, ever: its own stream, appended only when new. */
function recordUnpublishFailed(deps: PublicationDeps, revoked: readonly Revoked[], error: unknown): Promise<void> {
  return outsideTransaction(() => appendUnpublishFailed(deps, revoked, error));
}

async function appendUnpublishFailed(deps: PublicationDeps, revoked: readonly Revoked[], error: unknown): Promise<void> {
  if (!deps.store) return;
  const message = (error instanceof Error ? error.message : String(error)).slice(0, 500);
  const at = deps.now();
  for (const r of revoked) {
    const event: SnapshotUnpublishFailed = {
      type: 'snapshot-unpublish-failed',
      data: { marketplaceId: r.marketplaceId, marketplace: r.marketplace, snapshotId: r.snapshotId, sha: r.sha, error: message },
    };
    try {
      await deps.store.append(streams.unpublishFailed(r.snapshotId), [{
        type: event.type, data: event.data, metadata: { principal: 'publication', actorType: 'system', correlationId: `unpublish-${r.snapshotId}`, at },
      }], 'no-stream');
    } catch (appendError) {
      if (!(appendError instanceof RevisionConflict)) throw appendError;
    }
  }
}
