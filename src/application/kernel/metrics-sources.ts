import type { ScrapeSources } from '../../adapters/system/metrics.ts';
import { pendingWebhookDeliveries } from '../../projections/webhooks/backlog.queries.ts';
import { auditSinks } from '../../projections/webhooks/sinks.queries.ts';
import type { Ports } from './ports.ts';

/** What the projection runner tells of its projections (runner.ts `status`). */
type ProjectionStatuses = Readonly<{ status(): Promise<ReadonlyArray<Readonly<{ name: string; lag: bigint }>>> }>;

/**
 * What /actuator/prometheus reads at each scrape: projection lag, webhook and audit-sink backlogs. Every replica
 * answers the same figures (they come from the shared database), so a dashboard may take any one, or max().
 */
export function scrapeSources(deps: Pick<Ports, 'pool'>, runner: ProjectionStatuses): ScrapeSources {
  return {
    projectionLag: async () =>
      (await runner.status()).map((p) => ({ projection: p.name, lag: Number(p.lag < 0n ? 0n : p.lag) })),
    webhookBacklog: () => pendingWebhookDeliveries(deps.pool),
    sinkBacklog: async () =>
      (await auditSinks(deps.pool)).filter((s) => s.enabled).map((s) => ({ sink: s.name, entries: s.behind })),
  };
}
