// The overview's auditor cards: the newest ledger entries and adoption over the last 30 days.
import { useQuery } from '@tanstack/react-query';
import { Link } from 'wouter';
import { humanize } from '../../components/labels';
import { eventLabel, groupLedger } from '../../components/ledger-groups';
import { actorsOf, GroupToggle, useOpenGroups } from '../../components/ledger-group-view';
import { ColumnHeads, Empty, Loaded, When } from '../../components/ui';
import { Table, type Column } from '../../components/table';
import { adoptionQuery, adoptionRows, recentActivityQuery, recentEntries, type Adoption } from './queries';

export function RecentActivity() {
  const ledger = useQuery(recentActivityQuery());
  const groups = useOpenGroups();
  return (
    <section aria-labelledby="activity-title">
      <h2 id="activity-title">Recent activity</h2>
      <Loaded query={ledger}>
        {(page) =>
          page.entries.length === 0 ? (
            <Empty>The ledger is empty.</Empty>
          ) : (
            <table className="mp-table">
              <ColumnHeads columns={['When', 'Activity', 'Marketplace', 'Who']} />
              {groupLedger(page.entries)
                .slice(0, recentEntries)
                .map((group) => {
                  const { newest } = group;
                  const open = groups.isOpen(newest.id);
                  const many = group.entries.length > 1;
                  const rows = `activity-${String(newest.id)}`;
                  const where = (m: string) => (m === '-' ? <span className="muted">—</span> : m);
                  return (
                    <tbody key={newest.id} id={many ? rows : undefined}>
                      <tr>
                        <td>
                          <When at={newest.ts} />
                        </td>
                        <td>
                          {many ? (
                            <>
                              <Link href={`~/audit?before=${String(newest.id + 1)}`}>{group.title}</Link>
                              <GroupToggle
                                group={group}
                                open={open}
                                onToggle={() => groups.toggle(newest.id)}
                                controls={rows}
                              />
                            </>
                          ) : (
                            <Link href={`~/audit/entries/${String(newest.id)}`}>{group.title}</Link>
                          )}
                        </td>
                        <td>{where(newest.marketplace)}</td>
                        <td>{actorsOf(group)}</td>
                      </tr>
                      {open
                        ? group.entries.map((e) => (
                            <tr key={e.id} className="group-member">
                              <td>
                                <When at={e.ts} />
                              </td>
                              <td>
                                <Link href={`~/audit/entries/${String(e.id)}`}>{eventLabel(e.event)}</Link>
                              </td>
                              <td>{where(e.marketplace)}</td>
                              <td>
                                {e.principal} <span className="muted">({humanize(e.actorType)})</span>
                              </td>
                            </tr>
                          ))
                        : null}
                    </tbody>
                  );
                })}
            </table>
          )
        }
      </Loaded>
      <p>
        <Link href="~/audit">Open the ledger browser</Link>
      </p>
    </section>
  );
}

/** Share of a marketplace's fetches that took the commit served now. */
const currentShare = (a: Adoption): string => {
  const current = a.snapshots.filter((s) => s.current).reduce((n, s) => n + s.fetches, 0);
  return a.fetches === 0 ? '—' : `${Math.round((100 * current) / a.fetches)} %`;
};

const adoptionColumns: ReadonlyArray<Column<Adoption>> = [
  { head: 'Marketplace', names: true, cell: (a) => a.marketplace },
  { head: 'Fetches', cell: (a) => a.fetches },
  { head: 'Identities', cell: (a) => a.identities },
  { head: 'On the served commit', cell: currentShare },
  { head: 'Last fetch', cell: (a) => <When at={a.lastFetch} /> },
];

export function AdoptionGlance() {
  const adoption = useQuery(adoptionQuery());
  return (
    <section aria-labelledby="adoption-title">
      <h2 id="adoption-title">Adoption, last 30 days</h2>
      <Loaded query={adoption}>
        {(rows) => {
          if (rows.length === 0) return <Empty>No fetch through the git facade in the last 30 days.</Empty>;
          const top = [...rows].sort((a, b) => b.fetches - a.fetches).slice(0, adoptionRows);
          return <Table className="mp-table" rows={top} columns={adoptionColumns} rowKey={(a) => a.marketplace} />;
        }}
      </Loaded>
      <p>
        <Link href="~/audit/adoption">Adoption and staleness</Link>
      </p>
    </section>
  );
}
