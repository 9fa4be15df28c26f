import type { Logger } from 'pino';
import type { GitStore } from '../../adapters/git/git-store.ts';
import type { EventStore } from '../../adapters/eventstore/port.ts';
import { appendFacts } from '../../adapters/eventstore/append-facts.ts';
import { sql, type DatabasePool } from '../../adapters/postgres/pool.ts';
import type { PublicationEvent } from '../../domain/publication/publication.events.ts';
import { desiredRefs } from '../../domain/publication/desired-refs.ts';
import { fact } from '../../domain/events.ts';
import { streams } from '../../domain/kernel/streams.ts';
import { z } from 'zod';
import { publicationTarget } from '../snapshots/snapshots.queries.ts';

export type ReconcileDeps = Readonly<{
  pool: DatabasePool;
  store: EventStore;
  gitStore: GitStore;
  logger: Logger;
  now(): string;
}>;

/**
 * docs/architecture.md, Principles 6: at startup the leader compares every published repository with what the events
 * say, converges the ones that differ, and records what it found (principal publication-reconciler). Runs after the
 * projections have caught up, so the target is current.
 */
export async function reconcilePublication(deps: ReconcileDeps): Promise<PublicationEvent[]> {
  const marketplaces = await deps.pool.any(
    sql.type(z.object({ id: z.bigint(), name: z.string() }))`select id, name from marketplaces order by id`,
  );
  const recorded: PublicationEvent[] = [];
  for (const row of marketplaces) {
    const marketplaceId = Number(row.id);
    const { approved, tip } = await publicationTarget(deps.pool, marketplaceId);
    const desired = desiredRefs(approved, tip);
    const current = await deps.gitStore.refs(deps.gitStore.publishedPath(marketplaceId));
    const restored = [...desired.refs].filter(([ref, sha]) => current.get(ref) !== sha).map(([ref]) => ref);
    const removed = [...current.keys()].filter((ref) => !desired.refs.has(ref));
    if (restored.length === 0 && removed.length === 0) continue;
    const events: PublicationEvent[] = [...current]
      .filter(([ref, sha]) => desired.refs.get(ref) !== sha && !approved.includes(sha))
      .map(([ref, sha]) => fact('publication-served-not-approved', { marketplaceId, marketplace: row.name, ref, sha }));
    await deps.gitStore.converge(marketplaceId, desired);
    events.push(fact('publication-repaired', { marketplaceId, marketplace: row.name, restored, removed }));
    const at = deps.now();
    await appendFacts(
      deps.store,
      streams.publication(marketplaceId),
      events,
      { principal: 'publication-reconciler', actorType: 'system', correlationId: `reconcile-${at}`, at },
      'any',
    );
    deps.logger.warn(
      { marketplace: row.name, restored, removed, notApproved: events.length - 1 },
      'published repository repaired at startup',
    );
    recorded.push(...events);
  }
  return recorded;
}
