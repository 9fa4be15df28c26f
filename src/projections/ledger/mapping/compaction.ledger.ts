import {
  deliverySweepDetail,
  externalCachesDetail,
  stagingSweepDetail,
  type CompactionEvent,
} from '../../../domain/compaction/compaction.events.ts';
import type { LedgerTable } from './ledger-table.ts';

/** Compaction housekeeping (docs/retention.md): one entry per pass that removed any. */
export const compactionLedger: LedgerTable<CompactionEvent> = {
  'staging-refs-swept': (event) => [{ detail: stagingSweepDetail(event.data) }],
  'webhook-deliveries-swept': (event) => [{ detail: deliverySweepDetail(event.data) }],
  'external-caches-pruned': (event) => [{ detail: externalCachesDetail(event.data) }],
};
