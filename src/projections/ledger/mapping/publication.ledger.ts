import type { PublicationEvent } from '../../../domain/publication/publication.events.ts';
import type { LedgerTable } from './ledger-table.ts';

/** Publication's own repairs and failures. */
export const publicationLedger: LedgerTable<PublicationEvent> = {
  'publication-repaired': ({ data: d }) => {
    const parts = [
      d.restored.length > 0 ? `restored ${d.restored.join(', ')}` : '',
      d.removed.length > 0 ? `removed ${d.removed.join(', ')}` : '',
    ];
    return [{ marketplace: d.marketplace, marketplaceId: d.marketplaceId, detail: parts.filter(Boolean).join('; ') }];
  },
  'snapshot-unpublish-failed': ({ data: d }) => [
    {
      marketplace: d.marketplace,
      marketplaceId: d.marketplaceId,
      sha: d.sha,
      ref: `refs/snapshots/${d.sha}`,
      detail:
        `snapshot ${d.snapshotId}: refs could not be removed from publication (${d.error}); the gateway keeps retrying, ` +
        'a person must clear the cause (see the gateway log)',
    },
  ],
  'publication-served-not-approved': ({ data: d }) => [
    {
      marketplace: d.marketplace,
      marketplaceId: d.marketplaceId,
      ref: d.ref,
      sha: d.sha,
      detail: 'served but not approved; withdrawn',
    },
  ],
};
