import type { MarketplaceEvent, MarketplaceNameEvent } from '../../../domain/marketplace/marketplace.events.ts';
import { noLedgerEntry, plural, type LedgerTable } from './ledger-table.ts';

/** A marketplace's lifecycle and settings; its name's reservation is bookkeeping, not an act. */
export const marketplaceLedger: LedgerTable<MarketplaceEvent | MarketplaceNameEvent> = {
  'marketplace-registered': ({ data: d }) => [
    { marketplace: d.name, marketplaceId: d.marketplaceId, detail: `origin=${d.origin}` },
  ],
  'marketplace-removed': ({ data: d }) => {
    // marketplace-removed detail: "withdrew {n} approved snapshot(s); reason"
    const detail = `withdrew ${plural(d.withdrawnSnapshotIds.length, 'approved snapshot')}; ${d.reason}`;
    return [{ marketplace: d.name, marketplaceId: d.marketplaceId, detail }];
  },
  'marketplace-push-scopes-removed': ({ data: d }) => [
    {
      marketplace: d.name,
      marketplaceId: d.marketplaceId,
      detail: `publish grant removed from tokens ${d.tokenIds.join(', ')}`,
    },
  ],
  'sync-mode-changed': ({ data: d }) => {
    // Never the secret, not even sealed.
    const secret =
      d.mode === 'webhook'
        ? '; a new webhook secret was issued'
        : d.previousMode === 'webhook'
          ? '; the webhook secret was discarded'
          : '';
    return [
      {
        marketplace: d.name,
        marketplaceId: d.marketplaceId,
        detail: `mode=${d.mode} (was ${d.previousMode})${secret}`,
      },
    ];
  },
  'marketplace-selection-set': ({ data: d }) => {
    const { include, exclude } = d;
    const detail =
      include.length === 0 && exclude.length === 0
        ? 'selection cleared: every plugin is served from the next ingest'
        : `include=${include.length === 0 ? 'every plugin' : `[${include.join(', ')}]`} exclude=[${exclude.join(', ')}]; takes effect at the next ingest`;
    return [{ marketplace: d.name, marketplaceId: d.marketplaceId, detail }];
  },
  'marketplace-name-reserved': noLedgerEntry,
  'marketplace-name-released': noLedgerEntry,
};
