// Ledger mappings of the publication repairs, of retention and of the estate, kept apart so ledger.mapping.ts stays readable.
import { compactionDetail } from '../../domain/compaction/compaction.events.ts';
import { estateCounts } from '../../domain/estate/estate.events.ts';
import type { EventOf } from '../../domain/events.ts';
import { retentionDetail } from '../../domain/retention/retention.events.ts';
import type { Fields } from './ledger.fields.ts';

type PublicationEvent = EventOf<
  'publication-repaired' | 'snapshot-unpublish-failed' | 'publication-served-not-approved'
>;

/** The ledger entries of publication's own repairs and failures. */
export function publicationFields(event: PublicationEvent): Fields[] {
  switch (event.type) {
    case 'publication-repaired': {
      const d = event.data;
      const parts = [
        d.restored.length > 0 ? `restored ${d.restored.join(', ')}` : '',
        d.removed.length > 0 ? `removed ${d.removed.join(', ')}` : '',
      ];
      return [{ marketplace: d.marketplace, marketplaceId: d.marketplaceId, detail: parts.filter(Boolean).join('; ') }];
    }
    case 'snapshot-unpublish-failed': {
      const d = event.data;
      return [
        {
          marketplace: d.marketplace,
          marketplaceId: d.marketplaceId,
          sha: d.sha,
          ref: `refs/snapshots/${d.sha}`,
          detail:
            `snapshot ${d.snapshotId}: refs could not be removed from publication (${d.error}); the gateway keeps retrying, ` +
            'a person must clear the cause (see the gateway log)',
        },
      ];
    }
    case 'publication-served-not-approved':
      return [
        {
          marketplace: event.data.marketplace,
          marketplaceId: event.data.marketplaceId,
          ref: event.data.ref,
          sha: event.data.sha,
          detail: 'served but not approved; withdrawn',
        },
      ];
  }
}

type RetentionEvent = EventOf<
  | 'snapshot-soft-deleted'
  | 'snapshot-restored'
  | 'snapshot-purged'
  | 'retention-evaluated'
  | 'staging-refs-swept'
  | 'webhook-deliveries-swept'
>;

/** The ledger entries of retention (docs/retention.md): deletion marks, purges, evaluation and compaction passes. */
export function retentionFields(event: RetentionEvent): Fields[] {
  switch (event.type) {
    case 'snapshot-soft-deleted': {
      const d = event.data;
      const detail = `snapshot ${d.snapshotId}: ${d.reason}; purge after ${d.purgeAfter}`;
      return [{ marketplace: d.marketplace, marketplaceId: d.marketplaceId, sha: d.sha, detail }];
    }
    case 'snapshot-restored': {
      const d = event.data;
      return [
        { marketplace: d.marketplace, marketplaceId: d.marketplaceId, sha: d.sha, detail: `snapshot ${d.snapshotId}` },
      ];
    }
    case 'retention-evaluated': // one entry per pass, with its counts
      return [{ marketplace: event.data.marketplace ?? '-', detail: retentionDetail(event.data) }];
    case 'snapshot-purged': {
      const d = event.data;
      const detail = `snapshot ${d.snapshotId}: quarantine ref removed${d.withdrawn ? '; the withdrawn row is kept' : ''}`;
      return [{ marketplace: d.marketplace, marketplaceId: d.marketplaceId, sha: d.sha, detail }];
    }
    case 'staging-refs-swept': // compaction housekeeping, one entry per pass that removed any
    case 'webhook-deliveries-swept':
      return [{ detail: compactionDetail(event) }];
  }
}

type EstateEvent = EventOf<
  'estate-reconcile-triggered' | 'estate-reconciliation-failed' | 'marketplace-upstream-unreachable'
>;

/**
 * The ledger entries of the declarative estate (docs/estate.md): each run, each run that applied nothing, each
 * unreadable upstream.
 */
export function estateFields(event: EstateEvent): Fields[] {
  switch (event.type) {
    case 'estate-reconcile-triggered': // each run with its trigger and counts
      return [{ detail: `trigger=${event.data.report.trigger}; ${estateCounts(event.data.report)}` }];
    case 'estate-reconciliation-failed':
      return [{ detail: `trigger=${event.data.trigger}; nothing applied: ${event.data.problems.join('; ')}` }];
    case 'marketplace-upstream-unreachable': {
      const d = event.data;
      const detail = `registered by the estate; upstream unreadable: ${d.reason}: ${d.rootCause}; ${d.nextStep}`;
      return [{ marketplace: d.name, marketplaceId: d.marketplaceId, detail }];
    }
  }
}
