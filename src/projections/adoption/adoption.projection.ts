// Adoption (docs/audit-time-travel.md): who fetched what through the facade, kept as small aggregates so a report over
// any window of 1..365 days reads a few thousand rows, never the ledger. Only upload-pack counts (a ref advertisement
// transfers no content); one fetch per wanted object, as the ledger has one entry per want.
import { sql } from '../../adapters/postgres/pool.ts';
import type { Projection } from '../runner/projection.ts';
import { asDomainEvent } from '../runner/dispatch.ts';

/** One upload-pack ledger entry's worth: a wanted object of a marketplace (or the catalog, by name). */
type Want = Readonly<{ marketplace: string; sha: string; principal: string; ts: string; position: string }>;

/** The latest fetch of a marketplace by one principal: its wants, the one on main first. */
type Latest = Readonly<{
  marketplace: string;
  principal: string;
  ts: string;
  position: string;
  shas: readonly string[];
}>;

function wantsOf(events: Parameters<Projection['apply']>[1]): { wants: Want[]; latest: Latest[] } {
  const wants: Want[] = [];
  const latest = new Map<string, Latest>();
  for (const recorded of events) {
    const event = asDomainEvent(recorded);
    if (event?.type !== 'upload-pack' || event.data.wants.length === 0) continue;
    const { marketplace } = event.data;
    const principal = recorded.metadata.principal;
    const ts = recorded.recordedAt;
    const position = recorded.position.toString();
    for (const want of event.data.wants) wants.push({ marketplace, sha: want.sha, principal, ts, position });
    const onMain = event.data.wants.filter((w) => w.ref === 'refs/heads/main').map((w) => w.sha);
    const shas = [...new Set([...onMain, ...event.data.wants.map((w) => w.sha)])];
    // Events come in global order: a later one of the same pair replaces the earlier.
    latest.set(`${marketplace}\n${principal}`, { marketplace, principal, ts, position, shas });
  }
  return { wants, latest: [...latest.values()] };
}

export const adoptionProjection: Projection = {
  name: 'adoption',
  version: 1,
  tables: ['adoption_daily', 'adoption_snapshot_fetchers', 'adoption_identity_days', 'adoption_latest'],
  createSql: [
    // Fetch counts per snapshot and UTC day (no principal: the window sums stay small).
    `
    create table adoption_daily (
      marketplace text not null,
      sha text not null,
      day date not null,
      fetches bigint not null,
      last_fetch timestamptz not null,
      primary key (marketplace, sha, day)
    )`,
    'create index adoption_daily_day on adoption_daily (day)',
    // A principal is among a snapshot's identities in a window when its latest fetch of it is inside.
    `
    create table adoption_snapshot_fetchers (
      marketplace text not null,
      sha text not null,
      principal text not null,
      last_fetch timestamptz not null,
      primary key (marketplace, sha, principal)
    )`,
    // How many principals fetched a snapshot last on each UTC day: a window's identities are a sum over
    // its days (each principal is on exactly one day, that of its latest fetch), not a count of principals.
    `
    create table adoption_identity_days (
      marketplace text not null,
      sha text not null,
      day date not null,
      identities bigint not null,
      primary key (marketplace, sha, day)
    )`,
    'create index adoption_identity_days_day on adoption_identity_days (day)',
    // The latest fetch per marketplace and principal: the marketplace's identities, and staleness.
    `
    create table adoption_latest (
      marketplace text not null,
      principal text not null,
      last_fetch timestamptz not null,
      position bigint not null,
      shas text[] not null,
      primary key (marketplace, principal)
    )`,
    'create index adoption_latest_last on adoption_latest (last_fetch)',
  ],
  eventTypes: new Set(['upload-pack']),
  async apply(tx, events) {
    const { wants, latest } = wantsOf(events);
    if (wants.length === 0) return;
    const json = JSON.stringify(wants);
    await tx.query(sql.unsafe`
      insert into adoption_daily (marketplace, sha, day, fetches, last_fetch)
      select marketplace, sha, (ts at time zone 'UTC')::date, count(*), max(ts)
      from jsonb_to_recordset(${json}::jsonb) as x(marketplace text, sha text, ts timestamptz)
      group by 1, 2, 3
      on conflict (marketplace, sha, day) do update
        set fetches = adoption_daily.fetches + excluded.fetches,
            last_fetch = greatest(adoption_daily.last_fetch, excluded.last_fetch)`);
    // Before the last fetches move: each principal leaves the day of its previous last fetch for the new one.
    await tx.query(sql.unsafe`
      with incoming as (
        select marketplace, sha, principal, max(ts) as ts
        from jsonb_to_recordset(${json}::jsonb) as x(marketplace text, sha text, principal text, ts timestamptz)
        group by 1, 2, 3
      ), moves as (
        select i.marketplace, i.sha, (f.last_fetch at time zone 'UTC')::date as old_day,
          (greatest(i.ts, f.last_fetch) at time zone 'UTC')::date as new_day
        from incoming i
        left join adoption_snapshot_fetchers f using (marketplace, sha, principal)
      ), deltas as (
        select marketplace, sha, new_day as day, 1 as delta from moves
        union all
        select marketplace, sha, old_day, -1 from moves where old_day is not null
      )
      insert into adoption_identity_days (marketplace, sha, day, identities)
      select marketplace, sha, day, sum(delta) from deltas group by 1, 2, 3 having sum(delta) <> 0
      on conflict (marketplace, sha, day) do update
        set identities = adoption_identity_days.identities + excluded.identities`);
    await tx.query(sql.unsafe`
      insert into adoption_snapshot_fetchers (marketplace, sha, principal, last_fetch)
      select marketplace, sha, principal, max(ts)
      from jsonb_to_recordset(${json}::jsonb) as x(marketplace text, sha text, principal text, ts timestamptz)
      group by 1, 2, 3
      on conflict (marketplace, sha, principal) do update
        set last_fetch = greatest(adoption_snapshot_fetchers.last_fetch, excluded.last_fetch)`);
    await tx.query(sql.unsafe`
      insert into adoption_latest (marketplace, principal, last_fetch, position, shas)
      select marketplace, principal, ts, position, array(select jsonb_array_elements_text(shas))
      from jsonb_to_recordset(${JSON.stringify(latest)}::jsonb)
        as x(marketplace text, principal text, ts timestamptz, position bigint, shas jsonb)
      on conflict (marketplace, principal) do update
        set last_fetch = excluded.last_fetch, position = excluded.position, shas = excluded.shas
        where adoption_latest.position < excluded.position`);
  },
};
