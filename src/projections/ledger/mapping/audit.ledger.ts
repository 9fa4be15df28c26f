import type { AuditEvent } from '../../../domain/audit/audit.events.ts';
import { noLedgerEntry, type LedgerTable } from './ledger-table.ts';

/** The ledger's own checkpoints (docs/audit.md). */
export const auditLedger: LedgerTable<AuditEvent> = {
  'audit-checkpoint-signed': noLedgerEntry, // signing the head is not an entry: it would move the head it signs
};
