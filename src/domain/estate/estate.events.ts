// The declarative estate's facts (docs/estate.md): one `estate-reconcile-triggered` per run that
// applied (its report, counts and all), one `estate-reconciliation-failed` per run that applied nothing
// (the file failed to load, or the run failed as a whole), and `marketplace-upstream-unreachable` when the
// estate registered a marketplace whose upstream could not be read. None carries a secret.
import type { Event, Instant } from '../kernel/decider.ts';
import type { EstateReport } from './estate.ts';

export type EstateTrigger = EstateReport['trigger'];

export type EstateReconcileTriggered = Event<
  'estate-reconcile-triggered',
  {
    /** The run's report: GET /api/v1/estate answers the last one. */
    report: EstateReport;
    /** The file read (gateway.estate.file). */
    file: string;
  }
>;

export type EstateReconciliationFailed = Event<
  'estate-reconciliation-failed',
  {
    trigger: EstateTrigger;
    file: string;
    failedAt: Instant;
    /** `<file>:<line>: <message>` lines of a file that failed to load, or the one reason a run failed. */
    problems: readonly string[];
  }
>;

export type MarketplaceUpstreamUnreachable = Event<
  'marketplace-upstream-unreachable',
  {
    marketplaceId: number;
    name: string;
    url: string;
    reason: string;
    rootCause: string;
    nextStep: string;
  }
>;

export type EstateEvent = EstateReconcileTriggered | EstateReconciliationFailed | MarketplaceUpstreamUnreachable;

/** The counts of a report, as the ledger shows a run. */
export const estateCounts = (r: EstateReport): string =>
  `created=${r.created} updated=${r.updated} unchanged=${r.unchanged} failed=${r.failed}`;
