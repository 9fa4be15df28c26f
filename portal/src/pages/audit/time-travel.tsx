// Time travel (docs/audit-time-travel.md): pick an instant and see what each marketplace and the catalog
// served then, from the recorded events; open a served snapshot to see who had fetched it by that instant.
// The instant is in the address (`?at=`), so an answer can be linked.
import { useQuery } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Link, useLocation, useSearch } from 'wouter';
import { humanize } from '../../components/labels';
import { ColumnHeads, Empty, Loaded, Page, Sha, When } from '../../components/ui';
import { Table, type Column } from '../../components/table';
import { credentialKinds } from './entry';
import { instantOfInput, localInput } from './ledger-filter';
import { holdersQuery, servedQuery, type HoldersAt, type ServedAt } from './queries';
import { AuditTabs } from './tabs';

type Served = ServedAt['marketplaces'][number];

const timeTravelHref = (at: string | null) =>
  at ? `/time-travel?${new URLSearchParams({ at }).toString()}` : '/time-travel';

function readAt(search: string): string | null {
  const at = new URLSearchParams(search).get('at');
  return at !== null && !Number.isNaN(Date.parse(at)) ? new Date(at).toISOString() : null;
}

function InstantForm({ at }: { at: string | null }) {
  const [, navigate] = useLocation();
  const [value, setValue] = useState(localInput(at));
  const submit = (event: FormEvent) => {
    event.preventDefault();
    navigate(timeTravelHref(instantOfInput(value, true)));
  };
  return (
    <form className="row" onSubmit={submit} aria-label="Choose an instant">
      <label htmlFor="travel-at">Instant ({Intl.DateTimeFormat().resolvedOptions().timeZone})</label>
      <input
        id="travel-at"
        type="datetime-local"
        step={1}
        required
        value={value}
        onChange={(e) => setValue(e.target.value)}
      />
      <button type="submit">Show</button>
      {at ? <Link href={timeTravelHref(null)}>Now</Link> : null}
    </form>
  );
}

type Holder = HoldersAt['holders'][number];

const holderColumns: ReadonlyArray<Column<Holder>> = [
  { head: 'Principal', names: true, cell: (h) => h.principal },
  { head: 'Fetches', cell: (h) => h.fetches },
  { head: 'First fetch', cell: (h) => <When at={h.firstFetch} /> },
  { head: 'Last fetch', cell: (h) => <When at={h.lastFetch} /> },
  {
    head: 'Through',
    cell: (h) => h.via.map((via) => (via === 'catalog' ? 'the catalog' : 'its marketplace')).join(', '),
  },
  {
    head: 'Credentials',
    cell: (h) => h.credentialKinds.map((kind) => credentialKinds[kind] ?? humanize(kind)).join(', '),
  },
];

function Holders({ answer }: { answer: HoldersAt }) {
  return (
    <Table
      rows={answer.holders}
      columns={holderColumns}
      rowKey={(h) => h.principal}
      empty="Nobody had fetched this commit by then (a ref listing transfers nothing and is not counted)."
    />
  );
}

function HoldersRow({ served, at }: { served: Served & { snapshotId: number }; at: string }) {
  const query = useQuery(holdersQuery(served.snapshotId, at));
  return (
    <tr className="group-member" id={`holders-${String(served.snapshotId)}`}>
      <td colSpan={5}>
        <h3 className="audit-holders-title">
          Who had fetched {served.marketplace} snapshot {served.snapshotId} by then
        </h3>
        <Loaded query={query}>{(answer) => <Holders answer={answer} />}</Loaded>
      </td>
    </tr>
  );
}

function ServedRow({ served, at }: { served: Served; at: string }) {
  const [open, setOpen] = useState(false);
  const snapshotId = served.snapshotId;
  return (
    <tbody>
      <tr>
        <th scope="row">{served.marketplace}</th>
        <td>{served.sha ? <Sha sha={served.sha} /> : <span className="muted">nothing served</span>}</td>
        <td>{snapshotId === null ? <span className="muted">—</span> : `#${String(snapshotId)}`}</td>
        <td>{served.since ? <When at={served.since} /> : <span className="muted">never served</span>}</td>
        <td>
          {snapshotId === null ? null : (
            <button
              type="button"
              className="secondary"
              aria-expanded={open}
              aria-controls={open ? `holders-${String(snapshotId)}` : undefined}
              onClick={() => setOpen(!open)}
            >
              {open ? 'Hide holders' : 'Who had it'}
              <span className="visually-hidden"> ({served.marketplace})</span>
            </button>
          )}
        </td>
      </tr>
      {open && snapshotId !== null ? <HoldersRow served={{ ...served, snapshotId }} at={at} /> : null}
    </tbody>
  );
}

function Answer({ answer }: { answer: ServedAt }) {
  const { catalog } = answer;
  return (
    <section aria-labelledby="served-title">
      <h2 id="served-title">
        Served at <When at={answer.at} />
      </h2>
      <p>
        {catalog === null ? (
          'The catalog had no revision yet.'
        ) : (
          <>
            The catalog (<code>{catalog.name}</code>) served{' '}
            {catalog.sha ? <Sha sha={catalog.sha} /> : 'nothing (withdrawn)'} since <When at={catalog.since} />.
          </>
        )}
      </p>
      {answer.marketplaces.length === 0 ? (
        <Empty>No marketplace was registered then.</Empty>
      ) : (
        <table>
          <ColumnHeads columns={['Marketplace', 'Served commit', 'Snapshot', 'Since', 'Holders']} />
          {answer.marketplaces.map((served) => (
            <ServedRow key={served.marketplaceId} served={served} at={answer.at} />
          ))}
        </table>
      )}
    </section>
  );
}

export function TimeTravelPage() {
  const at = readAt(useSearch());
  const query = useQuery(servedQuery(at));
  return (
    <Page title="Time travel">
      <AuditTabs />
      <p>
        What each marketplace and the catalog served at an instant, and who had fetched a served snapshot by then,
        answered from the recorded events.
      </p>
      <InstantForm key={at ?? 'now'} at={at} />
      <Loaded query={query}>{(answer) => <Answer answer={answer} />}</Loaded>
    </Page>
  );
}
