import type { CatalogEvent } from '../../../domain/catalog/catalog.events.ts';
import { noLedgerEntry, type LedgerTable } from './ledger-table.ts';

/** The catalog, under its own name (no marketplace id). */
export const catalogLedger: LedgerTable<CatalogEvent> = {
  // catalog-rebuilt (detail: sha, constituents count, collisions count).
  'catalog-rebuilt': ({ data: d }) => {
    const detail =
      d.sha === null
        ? `withdrawn: no marketplace is served; trigger=${d.trigger}`
        : `sha=${d.sha} constituents=${d.constituents.length} collisions=${d.collisions.length} plugins=${d.plugins}; trigger=${d.trigger}`;
    return [{ marketplace: d.catalog, ref: d.sha === null ? null : 'refs/heads/main', sha: d.sha, detail }];
  },
  'catalog-name-collision': ({ data: d }) => [
    {
      marketplace: d.catalog,
      sha: d.sha,
      detail: `plugin '${d.name}' claimed by ${d.marketplaces.join(', ')}: withheld from the catalog`,
    },
  ],
  'catalog-rebuild-requested': noLedgerEntry, // the catalog-rebuilt it leads to is the entry, with the requester as principal
};
