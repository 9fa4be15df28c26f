// The event store's own tables are the only ones with numbered migrations (read models are
// rebuilt from the events instead). Each migration runs once, in order, in its own transaction.
export type Migration = Readonly<{ version: number; name: string; statements: readonly string[] }>;

export const eventStoreMigrations: readonly Migration[] = [
  {
    version: 1,
    name: 'events table, append function, notification',
    statements: [
      `
create table es.events (
  position bigint primary key,
  event_id uuid not null unique,
  stream_id text not null,
  revision bigint not null,
  type text not null,
  data jsonb not null,
  metadata jsonb not null,
  recorded_at timestamptz not null default clock_timestamp(),
  unique (stream_id, revision)
)`,
      // `position > checkpoint` reads use the primary key; stream reads use the unique index.
      `
-- Appends are serialised by one transaction-scoped advisory lock, and positions are max+1 under
-- that lock. A position therefore commits only after every smaller one: a reader that reads
-- "position > checkpoint" can never skip an event that commits later, and positions have no gaps.
-- p_expected: -2 any, -1 no stream, n the revision of the last event.
create function es.append(p_stream text, p_expected bigint, p_events jsonb)
returns table (next_revision bigint, last_position bigint, current_revision bigint)
language plpgsql as $$
declare
  v_current bigint;
  v_position bigint;
  v_count int := jsonb_array_length(p_events);
begin
  perform pg_advisory_xact_lock(7306120431);
  select coalesce(max(e.revision), -1) into v_current from es.events e where e.stream_id = p_stream;
  if p_expected <> -2 and p_expected <> v_current then
    return query select null::bigint, null::bigint, v_current;
    return;
  end if;
  select coalesce(max(e.position), 0) into v_position from es.events e;
  insert into es.events (position, event_id, stream_id, revision, type, data, metadata)
  select v_position + x.ord, (x.ev->>'id')::uuid, p_stream, v_current + x.ord, x.ev->>'type', x.ev->'data', x.ev->'metadata'
  from jsonb_array_elements(p_events) with ordinality as x(ev, ord);
  perform pg_notify('es_events', (v_position + v_count)::text);
  return query select v_current + v_count, v_position + v_count, v_current + v_count;
end $$`,
    ],
  },
  {
    version: 2,
    name: 'id allocator outside the rebuilt read models',
    // Ids are decided before decide() and written into the creating event; this counter is not a
    // read model, so a rebuild never resets it.
    statements: ['create table es.id_counters (kind text primary key, value bigint not null)'],
  },
  {
    version: 3,
    name: 'grouped appends (one lock, one commit, one WAL flush for many appends)',
    // Concurrent appends queued in one process go out as one call: each is checked against its own
    // expected revision and applied in order, as if appended one after another; a conflicting one is
    // skipped and reported while the others commit. Order and gap-free positions are unchanged.
    statements: [
      `
create function es.append_many(p_appends jsonb)
returns table (ord int, next_revision bigint, last_position bigint, current_revision bigint)
language plpgsql as $$
declare
  v_append jsonb;
  v_index int := 0;
  v_stream text;
  v_expected bigint;
  v_current bigint;
  v_position bigint;
  v_count int;
begin
  perform pg_advisory_xact_lock(7306120431);
  select coalesce(max(e.position), 0) into v_position from es.events e;
  for v_append in select value from jsonb_array_elements(p_appends) loop
    v_index := v_index + 1;
    v_stream := v_append->>'stream';
    v_expected := (v_append->>'expected')::bigint;
    v_count := jsonb_array_length(v_append->'events');
    select coalesce(max(e.revision), -1) into v_current from es.events e where e.stream_id = v_stream;
    if v_expected <> -2 and v_expected <> v_current then
      ord := v_index; next_revision := null; last_position := null; current_revision := v_current;
      return next;
      continue;
    end if;
    insert into es.events (position, event_id, stream_id, revision, type, data, metadata)
    select v_position + x.ord, (x.ev->>'id')::uuid, v_stream, v_current + x.ord, x.ev->>'type', x.ev->'data', x.ev->'metadata'
    from jsonb_array_elements(v_append->'events') with ordinality as x(ev, ord);
    v_position := v_position + v_count;
    ord := v_index; next_revision := v_current + v_count; last_position := v_position; current_revision := v_current + v_count;
    return next;
  end loop;
  perform pg_notify('es_events', v_position::text);
end $$`,
    ],
  },
];
