// Ledger mapping of the forge mirror (docs/mirror.md), apart so ledger.mapping.ts stays under its size limit.
import type { EventOf } from '../../domain/events.ts';
import type { Fields } from './ledger.fields.ts';

type MirrorEvent = EventOf<'mirror-reconciled' | 'mirror-reconcile-requested' | 'mirror-reconciliation-refused'>;

/**
 * mirror-reconciliation-refused ("mirror refused to act") is the mirror's one entry, naming the
 * marketplace (or the catalog) and why. A pass's own record and a request for one are not audited acts: the
 * ledger would grow with every retry while a mirror is down.
 */
export function mirrorFields(event: MirrorEvent): Fields[] {
  switch (event.type) {
    case 'mirror-reconciliation-refused': {
      const d = event.data;
      return [
        { marketplace: d.name, marketplaceId: d.marketplaceId, detail: `nothing pushed or deleted: ${d.reason}` },
      ];
    }
    case 'mirror-reconciled':
    case 'mirror-reconcile-requested':
      return [];
  }
}
