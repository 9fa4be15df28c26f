import type { AccessEvent } from '../../../domain/access/access.events.ts';
import type { LedgerTable } from './ledger-table.ts';

/** Facade fetches (docs/facade.md, Accounting): one info-refs entry, one upload-pack entry per wanted object. */
export const accessLedger: LedgerTable<AccessEvent> = {
  'info-refs': ({ data: d }) => [
    {
      marketplace: d.marketplace,
      marketplaceId: d.marketplaceId,
      ref: d.ref,
      sha: d.sha,
      credential_kind: d.credentialKind,
    },
  ],
  'upload-pack': ({ data: d }) =>
    d.wants.map((want) => ({
      marketplace: d.marketplace,
      marketplaceId: d.marketplaceId,
      ref: want.ref,
      sha: want.sha,
      credential_kind: d.credentialKind,
    })),
};
