// Time travel (docs/audit-time-travel.md): what the gateway served and who fetched what, as histories keyed by the
// instant each event was recorded (the ledger's ts), so "at T" is a read of the rows recorded by T. Every
// row is derived from one event; a rebuild replays the same events and writes the same rows.
import { sql, type DatabaseTransactionConnection } from '../../adapters/postgres/pool.ts';
import type { Projection } from '../runner/projection.ts';
import { dispatch, typesHandledBy, type Recorded } from '../runner/dispatch.ts';

/** One wanted commit of one upload-pack event (several wants of one commit in one event count once). */
type FetchRow = Readonly<{
  position: string;
  ts: string;
  marketplace_id: number | null;
  marketplace: string;
  sha: string;
  principal: string;
  credential_kind: string;
}>;

type Batch = { readonly tx: DatabaseTransactionConnection; readonly fetches: FetchRow[] };

const position = (event: Recorded) => event.position.toString();

/** A change of what a marketplace (marketplace_id) or the catalog (marketplace_id null) serves at refs/heads/main. */
const served = (
  tx: DatabaseTransactionConnection,
  event: Recorded,
  change: { marketplaceId: number | null; marketplace: string; sha: string | null; snapshotId: number | null },
) =>
  tx.query(sql.unsafe`
    insert into time_travel_served (position, ts, marketplace_id, marketplace, sha, snapshot_id)
    values (${position(event)}, ${event.recordedAt}, ${change.marketplaceId}, ${change.marketplace}, ${change.sha},
      ${change.snapshotId})`);

const handle = dispatch<Batch>({
  'marketplace-registered': ({ tx }, event) =>
    tx.query(sql.unsafe`
      insert into time_travel_marketplaces (marketplace_id, name, registered_at, removed_at)
      values (${event.data.marketplaceId}, ${event.data.name}, ${event.recordedAt}, null)
      on conflict (marketplace_id) do nothing`),
  'marketplace-removed': async ({ tx }, event) => {
    await tx.query(sql.unsafe`
      update time_travel_marketplaces set removed_at = ${event.recordedAt}
      where marketplace_id = ${event.data.marketplaceId}`);
    // A removal leaves the marketplace unserved.
    const { marketplaceId, name } = event.data;
    await served(tx, event, { marketplaceId, marketplace: name, sha: null, snapshotId: null });
  },
  'snapshot-captured': ({ tx }, event) =>
    tx.query(sql.unsafe`
      insert into time_travel_snapshots (snapshot_id, marketplace_id, marketplace, sha, captured_at)
      values (${event.data.snapshotId}, ${event.data.marketplaceId}, ${event.data.marketplace}, ${event.data.sha},
        ${event.recordedAt})
      on conflict (snapshot_id) do nothing`),
  // The served SHA changes only on approval (docs/facade.md).
  'snapshot-approved': ({ tx }, event) => {
    const { marketplaceId, marketplace, sha, snapshotId } = event.data;
    return served(tx, event, { marketplaceId, marketplace, sha, snapshotId });
  },
  // Revoking the tip removes refs/heads/main (nothing is served until the next approval); revoking a
  // superseded snapshot leaves the tip alone.
  'snapshot-revoked': async ({ tx }, event) => {
    const { marketplaceId, marketplace, snapshotId } = event.data;
    const tip = await tx.maybeOneFirst(sql.unsafe`
      select snapshot_id from time_travel_served where marketplace_id = ${marketplaceId}
      order by position desc limit 1`);
    if (tip !== null && Number(tip) === snapshotId)
      await served(tx, event, { marketplaceId, marketplace, sha: null, snapshotId: null });
  },
  'catalog-rebuilt': async ({ tx }, event) => {
    const { catalog, sha, constituents } = event.data;
    await served(tx, event, { marketplaceId: null, marketplace: catalog, sha, snapshotId: null });
    if (sha === null || constituents.length === 0) return;
    // A constituent names a marketplace: the one live under that name when the revision was built.
    await tx.query(sql.unsafe`
      insert into time_travel_catalog_constituents (catalog_sha, marketplace_id, sha)
      select ${sha}, m.marketplace_id, x.sha
      from jsonb_to_recordset(${JSON.stringify(constituents)}::jsonb) as x(marketplace text, sha text)
      join time_travel_marketplaces m on m.name = x.marketplace and m.removed_at is null
      on conflict do nothing`);
  },
  'upload-pack': (batch, event) => {
    const { marketplaceId, marketplace, wants, credentialKind } = event.data;
    for (const sha of new Set(wants.map((want) => want.sha)))
      batch.fetches.push({
        position: position(event),
        ts: event.recordedAt,
        marketplace_id: marketplaceId,
        marketplace,
        sha,
        principal: event.metadata.principal,
        credential_kind: credentialKind,
      });
  },
});

export const timeTravelProjection: Projection = {
  name: 'time-travel',
  version: 2,
  tables: [
    'time_travel_marketplaces',
    'time_travel_served',
    'time_travel_snapshots',
    'time_travel_fetches',
    'time_travel_catalog_constituents',
  ],
  createSql: [
    `create table time_travel_marketplaces (
      marketplace_id bigint primary key,
      name text not null,
      registered_at timestamptz not null,
      removed_at timestamptz
    )`,
    `create table time_travel_served (
      position bigint not null,
      ts timestamptz not null,
      marketplace_id bigint,
      marketplace text not null,
      sha text,
      snapshot_id bigint
    )`,
    'create index time_travel_served_marketplace on time_travel_served (marketplace_id, position)',
    // the catalog's revisions (served?at= reads the last one before an instant)
    'create index time_travel_served_catalog on time_travel_served (position) where marketplace_id is null',
    `create table time_travel_snapshots (
      snapshot_id bigint primary key,
      marketplace_id bigint not null,
      marketplace text not null,
      sha text not null,
      captured_at timestamptz not null
    )`,
    `create table time_travel_fetches (
      position bigint not null,
      ts timestamptz not null,
      marketplace_id bigint,
      marketplace text not null,
      sha text not null,
      principal text not null,
      credential_kind text not null
    )`,
    'create index time_travel_fetches_sha on time_travel_fetches (sha, marketplace)',
    `create table time_travel_catalog_constituents (
      catalog_sha text not null,
      marketplace_id bigint not null,
      sha text not null,
      primary key (marketplace_id, sha, catalog_sha)
    )`,
  ],
  eventTypes: typesHandledBy(handle),
  async apply(tx, events) {
    const batch: Batch = { tx, fetches: [] };
    await handle(batch, events);
    if (batch.fetches.length === 0) return;
    await tx.query(sql.unsafe`
      insert into time_travel_fetches
      select * from jsonb_to_recordset(${JSON.stringify(batch.fetches)}::jsonb) as x(
        position bigint, ts timestamptz, marketplace_id bigint, marketplace text, sha text, principal text,
        credential_kind text)`);
  },
};
