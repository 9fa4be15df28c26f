import {
  RevisionConflict,
  type EventMetadata,
  type EventStore,
  type Position,
} from '../../adapters/eventstore/port.ts';
import { appendFacts } from '../../adapters/eventstore/append-facts.ts';
import type { CatalogStore } from '../../adapters/git/catalog-store.ts';
import { catalogManifestPath, newlyWithheld, type CatalogRecord } from '../../domain/catalog/catalog-plan.ts';
import type { CatalogCollision, CatalogEvent, CatalogTrigger } from '../../domain/catalog/catalog.events.ts';
import { fact } from '../../domain/events.ts';
import type { ActorType } from '../../domain/kernel/decider.ts';
import { streams } from '../../domain/kernel/streams.ts';

/**
 * How the catalog's revisions and withdrawals are recorded: each in a stream of its own (`catalog-<sha>`,
 * `catalog-withdrawn-<sha>`), appended only when new, so a retry or a second replica never records it twice.
 */

/** Who a build is recorded for: the caller of the rebuild endpoint, or the gateway itself. */
export type BuildActor = Readonly<{
  principal: string;
  actorType: ActorType;
  correlationId: string;
  credentialId?: number;
}>;

/** What recording needs of the builder's dependencies. */
export type RecordingDeps = Readonly<{
  name: string;
  store: EventStore;
  catalogStore: CatalogStore;
  now(): string;
}>;

// System acts of the catalog are the principal catalog-builder (docs/audit.md, Entries).
export const builderPrincipal = 'catalog-builder';

/** catalog-rebuilt, then one catalog-name-collision per name withheld now and not by the revision before. */
export function revisionEvents(
  sha: string,
  record: CatalogRecord,
  plugins: number,
  previous: readonly CatalogCollision[] | null,
  trigger: CatalogTrigger,
): CatalogEvent[] {
  const rebuilt = fact('catalog-rebuilt', {
    catalog: record.catalog,
    sha,
    generatedAt: record.generatedAt,
    trigger,
    constituents: record.constituents,
    collisions: record.collisions,
    plugins,
  });
  const collisions = newlyWithheld(previous, record.collisions).map((c) =>
    fact('catalog-name-collision', { catalog: record.catalog, sha, name: c.name, marketplaces: c.marketplaces }),
  );
  return [rebuilt, ...collisions];
}

/** The catalog served `servedSha` and now serves nothing: a catalog-rebuilt without a commit. */
export function recordWithdrawal(
  deps: RecordingDeps,
  servedSha: string,
  trigger: CatalogTrigger,
  actor: BuildActor,
): Promise<Position | null> {
  const withdrawn = fact('catalog-rebuilt', {
    catalog: deps.name,
    sha: null,
    generatedAt: deps.now(),
    trigger,
    constituents: [],
    collisions: [],
    plugins: 0,
  });
  return appendOnce(deps, streams.catalog(`withdrawn-${servedSha}`), [withdrawn], actor);
}

/** A served revision whose build failed to record it is recorded now; null when it already is. */
export async function recordIfMissing(
  deps: RecordingDeps,
  sha: string,
  record: CatalogRecord,
  trigger: CatalogTrigger,
  actor: BuildActor,
): Promise<Position | null> {
  const { revision } = await deps.store.readStream(streams.catalog(sha));
  if (revision !== 'no-stream') return null;
  const manifest = await deps.catalogStore.servedFile(deps.name, sha, catalogManifestPath);
  let plugins = 0;
  try {
    const parsed = JSON.parse(manifest ?? '{}') as { plugins?: unknown };
    plugins = Array.isArray(parsed.plugins) ? parsed.plugins.length : 0;
  } catch {
    plugins = 0;
  }
  return appendOnce(deps, streams.catalog(sha), revisionEvents(sha, record, plugins, null, trigger), actor);
}

/** Appended only when the stream is new: a revision (or a withdrawal) is recorded once, whoever tries again. */
export async function appendOnce(
  deps: RecordingDeps,
  stream: string,
  events: readonly CatalogEvent[],
  actor: BuildActor,
): Promise<Position | null> {
  const at = deps.now();
  // A withheld name (catalog-name-collision) is the builder's own finding, whoever asked for the build.
  const metadataFor = (event: { type: string }): EventMetadata =>
    event.type === 'catalog-name-collision'
      ? { principal: builderPrincipal, actorType: 'system', correlationId: actor.correlationId, at }
      : {
          principal: actor.principal,
          actorType: actor.actorType,
          correlationId: actor.correlationId,
          at,
          ...(actor.credentialId === undefined ? {} : { credentialId: actor.credentialId }),
        };
  try {
    return (await appendFacts(deps.store, stream, events, metadataFor, 'no-stream')).position;
  } catch (error) {
    if (error instanceof RevisionConflict) return null;
    throw error;
  }
}
