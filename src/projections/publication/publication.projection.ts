import type { GitStore } from '../../adapters/git/git-store.ts';
import { isDomainEventType, type DomainEvent } from '../../domain/events.ts';
import { desiredRefs } from '../../domain/publication/desired-refs.ts';
import { publicationTarget } from '../snapshots/snapshots.queries.ts';
import type { Projection } from '../runner/projection.ts';

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
export const publicationProjection = (gitStore: GitStore): Projection => ({
  name: 'publication',
  version: 1,
  tables: [],
  createSql: [],
  async apply(tx, events) {
    const marketplaces = new Set<number>();
    for (const recorded of events) {
      if (!isDomainEventType(recorded.type)) continue;
      const id = touched({ type: recorded.type, data: recorded.data } as DomainEvent);
      if (id !== null) marketplaces.add(id);
    }
    for (const marketplaceId of marketplaces) {
      const { approved, tip } = await publicationTarget(tx, marketplaceId);
      await gitStore.converge(marketplaceId, desiredRefs(approved, tip));
    }
  },
});
