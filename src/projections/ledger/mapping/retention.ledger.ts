import { retentionDetail, type RetentionEvent } from '../../../domain/retention/retention.events.ts';
import type { LedgerTable } from './ledger-table.ts';

/** Retention (docs/retention.md): one entry per evaluation pass, with its counts. */
export const retentionLedger: LedgerTable<RetentionEvent> = {
  'retention-evaluated': ({ data }) => [{ marketplace: data.marketplace ?? '-', detail: retentionDetail(data) }],
};
