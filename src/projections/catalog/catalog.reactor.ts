import type { DomainEventType } from '../../domain/events.ts';
import { reactor, type Projection } from '../runner/projection.ts';
import type { CatalogBuilder } from './catalog-builder.ts';

// What changes the served estate (the served tip of a marketplace, or whether it serves at all).
const servedChanges: ReadonlySet<string> = new Set<DomainEventType>([
  'snapshot-approved',
  'snapshot-revoked',
  'marketplace-removed',
]);

/**
 * The catalog reactor (never rebuilt: docs/architecture.md, Principles 5). Once per batch that changes what is served,
 * or asks for a rebuild, the catalog is rebuilt from the read models of the same batch (the registry runs it after
 * snapshots and marketplaces); the builder records what it did as events. `builder` is null when the catalog is
 * disabled, and in tools that never build.
 */
export const catalogReactor = (builder: CatalogBuilder | null): Projection =>
  reactor({
    name: 'catalog',
    version: 1,
    eventTypes: new Set([...servedChanges, 'catalog-rebuild-requested']),
    async apply(_tx, events) {
      if (!builder) return;
      const request = events.findLast((event) => event.type === 'catalog-rebuild-requested');
      // A requested build reads the estate as it is now, so it covers the batch's other changes too.
      if (request) await builder.requested(request.metadata);
      else if (events.some((event) => servedChanges.has(event.type))) await builder.servedChanged();
    },
  });
