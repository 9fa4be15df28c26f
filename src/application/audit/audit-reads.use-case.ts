// What the audit surfaces read of the ledger's read models: the export's pages and the signed
// checkpoints, each a page of one query.
import { checkpointsPage } from '../../projections/ledger/checkpoints.queries.ts';
import { ledgerAfter, type LedgerEntry } from '../../projections/ledger/ledger.queries.ts';
import type { Ports } from '../kernel/ports.ts';

export type { LedgerEntry } from '../../projections/ledger/ledger.queries.ts';
/** How a holder reached a snapshot (the time-travel answer's `via`). */
export { holderRoutes } from '../../projections/time-travel/time-travel.queries.ts';

/** Up to `limit` ledger entries after entry `after`, none recorded after `cutoff` (the settling lag). */
export const ledgerExportPage = (
  deps: Pick<Ports, 'pool'>,
  after: number,
  limit: number,
  cutoff: string,
): Promise<LedgerEntry[]> => ledgerAfter(deps.pool, after, limit, cutoff);

type Checkpoint = Awaited<ReturnType<typeof checkpointsPage>>[number];

/** Up to `limit` signed checkpoints before entry `before` (0: the newest), newest first, and where the next page starts. */
export async function checkpointPage(
  deps: Pick<Ports, 'pool'>,
  before: number,
  limit: number,
): Promise<Readonly<{ checkpoints: Checkpoint[]; nextBefore?: number }>> {
  const rows = await checkpointsPage(deps.pool, before, limit + 1);
  const checkpoints = rows.slice(0, limit);
  const last = checkpoints.at(-1);
  return { checkpoints, ...(rows.length > limit && last ? { nextBefore: last.entryId } : {}) };
}
