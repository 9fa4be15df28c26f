import type { PublishEvent } from '../../../domain/publish/publish.events.ts';
import type { LedgerTable } from './ledger-table.ts';

/** A push to a hosted marketplace (/publish), a wire act: its source is the client address (ledger.mapping.ts). */
export const publishLedger: LedgerTable<PublishEvent> = {
  'marketplace-pushed': ({ data: d }) => {
    // Both tips on the entry (allow-rewrite records both tips on the ledger); sha is the new one.
    const detail = `previousTip=${d.previousTip ?? 'none'} newTip=${d.newTip} forced=${d.forced} pushPolicy=${d.pushPolicy}`;
    return [{ marketplace: d.marketplace, marketplaceId: d.marketplaceId, ref: d.ref, sha: d.newTip, detail }];
  },
};
