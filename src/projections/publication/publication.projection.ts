import type { EventStore } from '../../adapters/eventstore/port.ts';
import { RevisionConflict } from '../../adapters/eventstore/port.ts';
import { appendFacts } from '../../adapters/eventstore/append-facts.ts';
import type { GitStore } from '../../adapters/git/git-store.ts';
import { fact } from '../../domain/events.ts';
import { streams } from '../../domain/kernel/streams.ts';
import { desiredRefs } from '../../domain/publication/desired-refs.ts';
import { publicationTarget } from '../snapshots/snapshots.queries.ts';
import { dispatch, typesHandledBy } from '../runner/dispatch.ts';
import type { Projection } from '../runner/projection.ts';
import { outsideTransaction } from '../runner/outside-transaction.ts';

/**
 * docs/architecture.md, Principles 6: publication is a projection that converges each published bare repository to the
 * approved snapshots. It runs after the snapshots projection in the registry, so the target it reads
 * is the state at the end of the same batch; converging is idempotent, so a replay is harmless.
 */
export type PublicationDeps = Readonly<{ gitStore: GitStore; store: EventStore | null; now(): string }>;

type Revoked = Readonly<{ marketplaceId: number; marketplace: string; snapshotId: number; sha: string }>;

/** What a batch changes: the marketplaces whose served set moves, in order, and the revocations among them. */
type Touched = Readonly<{ marketplaces: Set<number>; revoked: Revoked[] }>;

const collect = dispatch<Touched>({
  'snapshot-approved': (touched, { data }) => {
    touched.marketplaces.add(data.marketplaceId);
  },
  'snapshot-revoked': (touched, { data }) => {
    touched.marketplaces.add(data.marketplaceId);
    touched.revoked.push(data);
  },
  'marketplace-removed': (touched, { data }) => {
    touched.marketplaces.add(data.marketplaceId);
  },
});

export const publicationProjection = (deps: PublicationDeps): Projection => ({
  name: 'publication',
  version: 1,
  tables: [],
  createSql: [],
  eventTypes: typesHandledBy(collect),
  async apply(tx, events) {
    const touched: Touched = { marketplaces: new Set(), revoked: [] };
    await collect(touched, events);
    for (const marketplaceId of touched.marketplaces) {
      const { approved, tip } = await publicationTarget(tx, marketplaceId);
      try {
        await deps.gitStore.converge(marketplaceId, desiredRefs(approved, tip));
      } catch (error) {
        // The runner retries the batch with backoff; a revocation that cannot take effect needs a person.
        const stuck = touched.revoked.filter((r) => r.marketplaceId === marketplaceId && !approved.includes(r.sha));
        await recordUnpublishFailed(deps, stuck, error);
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

async function appendUnpublishFailed(deps: PublicationDeps, revoked: readonly Revoked[], error: unknown) {
  if (!deps.store) return;
  const message = (error instanceof Error ? error.message : String(error)).slice(0, 500);
  const at = deps.now();
  for (const r of revoked) {
    const { marketplaceId, marketplace, snapshotId, sha } = r;
    const failed = fact('snapshot-unpublish-failed', { marketplaceId, marketplace, snapshotId, sha, error: message });
    const correlationId = `unpublish-${snapshotId}`;
    const metadata = { principal: 'publication', actorType: 'system', correlationId, at } as const;
    try {
      await appendFacts(deps.store, streams.unpublishFailed(r.snapshotId), [failed], metadata, 'no-stream');
    } catch (appendError) {
      if (!(appendError instanceof RevisionConflict)) throw appendError;
    }
  }
}
