import type { Logger } from 'pino';
import type { EventMetadata, EventStore, Position } from '../../adapters/eventstore/port.ts';
import type { CatalogStore } from '../../adapters/git/catalog-store.ts';
import type { GitStore } from '../../adapters/git/git-store.ts';
import type { ServedView } from '../../adapters/git/served-view.ts';
import type { DatabasePool } from '../../adapters/postgres/pool.ts';
import {
  catalogRecordPath,
  isCurrent,
  readCatalogRecord,
  type CatalogRecord,
} from '../../domain/catalog/catalog-plan.ts';
import type { CatalogCollision, CatalogConstituent, CatalogTrigger } from '../../domain/catalog/catalog.events.ts';
import { desiredRefs } from '../../domain/publication/desired-refs.ts';
import { streams } from '../../domain/kernel/streams.ts';
import { liveMarketplaces } from '../marketplaces/marketplaces.queries.ts';
import { publicationTarget } from '../snapshots/snapshots.queries.ts';
import { outsideTransaction } from '../runner/outside-transaction.ts';
import { composeCatalog, guardFingerprint, type EstateConstituent } from './catalog-composition.ts';
import {
  appendOnce,
  builderPrincipal,
  recordIfMissing,
  recordWithdrawal,
  revisionEvents,
  type BuildActor,
} from './catalog-recording.ts';

/** A catalog revision (docs/marketplaces.md, The virtual catalog). */
export type CatalogRevision = Readonly<{
  sha: string;
  generatedAt: string;
  constituents: readonly CatalogConstituent[];
  collisions: readonly CatalogCollision[];
}>;

export type BuildResult = Readonly<{
  /** The revision served after the build; null when no marketplace is served (nothing is). */
  revision: CatalogRevision | null;
  /** Where what the build recorded was appended; null when it recorded nothing. */
  position: Position | null;
}>;

export type CatalogBuilderDeps = Readonly<{
  /** gateway.catalog.name: the catalog is served at /git/<name>. */
  name: string;
  pool: DatabasePool;
  store: EventStore;
  gitStore: GitStore;
  catalogStore: CatalogStore;
  logger: Logger;
  now(): string;
  /** Quiet time before a scheduled pass (startup, retries); changes meanwhile are built together. */
  debounceMs?: number;
  /** marketplace.json files over this size are read as unreadable. */
  maxManifestBytes?: number;
  /** gateway.catalog.guard: the catalog also lists the gateway-guard plugin (docs/guard.md). */
  guard?: boolean;
}>;

const revisionOf = (sha: string, record: CatalogRecord): CatalogRevision => ({
  sha,
  generatedAt: record.generatedAt,
  constituents: record.constituents,
  collisions: record.collisions,
});

/**
 * Builds and serves the virtual catalog (docs/architecture.md, Principles 5: a reactor's work, recorded as events and
 * never re-run by a read-model rebuild). The served estate is every live marketplace's served tip as the events decide
 * it (the same target publication converges to); a build takes those commits from quarantine, composes the catalog
 * commit from their trees and serves it. Each revision is recorded once, in a stream of its own (`catalog-<sha>`,
 * appended only when new), so a retry or a second replica never records it twice. Builds run one at a time in this
 * process.
 */
export class CatalogBuilder {
  private queue: Promise<unknown> = Promise.resolve();
  private active = false;
  private timer: NodeJS.Timeout | null = null;
  private pending: CatalogTrigger | null = null;
  private passing: Promise<void> | null = null;
  private failures = 0;
  private readonly debounceMs: number;

  private readonly deps: CatalogBuilderDeps;
  constructor(deps: CatalogBuilderDeps) {
    this.deps = deps;
    this.debounceMs = deps.debounceMs ?? 250;
  }

  get name(): string {
    return this.deps.name;
  }

  /** The served catalog repository (what the facade runs upload-pack on). */
  get servedRepo(): string {
    return this.deps.catalogStore.servedPath(this.deps.name);
  }

  servedView(): Promise<ServedView> {
    return this.deps.catalogStore.servedView(this.deps.name);
  }

  /** The revision served now, read from the catalog commit itself; null when nothing is served. */
  async revision(): Promise<CatalogRevision | null> {
    const { catalogStore, name } = this.deps;
    const sha = await catalogStore.servedSha(name);
    if (sha === null) return null;
    const record = readCatalogRecord(await catalogStore.servedFile(name, sha, catalogRecordPath));
    return record === null ? null : revisionOf(sha, record);
  }

  /** Whether any marketplace serves a commit (else there is nothing to catalog). */
  async servesAnything(): Promise<boolean> {
    return (await this.estate()).constituents.length > 0;
  }

  /** Leader duty: from now on changes are built; the first pass brings the catalog up to date. */
  start(): void {
    this.active = true;
    this.schedule('startup', 0);
  }

  async stop(): Promise<void> {
    this.active = false;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.passing;
    await this.queue;
  }

  /**
   * The reactor saw a batch that takes content out of what is served: build now, before the runner moves on
   * (the registry runs this before the ledger, so a command that waits for its ledger entry answers after the
   * catalog is rebuilt: a revocation or a removal rebuilds the catalog). A failed build is retried
   * in the background; it never holds the other read models back. Until this process leads, nothing is
   * built here: the first pass after start() compares the catalog with the estate.
   */
  async servedChanged(): Promise<void> {
    if (!this.active) return;
    try {
      await this.buildNow('reactor', this.builderActor('reactor'), false);
    } catch (error) {
      this.deps.logger.error(
        { err: error, catalog: this.deps.name },
        'catalog build failed; retrying in the background',
      );
      this.failures += 1;
      this.schedule('reactor', 1000);
    }
  }

  /** An approval changed what is served: a build follows, debounced with other changes, retried on failure. */
  servedSoon(): void {
    this.schedule('reactor');
  }

  /** Resolves once no build is scheduled or running (for callers that read the catalog after a change). */
  async idle(): Promise<void> {
    while (this.timer || this.passing) await (this.passing ?? new Promise((resolve) => setTimeout(resolve, 20)));
  }

  /**
   * catalog-rebuild-requested (POST /api/v1/catalog/rebuild): a new revision whatever is served, recorded
   * for the requester. Only the leader builds, so one process writes the catalog's repositories; a failure
   * is logged and the requester, who waits for this reactor, sees the revision unchanged.
   */
  async requested(requester: EventMetadata): Promise<void> {
    if (!this.active) return;
    const actor: BuildActor = {
      principal: requester.principal,
      actorType: requester.actorType,
      correlationId: requester.correlationId,
      ...(requester.credentialId === undefined ? {} : { credentialId: requester.credentialId }),
    };
    try {
      await this.buildNow('api', actor, true);
    } catch (error) {
      this.deps.logger.error(
        { err: error, catalog: this.deps.name, requestedBy: requester.principal },
        'requested catalog rebuild failed',
      );
    }
  }

  private buildNow(trigger: CatalogTrigger, actor: BuildActor, force: boolean): Promise<BuildResult> {
    return outsideTransaction(() => this.exclusive(() => this.build(trigger, actor, force)));
  }

  private builderActor(trigger: CatalogTrigger): BuildActor {
    return { principal: builderPrincipal, actorType: 'system', correlationId: `catalog-${trigger}-${this.deps.now()}` };
  }

  /** A pass soon (startup, or a retry), once, with whatever else changes meanwhile. */
  private schedule(trigger: CatalogTrigger = 'reactor', delayMs = this.debounceMs): void {
    if (!this.active) return;
    if (this.pending !== 'startup') this.pending = trigger;
    // A running pass looks at `pending` when it ends.
    if (this.timer || this.passing) return;
    outsideTransaction(() => {
      this.timer = setTimeout(() => this.pass(), delayMs);
    });
  }

  private pass(): void {
    this.timer = null;
    const trigger = this.pending ?? 'reactor';
    this.pending = null;
    this.passing = this.exclusive(() => this.build(trigger, this.builderActor(trigger), false))
      .then(
        () => {
          this.failures = 0;
        },
        (error: unknown) => {
          // Retried with backoff while nothing newer asks; the served catalog stays as it was meanwhile.
          this.failures += 1;
          this.pending ??= trigger;
          this.deps.logger.error(
            { err: error, catalog: this.deps.name, failures: this.failures },
            'catalog build failed; retrying',
          );
        },
      )
      .finally(() => {
        this.passing = null;
        if (this.pending !== null)
          this.schedule(
            this.pending,
            this.failures === 0 ? this.debounceMs : Math.min(500 * 2 ** this.failures, 60_000),
          );
      });
  }

  private exclusive<T>(work: () => Promise<T>): Promise<T> {
    const run = this.queue.then(work, work);
    this.queue = run.catch(() => {});
    return run;
  }

  private async build(trigger: CatalogTrigger, actor: BuildActor, force: boolean): Promise<BuildResult> {
    const { catalogStore, name } = this.deps;
    const servedSha = await catalogStore.servedSha(name);
    const served =
      servedSha === null ? null : readCatalogRecord(await catalogStore.servedFile(name, servedSha, catalogRecordPath));

    const { constituents, approved } = await this.estate();
    await catalogStore.keepConstituents(constituents.map((c) => c.marketplaceId));

    if (constituents.length === 0) {
      // Nothing served, nothing to catalog: the facade answers 404 for the catalog as for any marketplace.
      if (servedSha === null || !(await catalogStore.withdraw(name))) return { revision: null, position: null };
      this.pruneSoon();
      return { revision: null, position: await recordWithdrawal(this.deps, servedSha, trigger, actor) };
    }

    if (
      !force &&
      servedSha !== null &&
      served !== null &&
      isCurrent(served, name, constituents, this.deps.guard ? guardFingerprint : null)
    ) {
      // Already served. Recorded unless an earlier build served it and failed to append.
      return {
        revision: revisionOf(servedSha, served),
        position: await recordIfMissing(this.deps, servedSha, served, trigger, actor),
      };
    }
    return this.serveNewRevision(constituents, approved, served, trigger, actor);
  }

  /** Composes the catalog from the estate, serves it, and records the revision. */
  private async serveNewRevision(
    constituents: readonly EstateConstituent[],
    approved: ReadonlyMap<string, ReadonlySet<string>>,
    served: CatalogRecord | null,
    trigger: CatalogTrigger,
    actor: BuildActor,
  ): Promise<BuildResult> {
    const { catalogStore, name } = this.deps;
    const { sha, record, plan, plugins } = await composeCatalog(this.deps, constituents);
    await catalogStore.serve(name, sha);
    // A previous constituent no longer approved was revoked (or its marketplace removed): what only it reached
    // is pruned soon after, off the command's path (the facade never hands it out meanwhile: every want must
    // be the advertised main). Superseded content stays until then; it is still approved.
    if (served?.constituents.some((p) => !approved.get(p.marketplace)?.has(p.sha))) this.pruneSoon();
    this.afterwards(() => catalogStore.tidy(), 'catalog work repository gc failed');
    this.deps.logger.info(
      {
        catalog: name,
        sha,
        trigger,
        constituents: plan.constituents.length,
        plugins,
        collisions: plan.collisions.length,
      },
      'catalog built',
    );
    const events = revisionEvents(sha, record, plugins, served?.collisions ?? null, trigger);
    const position = await appendOnce(this.deps, streams.catalog(sha), events, actor);
    return { revision: revisionOf(sha, record), position };
  }

  /**
   * Every live marketplace that serves a commit, and that commit (desired-refs.ts: the served tip), in
   * name order; and every live marketplace's approved commits.
   */
  private async estate(): Promise<{ constituents: EstateConstituent[]; approved: Map<string, Set<string>> }> {
    const constituents: EstateConstituent[] = [];
    const approvedByName = new Map<string, Set<string>>();
    for (const marketplace of await liveMarketplaces(this.deps.pool)) {
      const { approved, tip } = await publicationTarget(this.deps.pool, marketplace.id);
      approvedByName.set(marketplace.name, new Set(approved));
      const main = desiredRefs(approved, tip).main;
      if (main !== null) constituents.push({ marketplaceId: marketplace.id, marketplace: marketplace.name, sha: main });
    }
    return { constituents, approved: approvedByName };
  }

  private pruneSoon(): void {
    this.afterwards(() => this.deps.catalogStore.prune(this.deps.name), 'catalog prune failed; the next one retries');
  }

  /** Housekeeping after the current build, under the same lock (gc must not run beside a push). */
  private afterwards(work: () => Promise<void>, failure: string): void {
    void this.exclusive(work).catch((error: unknown) =>
      this.deps.logger.warn({ err: error, catalog: this.deps.name }, failure),
    );
  }
}
