import { sql } from '../../adapters/postgres/pool.ts';
import { dispatch, statement } from '../runner/dispatch.ts';
import type { Projection } from '../runner/projection.ts';

export const marketplacesProjection: Projection = {
  name: 'marketplaces',
  version: 4,
  tables: ['marketplaces'],
  createSql: [
    `
    create table marketplaces (
      id bigint primary key,
      name text not null,
      origin text not null,
      url text,
      push_policy text,
      created_at timestamptz not null,
      registered_by text,
      removed_at timestamptz,
      removed_by text,
      removal_reason text,
      description text,
      upstream_updated_at timestamptz,
      last_ingest_at timestamptz,
      last_ingest_outcome text,
      last_ingest_reason text,
      sync_mode text not null default 'on-demand',
      webhook_secret text,
      selection jsonb
    )`,
    // a removed name is free again; only one live marketplace may hold it
    'create unique index marketplaces_live_name on marketplaces (name) where removed_at is null',
  ],
  apply: dispatch({
    'marketplace-registered': statement(
      (d) => sql.unsafe`
      insert into marketplaces (id, name, origin, url, push_policy, created_at, registered_by)
      values (${d.marketplaceId}, ${d.name}, ${d.origin}, ${d.url}, ${d.pushPolicy},
        ${d.registeredAt}, ${d.registeredBy})`,
    ),
    'marketplace-removed': statement(
      (d) => sql.unsafe`
      update marketplaces set removed_at = ${d.removedAt}, removed_by = ${d.removedBy}, removal_reason = ${d.reason}
      where id = ${d.marketplaceId}`,
    ),
    'sync-mode-changed': statement(
      (d) => sql.unsafe`
      update marketplaces set sync_mode = ${d.mode}, webhook_secret = ${d.sealedWebhookSecret}
      where id = ${d.marketplaceId}`,
    ),
    // Null when no selection is set or it was cleared: every plugin is served.
    'marketplace-selection-set': (tx, { data: d }) => {
      const cleared = d.include.length === 0 && d.exclude.length === 0;
      const selection = { include: d.include, exclude: d.exclude, setAt: d.setAt, setBy: d.setBy };
      return tx.query(sql.unsafe`
        update marketplaces set selection = ${cleared ? null : JSON.stringify(selection)}::jsonb
        where id = ${d.marketplaceId}`);
    },
    'snapshot-captured': statement(
      (d) => sql.unsafe`
      update marketplaces set description = coalesce(${d.description}, description),
        upstream_updated_at = coalesce(${d.committedAt}::timestamptz, upstream_updated_at)
      where id = ${d.marketplaceId}`,
    ),
    'ingest-succeeded': statement(
      (d) => sql.unsafe`
      update marketplaces set last_ingest_at = ${d.at}, last_ingest_outcome = 'succeeded', last_ingest_reason = null
      where id = ${d.marketplaceId}`,
    ),
    'ingest-failed': (tx, { data: d }) => {
      // lastIngestReason is set only on failure: reason, root cause and next step on one line.
      const reason = `${d.reason}; root cause: ${d.rootCause}; next step: ${d.nextStep}`.replace(/\s*\n\s*/g, ' ');
      return tx.query(sql.unsafe`
        update marketplaces set last_ingest_at = ${d.at}, last_ingest_outcome = 'failed', last_ingest_reason = ${reason}
        where id = ${d.marketplaceId}`);
    },
  }),
};
