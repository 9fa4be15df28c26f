// Adoption and staleness (docs/audit-time-travel.md: GET /api/v1/adoption?days=, only marketplaces fetched in
// the window, upload-pack entries only; GET /api/v1/adoption/staleness, window-free): per
// marketplace a bar chart of fetches per snapshot with the numbers in a table.
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Empty, Loaded, Options, Page, Sha, shortSha, When } from '../../components/ui';
import { Table, type Column } from '../../components/table';
import { BarChart } from './bar-chart';
import { adoptionQuery, stalenessQuery, type Adoption, type Stale } from './queries';
import { AuditTabs } from './tabs';

const windows = [7, 30, 90, 365] as const;

const plural = (n: number, one: string, many = `${one}s`) => `${n.toLocaleString('en')} ${n === 1 ? one : many}`;

const snapshotColumns: ReadonlyArray<Column<Adoption['snapshots'][number]>> = [
  { head: 'Commit', cell: (s) => <Sha sha={s.sha} /> },
  { head: 'Served now', cell: (s) => (s.current ? 'yes' : 'no') },
  { head: 'Fetches', cell: (s) => s.fetches },
  { head: 'Identities', cell: (s) => s.identities },
  { head: 'Last fetch', cell: (s) => <When at={s.lastFetch} /> },
];

function MarketplaceAdoption({ entry, days }: { entry: Adoption; days: number }) {
  const summary =
    `${entry.marketplace}: ${plural(entry.fetches, 'fetch', 'fetches')} by ${plural(entry.identities, 'identity', 'identities')} ` +
    `in ${plural(days, 'day')}; ` +
    entry.snapshots
      .map((s) => `${shortSha(s.sha)}${s.current ? ' (served)' : ''} ${plural(s.fetches, 'fetch', 'fetches')}`)
      .join(', ');
  const headingId = `adoption-${entry.marketplace}`;
  return (
    <section className="card audit-item" aria-labelledby={headingId}>
      <h3 id={headingId}>{entry.marketplace}</h3>
      <p>
        {plural(entry.fetches, 'fetch', 'fetches')} by {plural(entry.identities, 'identity', 'identities')}; last{' '}
        <When at={entry.lastFetch} />. Served now:{' '}
        {entry.servedSha ? <Sha sha={entry.servedSha} /> : <span>nothing (no longer serving)</span>}
      </p>
      <BarChart
        summary={summary}
        bars={entry.snapshots.map((s) => ({ label: shortSha(s.sha), value: s.fetches, highlight: s.current }))}
      />
      <Table rows={entry.snapshots} columns={snapshotColumns} rowKey={(s) => s.sha} />
    </section>
  );
}

const staleColumns: ReadonlyArray<Column<Stale>> = [
  { head: 'Identity', cell: (s) => s.principal },
  { head: 'Marketplace', cell: (s) => s.marketplace },
  { head: 'Took', cell: (s) => <Sha sha={s.sha} /> },
  {
    head: 'Served now',
    cell: (s) => (s.servedSha ? <Sha sha={s.servedSha} /> : <span className="muted">no longer serving</span>),
  },
  { head: 'Last fetch', cell: (s) => <When at={s.lastFetch} /> },
];

export function AdoptionPage() {
  const [days, setDays] = useState(30);
  const adoption = useQuery(adoptionQuery(days));
  const staleness = useQuery(stalenessQuery());
  return (
    <Page title="Adoption">
      <AuditTabs />
      <div className="row">
        <label htmlFor="adoption-days">Window</label>
        <select id="adoption-days" value={days} onChange={(e) => setDays(Number(e.target.value))}>
          <Options values={windows} label={(d) => `last ${String(d)} days`} />
        </select>
        <span className="muted">Content-transferring fetches (upload-pack) through the facade.</span>
      </div>
      <h2>Fetches per marketplace</h2>
      <Loaded query={adoption}>
        {(entries) =>
          entries.length === 0 ? (
            <Empty>Nothing was fetched in the last {days} days.</Empty>
          ) : (
            <div className="audit-adoption">
              {entries.map((entry) => (
                <MarketplaceAdoption key={entry.marketplace} entry={entry} days={days} />
              ))}
            </div>
          )
        }
      </Loaded>
      <h2>Stale identities</h2>
      <p className="muted">Identities whose latest fetch of a marketplace was not the commit it serves now.</p>
      <Loaded query={staleness}>
        {(stale) => (
          <Table
            rows={stale}
            columns={staleColumns}
            rowKey={(s) => `${s.principal}/${s.marketplace}`}
            empty="Every identity's latest fetch took the served commit."
          />
        )}
      </Loaded>
    </Page>
  );
}
