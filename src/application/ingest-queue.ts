import type { IngestTrigger } from '../domain/snapshot/snapshot.events.ts';
import type { MarketplaceRecord } from '../projections/marketplaces/marketplaces.queries.ts';
import { ingest, type IngestPorts } from './ingest-marketplace.ts';
import { systemMeta } from './system-meta.ts';

/**
 * Ingestions nobody waits for (webhooks, the schedule): one at a time per marketplace; a request while
 * one runs queues exactly one more run (what it would fetch is the newest tip anyway). Failures are
 * recorded by ingest itself (ingest-failed) and logged here.
 */
export class IngestQueue {
  private readonly running = new Map<number, Promise<void>>();
  private readonly again = new Set<number>();

  constructor(private readonly deps: IngestPorts) {}

  enqueue(marketplace: MarketplaceRecord, trigger: IngestTrigger, principal: string): void {
    if (this.running.has(marketplace.id)) {
      this.again.add(marketplace.id);
      return;
    }
    const run = (async () => {
      do {
        this.again.delete(marketplace.id);
        const meta = systemMeta(this.deps, principal);
        try {
          const { snapshotId, created } = await ingest(this.deps, marketplace, trigger, meta);
          this.deps.logger.info({ marketplace: marketplace.name, trigger, snapshotId, created }, 'ingested');
        } catch (error) {
          this.deps.logger.warn(
            { marketplace: marketplace.name, trigger, err: error },
            'ingestion failed (recorded as ingest-failed)',
          );
        }
      } while (this.again.has(marketplace.id));
    })().finally(() => this.running.delete(marketplace.id));
    this.running.set(marketplace.id, run);
  }

  /** Resolves when nothing is running (shutdown, tests). */
  async idle(): Promise<void> {
    while (this.running.size > 0) await Promise.allSettled([...this.running.values()]);
  }
}
