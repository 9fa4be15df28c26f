// POST /api/v1/catalog/rebuild: only the leader's catalog reactor builds (one writer of the catalog's
// repositories), so a rebuild is a request recorded for it, answered once the revision it built is served.
import { appendFacts } from '../../adapters/eventstore/append-facts.ts';
import { metadataOf } from '../kernel/run-command.ts';
import { fact } from '../../domain/events.ts';
import type { CommandMeta } from '../../domain/kernel/decider.ts';
import { streams } from '../../domain/kernel/streams.ts';
import type { Ports } from '../kernel/ports.ts';
import { reject } from '../kernel/rejected.ts';

/**
 * What a rebuild reads of the catalog builder (src/projections/catalog, which use cases do not import):
 * its name and the revision it serves.
 */
export type ServedCatalog<R extends Readonly<{ sha: string }>> = Readonly<{
  name: string;
  servesAnything(): Promise<boolean>;
  revision(): Promise<R | null>;
}>;

/** Asks the leader for a new revision and waits for it: the answer is the revision then served. */
export async function rebuildCatalog<R extends Readonly<{ sha: string }>>(
  deps: Pick<Ports, 'store' | 'waiter'>,
  catalog: ServedCatalog<R>,
  meta: CommandMeta,
): Promise<R> {
  if (!(await catalog.servesAnything())) {
    throw reject('catalog-not-found', 'no marketplace serves an approved snapshot: there is nothing to catalog');
  }
  const before = await catalog.revision();
  const requested = fact('catalog-rebuild-requested', { catalog: catalog.name });
  const { position } = await appendFacts(deps.store, streams.catalog('requests'), [requested], metadataOf(meta), 'any');
  await deps.waiter.waitFor(position, ['catalog']);
  // What the build recorded follows the request: the answer waits until the ledger shows it.
  await deps.waiter.waitFor(await deps.store.head(), ['ledger']);
  const after = await catalog.revision();
  if (after === null) {
    throw reject(
      'catalog-not-found',
      'no marketplace serves an approved snapshot any more: there is nothing to catalog',
    );
  }
  if (before !== null && after.sha === before.sha) {
    throw reject(
      'internal-error',
      'the catalog could not be rebuilt (the gateway log says why); the revision served is unchanged',
    );
  }
  return after;
}
