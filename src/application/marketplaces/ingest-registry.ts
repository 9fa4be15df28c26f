import {
  advanced,
  foldsInto,
  queuedProgress,
  started,
  startable,
  type IngestProgress,
} from '../../domain/marketplace/ingest-progress.ts';
import type { CommandMeta } from '../../domain/kernel/decider.ts';
import type { IngestTrigger } from '../../domain/snapshot/snapshot.events.ts';
import { marketplaceById, type MarketplaceRecord } from '../../projections/marketplaces/marketplaces.queries.ts';
import { ingest, type IngestOutcome, type IngestPorts } from './ingest.use-case.ts';
import { liveOr404 } from './registration.use-case.ts';
import type { Ports } from '../kernel/ports.ts';
import { reject } from '../kernel/rejected.ts';
import { systemMeta } from '../kernel/system-meta.use-case.ts';

/** One ingest as the progress answers show it. */
export type IngestView = IngestProgress &
  Readonly<{
    marketplace: string;
    state: 'running' | 'queued';
    /** Place in the gateway's queue (1: next to start), null once it runs. */
    position: number | null;
    trigger: IngestTrigger;
    requestedBy: string;
    queuedAt: string;
  }>;

type Entry = {
  readonly marketplace: MarketplaceRecord;
  readonly marketplaceId: number;
  readonly trigger: IngestTrigger;
  /** Who asked; `at` is renewed when it starts. */
  readonly meta: CommandMeta;
  readonly pushedTip: string | undefined;
  /** Nobody waits on its answer (webhook, schedule): it may take in later requests of its marketplace. */
  readonly background: boolean;
  readonly queuedAt: string;
  progress: IngestProgress;
  readonly done: Promise<IngestOutcome>;
  resolve(outcome: IngestOutcome): void;
  fail(error: unknown): void;
};

/**
 * Every ingest of the gateway process goes through here, whatever started it (the API, a push, a
 * webhook, the schedule): at most `concurrency` run at once, never two of one marketplace; the rest wait
 * in order of arrival (domain/marketplace/ingest-progress.ts says which start when a slot frees). Each
 * keeps its progress here, in memory, while it waits and runs.
 */
export class IngestRegistry {
  private readonly waiting: Entry[] = [];
  private readonly running = new Map<number, Entry>();

  private readonly deps: IngestPorts;
  private readonly concurrency: number;
  constructor(deps: IngestPorts, concurrency: number) {
    this.deps = deps;
    this.concurrency = concurrency;
  }

  /** Waits for its turn, ingests and answers the outcome (an ingest someone waits on: the API, a push). */
  run(marketplace: MarketplaceRecord, trigger: IngestTrigger, meta: CommandMeta, pushedTip?: string) {
    return this.add(marketplace, trigger, meta, pushedTip, false).done;
  }

  /**
   * An ingest nobody waits on (webhook, schedule): one waiting already for the marketplace and nobody
   * waits on takes it in (what it fetches is the newest tip anyway). Failures are recorded by the ingest
   * itself (ingest-failed) and logged here; the promise settles when it has run and never rejects.
   */
  enqueue(marketplace: MarketplaceRecord, trigger: IngestTrigger, principal: string): Promise<void> {
    const request = { marketplaceId: marketplace.id, background: true, trigger };
    const entry =
      foldsInto(this.waiting, request) ??
      this.add(marketplace, trigger, systemMeta(this.deps, principal), undefined, true);
    return entry.done.then(
      () => undefined,
      () => undefined,
    );
  }

  /** The marketplace's ingest running now, else its first waiting one; and those waiting after it. */
  of(marketplaceId: number): { current: IngestView | null; queued: IngestView[] } {
    const running = this.running.get(marketplaceId);
    const waiting = this.waiting
      .map((e, index) => (e.marketplaceId === marketplaceId ? this.view(e, index) : null))
      .filter((view) => view !== null);
    if (running) return { current: this.view(running, -1), queued: waiting };
    return { current: waiting[0] ?? null, queued: waiting.slice(1) };
  }

  /** Every running ingest (oldest start first) and every waiting one (in queue order). */
  all(): { concurrency: number; running: IngestView[]; queued: IngestView[] } {
    const running = [...this.running.values()]
      .map((e) => this.view(e, -1))
      .sort((a, b) => (a.startedAt ?? '').localeCompare(b.startedAt ?? ''));
    return { concurrency: this.concurrency, running, queued: this.waiting.map((e, index) => this.view(e, index)) };
  }

  /** Resolves when nothing runs or waits (shutdown, tests). */
  async idle(): Promise<void> {
    while (this.running.size + this.waiting.length > 0)
      await Promise.allSettled([...this.running.values(), ...this.waiting].map((e) => e.done));
  }

  /** `index`: its place in the waiting list, -1 once it runs. */
  private view(entry: Entry, index: number): IngestView {
    return {
      marketplace: entry.marketplace.name,
      state: index < 0 ? 'running' : 'queued',
      position: index < 0 ? null : index + 1,
      trigger: entry.trigger,
      requestedBy: entry.meta.principal,
      queuedAt: entry.queuedAt,
      ...entry.progress,
    };
  }

  private add(
    marketplace: MarketplaceRecord,
    trigger: IngestTrigger,
    meta: CommandMeta,
    pushedTip: string | undefined,
    background: boolean,
  ): Entry {
    const settle = { resolve: (_outcome: IngestOutcome) => {}, fail: (_error: unknown) => {} };
    const done = new Promise<IngestOutcome>((resolve, fail) => Object.assign(settle, { resolve, fail }));
    // A failure nobody awaits (a background ingest, logged in start) is no unhandled rejection.
    done.catch(() => {});
    const queuedAt = this.deps.clock.instant();
    const entry: Entry = {
      marketplace,
      marketplaceId: marketplace.id,
      trigger,
      meta,
      pushedTip,
      background,
      queuedAt,
      progress: queuedProgress,
      done,
      resolve: (outcome) => settle.resolve(outcome),
      fail: (error) => settle.fail(error),
    };
    this.waiting.push(entry);
    this.pump();
    return entry;
  }

  /** Starts what may start now. */
  private pump(): void {
    const free = this.concurrency - this.running.size;
    for (const entry of startable(this.waiting, new Set(this.running.keys()), free)) {
      this.waiting.splice(this.waiting.indexOf(entry), 1);
      this.running.set(entry.marketplaceId, entry);
      void this.start(entry).finally(() => {
        this.running.delete(entry.marketplaceId);
        this.pump();
      });
    }
  }

  private async start(entry: Entry): Promise<void> {
    const at = this.deps.clock.instant();
    entry.progress = started(entry.progress, at);
    const { name } = entry.marketplace;
    try {
      // Read again: it may have been removed, or its selection changed, while it waited.
      const marketplace = await marketplaceById(this.deps.pool, entry.marketplaceId);
      if (!marketplace || marketplace.removedAt !== null)
        throw reject('marketplace-not-found', `marketplace '${name}' was removed before its ingest started`);
      const report = (r: Parameters<typeof advanced>[1]) => (entry.progress = advanced(entry.progress, r));
      const outcome = await ingest(
        this.deps,
        marketplace,
        entry.trigger,
        { ...entry.meta, at },
        entry.pushedTip,
        report,
      );
      if (entry.background)
        this.deps.logger.info({ marketplace: name, trigger: entry.trigger, ...outcome }, 'ingested');
      entry.resolve(outcome);
    } catch (error) {
      if (entry.background)
        this.deps.logger.warn(
          { marketplace: name, trigger: entry.trigger, err: error },
          'ingestion failed (recorded as ingest-failed)',
        );
      entry.fail(error);
    }
  }
}

type Reading = Pick<Ports, 'pool'> & Readonly<{ ingests: IngestRegistry }>;

/**
 * GET /marketplaces/{name}/ingest: the marketplace's ingest running now (else the first of its waiting
 * ones, with its place in the queue) and those of it waiting after; 404 `no-ingest-running` when it has none.
 */
export async function ingestProgressOf(deps: Reading, name: string) {
  const marketplace = await liveOr404(deps, name);
  const { current, queued } = deps.ingests.of(marketplace.id);
  if (!current) throw reject('no-ingest-running', `no ingest of '${marketplace.name}' is running or waiting`);
  return { ...current, queued };
}
