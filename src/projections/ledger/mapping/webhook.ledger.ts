import { targetLedgerDetail, type WebhookEvent } from '../../../domain/webhook/webhook.events.ts';
import { noLedgerEntry, type LedgerTable } from './ledger-table.ts';

/**
 * Webhook subscribers and audit sinks, with the acting admin as principal. Delivering is not an act to audit: each
 * batch would feed the next.
 */
export const webhookLedger: LedgerTable<WebhookEvent> = {
  'webhook-subscriber-created': (event) => [{ detail: targetLedgerDetail(event) }],
  'webhook-subscriber-deleted': (event) => [{ detail: targetLedgerDetail(event) }],
  'audit-sink-created': (event) => [{ detail: targetLedgerDetail(event) }],
  'audit-sink-updated': (event) => [{ detail: targetLedgerDetail(event) }],
  'audit-sink-deleted': (event) => [{ detail: targetLedgerDetail(event) }],
  'audit-sink-cursor-set': (event) => [{ detail: targetLedgerDetail(event) }],
  'webhook-delivery-attempted': noLedgerEntry,
  'audit-batch-offered': noLedgerEntry,
};
