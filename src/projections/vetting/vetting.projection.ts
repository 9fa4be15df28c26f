import { sql } from '../../adapters/postgres/pool.ts';
import { dispatch, statement } from '../runner/dispatch.ts';
import type { Projection } from '../runner/projection.ts';

/** Vetting runs, the chain's settings and the waivers (docs/vetting.md). */
export const vettingProjection: Projection = {
  name: 'vetting',
  version: 1,
  tables: ['vetting_runs', 'vetting_settings', 'vetter_toggles', 'waivers'],
  createSql: [
    `
    create table vetting_runs (
      run_id bigint primary key,
      snapshot_id bigint not null,
      marketplace_id bigint not null,
      sha text not null,
      trigger text not null,
      outcome text not null,
      mode text not null,
      started_at timestamptz not null,
      finished_at timestamptz not null,
      chain jsonb not null,
      verdicts jsonb not null
    )`,
    'create index vetting_runs_snapshot on vetting_runs (snapshot_id, run_id desc)',
    `create table vetting_settings (
      id int primary key,
      mode text not null,
      chain_order jsonb
    )`,
    // marketplace_id 0: the global setting of the vetter
    `create table vetter_toggles (
      vetter text not null,
      marketplace_id bigint not null,
      marketplace text,
      enabled boolean not null,
      reason text not null,
      changed_by text not null,
      changed_at timestamptz not null,
      primary key (vetter, marketplace_id)
    )`,
    `create table waivers (
      id bigint primary key,
      marketplace_id bigint not null,
      marketplace text not null,
      snapshot_id bigint not null,
      rule_id text not null,
      scope text not null,
      scope_value text not null,
      justification text not null,
      approved_by text not null,
      created_at timestamptz not null,
      expires_at timestamptz not null,
      revoked_at timestamptz,
      revoked_by text,
      lapse_recorded boolean not null default false
    )`,
    'create index waivers_marketplace on waivers (marketplace_id, id desc)',
  ],
  apply: dispatch({
    'vetting-completed': statement(
      (d) => sql.unsafe`
      insert into vetting_runs
        (run_id, snapshot_id, marketplace_id, sha, trigger, outcome, mode, started_at, finished_at, chain, verdicts)
      values (${d.runId}, ${d.snapshotId}, ${d.marketplaceId}, ${d.sha}, ${d.trigger}, ${d.outcome}, ${d.mode},
        ${d.startedAt}, ${d.finishedAt}, ${JSON.stringify(d.chain)}::jsonb, ${JSON.stringify(d.verdicts)}::jsonb)
      on conflict (run_id) do nothing`,
    ),
    'vetting-chain-mode-changed': statement(
      (d) => sql.unsafe`
      insert into vetting_settings (id, mode, chain_order) values (1, ${d.mode}, null)
      on conflict (id) do update set mode = excluded.mode`,
    ),
    'vetting-chain-order-changed': statement(
      (d) => sql.unsafe`
      insert into vetting_settings (id, mode, chain_order) values (1, 'run-all', ${JSON.stringify(d.order)}::jsonb)
      on conflict (id) do update set chain_order = excluded.chain_order`,
    ),
    'vetter-toggled': (tx, { data: d, metadata: meta }) =>
      tx.query(sql.unsafe`
      insert into vetter_toggles (vetter, marketplace_id, marketplace, enabled, reason, changed_by, changed_at)
      values (${d.vetter}, ${d.marketplaceId ?? 0}, ${d.marketplace}, ${d.enabled}, ${d.reason},
        ${meta.principal}, ${meta.at})
      on conflict (vetter, marketplace_id) do update set enabled = excluded.enabled, reason = excluded.reason,
        changed_by = excluded.changed_by, changed_at = excluded.changed_at`),
    // Per-marketplace toggles go with the marketplace (a name registered again starts afresh).
    'marketplace-removed': statement(
      (d) => sql.unsafe`
      delete from vetter_toggles where marketplace_id = ${d.marketplaceId}`,
    ),
    'waiver-created': statement(
      (d) => sql.unsafe`
      insert into waivers (id, marketplace_id, marketplace, snapshot_id, rule_id, scope, scope_value, justification,
        approved_by, created_at, expires_at)
      values (${d.waiverId}, ${d.marketplaceId}, ${d.marketplace}, ${d.snapshotId}, ${d.ruleId}, ${d.scope},
        ${d.scopeValue}, ${d.justification}, ${d.approvedBy}, ${d.createdAt}, ${d.expiresAt})`,
    ),
    'waiver-revoked': statement(
      (d) => sql.unsafe`
      update waivers set revoked_at = ${d.revokedAt}, revoked_by = ${d.revokedBy} where id = ${d.waiverId}`,
    ),
    'waiver-lapsed': statement(
      (d) => sql.unsafe`
      update waivers set lapse_recorded = true where id = ${d.waiverId}`,
    ),
  }),
};
