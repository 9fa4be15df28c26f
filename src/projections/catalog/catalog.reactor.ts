import type { DomainEventType } from '../../domain/events.ts';
import { reactor, type Projection } from '../runner/projection.ts';
import type { CatalogBuilder } from './catalog-builder.ts';

// What takes content out of the served estate: the catalog drops it before the command that did so answers.
const withdrawalTypes: readonly DomainEventType[] = ['snapshot-revoked', 'marketplace-removed'];
const withdrawals: ReadonlySet<string> = new Set(withdrawalTypes);
// What changes the served estate (the served tip of a marketplace, or whether it serves at all).
const servedChanges: ReadonlySet<string> = new Set<DomainEventType>([...withdrawalTypes, 'snapshot-approved']);

/**
 * The catalog reactor (never rebuilt: docs/architecture.md, Principles 5). A batch that takes content out of what is
 * served, or asks for a rebuild, rebuilds the catalog from the read models of the same batch before the runner moves
 * on (the registry runs it after snapshots and marketplaces, before the ledger, so a revocation answers once the
 * catalog no longer serves the commit). A batch that only approves schedules a build that follows at once (debounced,
 * coalescing), so an approval answers without waiting for the catalog. The builder records what it did as events.
 * `builder` is null when the catalog is disabled, and in tools that never build.
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
      else if (events.some((event) => withdrawals.has(event.type))) await builder.servedChanged();
      else if (events.some((event) => servedChanges.has(event.type))) builder.servedSoon();
    },
  });
