import cron, { type ScheduledTask } from 'node-cron';
import { liveMarketplaces } from '../../projections/marketplaces/marketplaces.queries.ts';
import type { LeaderDuty } from '../../projections/runner/leader.ts';
import type { IngestRegistry } from './ingest-registry.ts';
import type { Ports } from '../kernel/ports.ts';

type ScheduleDeps = Pick<Ports, 'pool' | 'logger'>;

/**
 * Queues an ingestion of every live marketplace in scheduled sync mode (principal `scheduler`);
 * resolves when each has run.
 */
export async function scheduledIngestion(deps: ScheduleDeps, ingests: IngestRegistry): Promise<number> {
  const due = (await liveMarketplaces(deps.pool)).filter((m) => m.syncMode === 'scheduled');
  const runs = due.map((marketplace) => ingests.enqueue(marketplace, 'scheduled', 'scheduler'));
  if (due.length > 0) deps.logger.info({ marketplaces: due.map((m) => m.name) }, 'scheduled ingestion queued');
  await Promise.all(runs);
  return due.length;
}

/** gateway.sync.schedule, on the leader only; a replica that loses the lock stops scheduling. */
export function scheduledIngestionDuty(deps: ScheduleDeps, ingests: IngestRegistry, schedule: string): LeaderDuty {
  let task: ScheduledTask | null = null;
  let pass: Promise<unknown> = Promise.resolve();
  return {
    start() {
      task = cron.schedule(
        schedule,
        async () => {
          pass = scheduledIngestion(deps, ingests).catch((error: unknown) =>
            deps.logger.error({ err: error }, 'scheduled ingestion failed'),
          );
          await pass;
        },
        { noOverlap: true, name: 'scheduled-ingestion' },
      );
    },
    async stop() {
      await task?.destroy();
      task = null;
      // The ingestions this schedule queued finish first.
      await pass;
    },
  };
}
