import cron, { type ScheduledTask } from 'node-cron';
import { streams } from '../../domain/kernel/streams.ts';
import { waiverDecider } from '../../domain/vetting/waiver.decider.ts';
import { liveMarketplaces } from '../../projections/marketplaces/marketplaces.queries.ts';
import type { LeaderDuty } from '../../projections/runner/leader.ts';
import { snapshotsOf } from '../../projections/snapshots/snapshots.queries.ts';
import { marketplacesWithLapsedWaivers, unvettedHeldSnapshots } from '../../projections/vetting/vetting.queries.ts';
import { addressedSnapshot } from '../snapshots/addressed-snapshot.ts';
import { execute } from '../kernel/execute.ts';
import { revet, runVetting, type VettingPorts } from './run-vetting.ts';
import { systemMeta } from '../kernel/system-meta.use-case.ts';

export type SweepSummary = Readonly<{
  snapshots: number;
  violations: number;
  inconclusive: number;
  revoked: number;
  failed: number;
}>;

/**
 * Continuous re-vetting: every approved snapshot of every live marketplace, one at a time, with trigger
 * `revet-scheduled` and principal `revet-policy`. One snapshot's failure is logged and the sweep goes on.
 */
export async function revetSweep(deps: VettingPorts): Promise<SweepSummary> {
  const log = deps.logger.child({ component: 'revet-sweep' });
  const marketplaces = await liveMarketplaces(deps.pool);
  const approved = (
    await snapshotsOf(
      deps.pool,
      marketplaces.map((m) => m.id),
    )
  ).filter((s) => s.state === 'approved');
  log.info({ snapshots: approved.length, mode: deps.vetting.revetMode }, 'scheduled re-vet started');
  const summary = { snapshots: approved.length, violations: 0, inconclusive: 0, revoked: 0, failed: 0 };
  for (const [index, snapshot] of approved.entries()) {
    const marketplace = marketplaces.find((m) => m.id === snapshot.marketplaceId)!;
    try {
      const result = await revet(deps, snapshot, marketplace, systemMeta(deps, 'revet-policy'), 'revet-scheduled');
      if (result.classification === 'VIOLATION') summary.violations += 1;
      if (result.classification === 'INCONCLUSIVE') summary.inconclusive += 1;
      if (result.revoked) summary.revoked += 1;
    } catch (error) {
      summary.failed += 1;
      log.error(
        { err: error, snapshotId: snapshot.id, marketplace: marketplace.name },
        're-vet of one snapshot failed; the sweep goes on',
      );
    }
    if ((index + 1) % 50 === 0) log.info({ done: index + 1, of: approved.length }, 'scheduled re-vet progress');
  }
  log.info(summary, 'scheduled re-vet finished');
  return summary;
}

/**
 * Vets the held snapshots that have no vetting run (an ingestion cut off between its capture and its run):
 * the ingestion's run, made when the leader starts (principal `system`). One snapshot's failure is logged and
 * the pass goes on; a snapshot whose run cannot be made stays BLOCKED until POST /vetting/rerun.
 */
export async function vetUnvetted(deps: VettingPorts, batchSize: number): Promise<number> {
  const log = deps.logger.child({ component: 'vetting-catch-up' });
  const ids = await unvettedHeldSnapshots(deps.pool, batchSize);
  let vetted = 0;
  for (const id of ids) {
    try {
      const { snapshot, marketplace } = await addressedSnapshot(deps, id);
      await runVetting(deps, snapshot, marketplace, 'ingestion', systemMeta(deps, 'system'));
      vetted += 1;
    } catch (error) {
      log.error(
        { err: error, snapshotId: id },
        'vetting a snapshot left unvetted failed; it stays BLOCKED until rerun',
      );
    }
  }
  if (ids.length > 0)
    log.info({ vetted, of: ids.length }, 'held snapshots left unvetted by an interrupted ingestion were vetted');
  return vetted;
}

/** Records `waiver-lapsed` for waivers past their expiry (they stopped counting at expiresAt already). */
export async function waiverSweep(deps: VettingPorts, batchSize: number): Promise<number> {
  let lapsed = 0;
  for (;;) {
    const marketplaceIds = await marketplacesWithLapsedWaivers(deps.pool, deps.clock.instant(), batchSize);
    let pass = 0;
    for (const marketplaceId of marketplaceIds) {
      const decision = await execute(
        deps,
        waiverDecider,
        streams.waivers(marketplaceId),
        {
          type: 'lapse-waivers',
          data: { limit: batchSize },
          meta: systemMeta(deps, 'waiver-sweep'),
        },
        ['vetting', 'ledger'],
      );
      pass += decision.events.length;
    }
    lapsed += pass;
    // Nothing more to record (or the read model lags the streams): stop rather than spin.
    if (pass === 0) return lapsed;
  }
}

export type SweepSettings = Readonly<{
  revetSchedule: string;
  waiverSweepIntervalMs: number;
  waiverSweepBatchSize: number;
}>;

/** The leader runs both sweeps; a replica that loses the lock stops them. */
export function vettingDuties(deps: VettingPorts, settings: SweepSettings): LeaderDuty {
  let task: ScheduledTask | null = null;
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<unknown> = Promise.resolve();
  const log = deps.logger.child({ component: 'vetting-sweeps' });
  return {
    start() {
      // Once per leadership: what an interrupted ingestion left unvetted (the read models are caught up by now).
      running = vetUnvetted(deps, settings.waiverSweepBatchSize).catch((error: unknown) =>
        log.error({ err: error }, 'vetting what was left unvetted failed'),
      );
      task = cron.schedule(
        settings.revetSchedule,
        async () => {
          running = revetSweep(deps).catch((error: unknown) => log.error({ err: error }, 'scheduled re-vet failed'));
          await running;
        },
        { noOverlap: true, name: 'revet-sweep' },
      );
      timer = setInterval(() => {
        running = waiverSweep(deps, settings.waiverSweepBatchSize)
          .then((count) => {
            if (count > 0) log.info({ lapsed: count }, 'waivers lapsed');
          })
          .catch((error: unknown) => log.error({ err: error }, 'waiver sweep failed'));
      }, settings.waiverSweepIntervalMs);
      timer.unref();
    },
    async stop() {
      await task?.destroy();
      if (timer) clearInterval(timer);
      task = null;
      timer = null;
      await running;
    },
  };
}
