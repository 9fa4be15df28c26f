// Adoption and staleness (docs/audit-time-travel.md: GET /api/v1/adoption?days=, only marketplaces fetched in
// the window, upload-pack entries only; GET /api/v1/adoption/staleness, window-free): per
// marketplace a bar chart of fetches per snapshot with the numbers in a table.
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { ColumnHeads, Empty, Loaded, Page, Sha, shortSha, When } from '../../components/ui';
import { BarChart } from './bar-chart';
import { adoptionQuery, stalenessQuery, type Adoption, type Stale } from './queries';
import { AuditTabs } from './tabs';

const windows = [7, 30, 90, 365] as const;

const plural = (n: number, one: string, many = `${one}s`) => `${n.toLocaleString('en')} ${n === 1 ? one : many}`;

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
      <table>
        <ColumnHeads columns={['Commit', 'Served now', 'Fetches', 'Identities', 'Last fetch']} />
        <tbody>
          {entry.snapshots.map((s) => (
            <tr key={s.sha}>
              <td>
                <Sha sha={s.sha} />
              </td>
              <td>{s.current ? 'yes' : 'no'}</td>
              <td>{s.fetches}</td>
              <td>{s.identities}</td>
              <td>
                <When at={s.lastFetch} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

function Staleness({ stale }: { stale: readonly Stale[] }) {
  if (stale.length === 0) return <Empty>Every identity&apos;s latest fetch took the served commit.</Empty>;
  return (
    <table>
      <ColumnHeads columns={['Identity', 'Marketplace', 'Took', 'Served now', 'Last fetch']} />
      <tbody>
        {stale.map((s) => (
          <tr key={`${s.principal}/${s.marketplace}`}>
            <td>{s.principal}</td>
            <td>{s.marketplace}</td>
            <td>
              <Sha sha={s.sha} />
            </td>
            <td>{s.servedSha ? <Sha sha={s.servedSha} /> : <span className="muted">no longer serving</span>}</td>
            <td>
              <When at={s.lastFetch} />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

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
          {windows.map((d) => (
            <option key={d} value={d}>
              last {d} days
            </option>
          ))}
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
      <Loaded query={staleness}>{(stale) => <Staleness stale={stale} />}</Loaded>
    </Page>
  );
}
