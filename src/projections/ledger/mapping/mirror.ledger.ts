import type { MirrorEvent } from '../../../domain/mirror/mirror.events.ts';
import { noLedgerEntry, type LedgerTable } from './ledger-table.ts';

/**
 * The forge mirror (docs/mirror.md): mirror-reconciliation-refused ("mirror refused to act") is its one entry,
 * naming the marketplace (or the catalog) and why. A pass's own record and a request for one are not audited acts:
 * the ledger would grow with every retry while a mirror is down.
 */
export const mirrorLedger: LedgerTable<MirrorEvent> = {
  'mirror-reconciliation-refused': ({ data: d }) => [
    { marketplace: d.name, marketplaceId: d.marketplaceId, detail: `nothing pushed or deleted: ${d.reason}` },
  ],
  'mirror-reconciled': noLedgerEntry,
  'mirror-reconcile-requested': noLedgerEntry,
};
