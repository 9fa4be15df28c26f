import cron, { type ScheduledTask } from 'node-cron';
import { liveMarketplaces } from '../projections/marketplaces/marketplaces.queries.ts';
import type { LeaderDuty } from '../projections/runner/leader.ts';
import type { IngestPorts } from './ingest-marketplace.ts';
import { IngestQueue } from './ingest-queue.ts';

/** Queues an ingestion of every live marketplace in scheduled sync mode (principal `scheduler`). */
export async function scheduledIngestion(deps: IngestPorts, queue: IngestQueue): Promise<number> {
  const due = (await liveMarketplaces(deps.pool)).filter((m) => m.syncMode === 'scheduled');
  for (const marketplace of due) queue.enqueue(marketplace, 'scheduled', 'scheduler');
  if (due.length > 0) deps.logger.info({ marketplaces: due.map((m) => m.name) }, 'scheduled ingestion queued');
  return due.length;
}

/** gateway.sync.schedule, on the leader only; a replica that loses the lock stops scheduling. */
export function scheduledIngestionDuty(deps: IngestPorts, schedule: string): LeaderDuty {
  const queue = new IngestQueue(deps);
  let task: ScheduledTask | null = null;
  return {
    start() {
      task = cron.schedule(
        schedule,
        async () => {
          await scheduledIngestion(deps, queue).catch((error: unknown) =>
            deps.logger.error({ err: error }, 'scheduled ingestion failed'),
          );
          await queue.idle();
        },
        { noOverlap: true, name: 'scheduled-ingestion' },
      );
    },
    async stop() {
      await task?.destroy();
      task = null;
      await queue.idle();
    },
  };
}
