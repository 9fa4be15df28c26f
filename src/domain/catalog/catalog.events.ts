import type { Event } from '../kernel/decider.ts';

/** A served marketplace and the commit of it the catalog revision was built from. */
export type CatalogConstituent = Readonly<{ marketplace: string; sha: string }>;
/** A plugin name claimed more than once across the served estate; `marketplaces` holds one entry per claim, in name order. */
export type CatalogCollision = Readonly<{ name: string; marketplaces: readonly string[] }>;
/** What started a build: the rebuild endpoint, the reactor (what is served changed), or leader startup. */
export type CatalogTrigger = 'api' | 'reactor' | 'startup';

/**
 * A catalog revision was built and is served (`sha`), or the catalog was withdrawn because no
 * marketplace is served any more (`sha` null, nothing listed).
 */
export type CatalogRebuilt = Event<
  'catalog-rebuilt',
  {
    catalog: string;
    sha: string | null;
    generatedAt: string;
    trigger: CatalogTrigger;
    constituents: readonly CatalogConstituent[];
    collisions: readonly CatalogCollision[];
    /** Plugins listed in the revision. */
    plugins: number;
  }
>;

/**
 * One catalog-name-collision per withheld contested name (principal catalog-builder), when the name becomes withheld.
 */
export type CatalogNameCollision = Event<
  'catalog-name-collision',
  {
    catalog: string;
    /** The catalog revision that withholds it. */
    sha: string;
    name: string;
    marketplaces: readonly string[];
  }
>;

/**
 * POST /api/v1/catalog/rebuild: the leader's catalog reactor builds a new revision, recorded as
 * catalog-rebuilt for the requester (this event itself is no ledger entry).
 */
export type CatalogRebuildRequested = Event<'catalog-rebuild-requested', { catalog: string }>;

export type CatalogEvent = CatalogRebuilt | CatalogNameCollision | CatalogRebuildRequested;
