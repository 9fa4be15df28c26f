import type { EventStore } from '../adapters/eventstore/port.ts';
import type { GitStore } from '../adapters/git/git-store.ts';
import { adoptionProjection } from './adoption/adoption.projection.ts';
import type { CatalogBuilder } from './catalog/catalog-builder.ts';
import { catalogReactor } from './catalog/catalog.reactor.ts';
import { estateProjection } from './estate/estate.projection.ts';
import { ledgerProjection } from './ledger/ledger.projection.ts';
import { policyProjection } from './policy/policy.projection.ts';
import { vettingProjection } from './vetting/vetting.projection.ts';
import { marketplacesProjection } from './marketplaces/marketplaces.projection.ts';
import { mirrorProjection } from './mirror/mirror.projection.ts';
import type { MirrorSignal } from '../domain/mirror/mirror-signal.ts';
import { mirrorReactor } from './mirror/mirror.reactor.ts';
import { publicationProjection } from './publication/publication.projection.ts';
import { rolesProjection } from './roles/roles.projection.ts';
import type { Projection } from './runner/projection.ts';
import { snapshotsProjection } from './snapshots/snapshots.projection.ts';
import { tokensProjection } from './tokens/tokens.projection.ts';
import { timeTravelProjection } from './time-travel/time-travel.projection.ts';
import { webhooksProjection } from './webhooks/webhooks.projection.ts';
import { deliveriesReactor } from './webhooks/deliveries.reactor.ts';

/** `store` and `now` let publication record what needs a person (null: nothing recorded, as in tools). */
export type ProjectionDeps = Readonly<{
  gitStore: GitStore;
  store?: EventStore;
  now?: () => string;
  catalog?: CatalogBuilder | null;
  /** Wakes the leader's mirror duty (null: nothing is woken, as in tools). */
  mirror?: MirrorSignal | null;
}>;

// Every projection and reactor, in the order the runner feeds them: publication reads what the
// snapshots projection wrote for the same batch, so it comes after it.
export const projectionsFor = (deps: ProjectionDeps): readonly Projection[] => [
  marketplacesProjection,
  tokensProjection,
  rolesProjection,
  snapshotsProjection,
  vettingProjection,
  policyProjection,
  webhooksProjection,
  estateProjection,
  // After snapshots (it reads the served tips of the batch), before the ledger: a command that withdraws
  // content and waits for its ledger entry answers once the catalog is rebuilt (an approval's build follows).
  catalogReactor(deps.catalog ?? null),
  ledgerProjection,
  deliveriesReactor,
  adoptionProjection,
  timeTravelProjection,
  publicationProjection({
    gitStore: deps.gitStore,
    store: deps.store ?? null,
    now: deps.now ?? (() => new Date().toISOString()),
  }),
  mirrorProjection,
  // After publication: the published repositories already hold the batch's change when the duty is woken.
  mirrorReactor(deps.mirror ?? null),
];

/** The read-model tables of every projection (for tests that compare rows, and tools). */
export const readModelTables = (): string[] =>
  projectionsFor({ gitStore: null as never }).flatMap((projection) => projection.tables);
