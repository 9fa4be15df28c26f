import { sql } from '../../adapters/postgres/pool.ts';
import { dispatch, statement } from '../runner/dispatch.ts';
import type { Projection } from '../runner/projection.ts';

export const snapshotsProjection: Projection = {
  name: 'snapshots',
  version: 7,
  tables: ['snapshots', 'served_tips', 'purged_snapshots'],
  createSql: [
    `
    create table snapshots (
      id bigint primary key,
      marketplace_id bigint not null,
      sha text not null,
      upstream_sha text not null,
      state text not null,
      violation text,
      created_at timestamptz not null,
      ingested_by text,
      decided_by text,
      decided_at timestamptz,
      decision_reason text,
      approved_at timestamptz,
      revoked_by text,
      revoked_at timestamptz,
      revoke_reason text,
      administrative boolean not null default false,
      was_revoked boolean not null default false,
      deleted_at timestamptz,
      deleted_reason text,
      purge_after timestamptz,
      unresolved json not null default '[]',
      left_out json not null default '[]'
    )`,
    'create index snapshots_marketplace on snapshots (marketplace_id, id)',
    'create index snapshots_sha on snapshots (sha)',
    // the snapshot each marketplace means to serve at refs/heads/main (publication converges to it)
    'create table served_tips (marketplace_id bigint primary key, snapshot_id bigint not null)',
    // A purge deletes the row; what stays says where it was (a restore answers 409, not 404)
    `create table purged_snapshots (
      id bigint primary key,
      marketplace_id bigint not null,
      sha text not null,
      purged_at timestamptz not null
    )`,
  ],
  apply: dispatch({
    'snapshot-captured': statement(
      (d) => sql.unsafe`
      insert into snapshots (id, marketplace_id, sha, upstream_sha, state, violation, created_at, ingested_by, unresolved,
        left_out)
      values (${d.snapshotId}, ${d.marketplaceId}, ${d.sha}, ${d.upstreamSha}, ${d.state}, ${d.violation},
        ${d.capturedAt}, ${d.ingestedBy}, ${JSON.stringify(d.unresolved ?? [])}::json,
        ${JSON.stringify(d.leftOut ?? [])}::json)`,
    ),
    'snapshot-approved': async (tx, { data: d }) => {
      await tx.query(sql.unsafe`
        update snapshots set state = 'approved', decided_by = ${d.approvedBy}, decided_at = ${d.approvedAt},
          decision_reason = ${d.overrideReason}, approved_at = ${d.approvedAt}, revoked_by = null, revoked_at = null,
          revoke_reason = null
        where id = ${d.snapshotId}`);
      await tx.query(sql.unsafe`
        insert into served_tips (marketplace_id, snapshot_id) values (${d.marketplaceId}, ${d.snapshotId})
        on conflict (marketplace_id) do update set snapshot_id = excluded.snapshot_id`);
    },
    'snapshot-rejected': statement(
      (d) => sql.unsafe`
      update snapshots set state = 'rejected', decided_by = ${d.rejectedBy}, decided_at = ${d.rejectedAt},
        decision_reason = ${d.reason ?? null}
      where id = ${d.snapshotId}`,
    ),
    'snapshot-revoked': async (tx, { data: d }) => {
      await tx.query(sql.unsafe`
        update snapshots set state = 'revoked', revoked_by = ${d.revokedBy}, revoked_at = ${d.revokedAt},
          revoke_reason = ${d.reason}, violation = ${d.administrative ? null : d.reason},
          administrative = ${d.administrative}, was_revoked = true
        where id = ${d.snapshotId}`);
      // Revoking the tip removes refs/heads/main; it does not move back (docs/facade.md).
      await tx.query(sql.unsafe`
        delete from served_tips where marketplace_id = ${d.marketplaceId} and snapshot_id = ${d.snapshotId}`);
    },
    'snapshot-soft-deleted': statement(
      (d) => sql.unsafe`
      update snapshots set deleted_at = ${d.deletedAt}, deleted_reason = ${d.reason}, purge_after = ${d.purgeAfter}
      where id = ${d.snapshotId}`,
    ),
    'snapshot-restored': statement(
      (d) => sql.unsafe`
      update snapshots set deleted_at = null, deleted_reason = null, purge_after = null where id = ${d.snapshotId}`,
    ),
    'snapshot-purged': async (tx, { data: d }) => {
      // The trace also marks a withdrawn row purged, so compaction does not select it again.
      await tx.query(sql.unsafe`
        insert into purged_snapshots (id, marketplace_id, sha, purged_at)
        values (${d.snapshotId}, ${d.marketplaceId}, ${d.sha}, ${d.purgedAt}) on conflict (id) do nothing`);
      // A withdrawn snapshot's row is never removed (docs/retention.md); only its content is reclaimed.
      if (!d.withdrawn) await tx.query(sql.unsafe`delete from snapshots where id = ${d.snapshotId}`);
    },
  }),
};
