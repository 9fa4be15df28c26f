import type { SnapshotEvent } from '../../../domain/snapshot/snapshot.events.ts';
import type { LedgerTable } from './ledger-table.ts';

type Where = Readonly<{ marketplace: string; marketplaceId: number; sha: string }>;

/** The entry of an act on one snapshot: its marketplace and commit, and a detail. */
const on = (d: Where, detail: string) => [
  { marketplace: d.marketplace, marketplaceId: d.marketplaceId, sha: d.sha, detail },
];

/**
 * A snapshot's life: captured (held or rejected at once), its plugins withheld, the ingest around it, its review,
 * revocation, and its deletion, restoration and purge (docs/retention.md).
 */
export const snapshotLedger: LedgerTable<SnapshotEvent> = {
  'snapshot-captured': ({ data: d }) =>
    on(d, d.violation === null ? `snapshot ${d.snapshotId} held` : `snapshot ${d.snapshotId} rejected: ${d.violation}`),
  'plugin-withheld': ({ data: d }) =>
    on(d, `snapshot ${d.snapshotId}: plugin '${d.plugin}' withheld; source ${JSON.stringify(d.source)}; ${d.reason}`),
  'ingest-succeeded': ({ data: d }) =>
    on(d, `snapshot ${d.snapshotId}${d.created ? '' : ' (commit already captured)'}; trigger=${d.trigger}`),
  'ingest-failed': ({ data: d }) => [
    {
      marketplace: d.marketplace,
      marketplaceId: d.marketplaceId,
      detail: `${d.reason}; root cause: ${d.rootCause}; next step: ${d.nextStep}`,
    },
  ],
  'snapshot-approved': ({ data: d }) =>
    on(d, `snapshot ${d.snapshotId}${d.overrideReason ? `; override: ${d.overrideReason}` : ''}`),
  'snapshot-rejected': ({ data: d }) => on(d, `snapshot ${d.snapshotId}${d.reason ? `; reason: ${d.reason}` : ''}`),
  'snapshot-revoked': ({ data: d }) => {
    const where = { marketplace: d.marketplace, marketplaceId: d.marketplaceId, sha: d.sha };
    // A revocation appends snapshot-revoked and snapshot-unpublished; the refs go.
    return [
      { ...where, detail: `snapshot ${d.snapshotId}: ${d.reason}` },
      {
        ...where,
        event: 'snapshot-unpublished',
        ref: `refs/snapshots/${d.sha}`,
        detail: `snapshot ${d.snapshotId}: refs removed from publication`,
      },
    ];
  },
  'snapshot-soft-deleted': ({ data: d }) => on(d, `snapshot ${d.snapshotId}: ${d.reason}; purge after ${d.purgeAfter}`),
  'snapshot-restored': ({ data: d }) => on(d, `snapshot ${d.snapshotId}`),
  'snapshot-purged': ({ data: d }) =>
    on(d, `snapshot ${d.snapshotId}: quarantine ref removed${d.withdrawn ? '; the withdrawn row is kept' : ''}`),
};
