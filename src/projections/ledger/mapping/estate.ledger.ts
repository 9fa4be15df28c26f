import { estateCounts, type EstateEvent } from '../../../domain/estate/estate.events.ts';
import type { LedgerTable } from './ledger-table.ts';

/** The declarative estate (docs/estate.md): each run, each run that applied nothing, each unreadable upstream. */
export const estateLedger: LedgerTable<EstateEvent> = {
  // each run with its trigger and counts
  'estate-reconcile-triggered': ({ data }) => [
    { detail: `trigger=${data.report.trigger}; ${estateCounts(data.report)}` },
  ],
  'estate-reconciliation-failed': ({ data }) => [
    { detail: `trigger=${data.trigger}; nothing applied: ${data.problems.join('; ')}` },
  ],
  'marketplace-upstream-unreachable': ({ data: d }) => {
    const detail = `registered by the estate; upstream unreadable: ${d.reason}: ${d.rootCause}; ${d.nextStep}`;
    return [{ marketplace: d.name, marketplaceId: d.marketplaceId, detail }];
  },
};
