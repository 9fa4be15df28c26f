// The virtual catalog as the HTTP surfaces see it: the builder (src/projections/catalog, which routes and
// use cases do not import) by what they use of it, and the revision it serves now.
import type { ServedView } from '../../adapters/git/served-view.ts';
import type { Ports } from '../kernel/ports.ts';
import { reject } from '../kernel/rejected.ts';

/** A catalog revision: its commit, when it was generated, what it took from whom, and the names withheld. */
export type CatalogRevision = Readonly<{
  sha: string;
  generatedAt: string;
  constituents: readonly Readonly<{ marketplace: string; sha: string }>[];
  collisions: readonly Readonly<{ name: string; marketplaces: readonly string[] }>[];
}>;

/**
 * What is read of the catalog builder: its name, its served repository and view, the revision it serves, and when
 * no build is scheduled or running.
 */
export type CatalogService = Readonly<{
  name: string;
  servedRepo: string;
  servedView(): Promise<ServedView>;
  servesAnything(): Promise<boolean>;
  revision(): Promise<CatalogRevision | null>;
  idle(): Promise<void>;
}>;

export type CatalogPorts = Pick<Ports, 'catalog'> & Readonly<{ catalogBuilder: CatalogService | null }>;

/** The catalog's builder, or the 404 of a disabled catalog (both catalog endpoints 404 when disabled). */
export function enabledCatalog(deps: CatalogPorts): CatalogService {
  if (!deps.catalog.enabled || deps.catalogBuilder === null)
    throw reject('catalog-not-found', 'the virtual catalog is disabled (gateway.catalog.enabled)');
  return deps.catalogBuilder;
}

/** The revision served now; 404 when the catalog is disabled or not generated yet. */
export async function servedCatalogRevision(deps: CatalogPorts): Promise<CatalogRevision> {
  const revision = await enabledCatalog(deps).revision();
  if (revision === null)
    throw reject(
      'catalog-not-found',
      'the catalog has not been generated yet: no marketplace serves an approved snapshot',
    );
  return revision;
}

/** The catalog's main as the facade advertises it (null: no builder, or serving nothing). */
export const servedCatalogSha = async (deps: Pick<CatalogPorts, 'catalogBuilder'>): Promise<string | null> =>
  deps.catalogBuilder === null ? null : ((await deps.catalogBuilder.servedView()).refs.get('refs/heads/main') ?? null);
