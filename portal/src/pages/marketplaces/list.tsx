// The marketplace list: every live marketplace in one answer, filtered in the browser. With hundreds of
// marketplaces the first screen stays quick: the search text of each row is computed once per answer,
// the filter runs on a deferred value, and only the first rows are rendered until asked for more.
import { useQuery } from '@tanstack/react-query';
import { useDeferredValue, useMemo, useState } from 'react';
import { Link, useSearch } from 'wouter';
import { useSession } from '../../api/session';
import { humanize, labelFrom, marketplaceStatusLabels } from '../../components/labels';
import { badgeClass, ColumnHeads, Empty, Loaded, Page, Sha, StateBadge, When } from '../../components/ui';
import { RegisterMarketplace } from './register';
import {
  heldCount,
  marketplacesQuery,
  marketplaceStatus,
  originOf,
  type Marketplace,
  type MarketplaceStatus,
} from './queries';
import { Flash, readFlash } from './flash';

const pageSize = 100;

const plural = (n: number, noun: string): string => `${n} ${noun}${n === 1 ? '' : 's'}`;

type Row = Readonly<{ marketplace: Marketplace; held: number; status: MarketplaceStatus; haystack: string }>;

function rowsOf(marketplaces: readonly Marketplace[]): Row[] {
  return [...marketplaces]
    .sort((a, b) => a.name.localeCompare(b.name))
    .map((marketplace) => {
      const status = marketplaceStatus(marketplace);
      const words = labelFrom(marketplaceStatusLabels, status);
      return {
        marketplace,
        held: heldCount(marketplace),
        status,
        haystack:
          `${marketplace.name} ${marketplace.url ?? 'hosted'} ${marketplace.description} ${words}`.toLowerCase(),
      };
    });
}

/** Whether the last ingest attempt went wrong: failed, or captured its commit as rejected. */
const failing = (status: MarketplaceStatus) => status === 'ingest-failed' || status === 'ingest-rejected';

function MarketplaceRow({ row }: { row: Row }) {
  const m = row.marketplace;
  return (
    <tr>
      <th scope="row">
        <Link href={`/${m.name}`}>{m.name}</Link>
      </th>
      <td>
        <StateBadge state={row.status} label={labelFrom(marketplaceStatusLabels, row.status)} />
      </td>
      <td>{originOf(m) === 'hosted' ? 'Hosted' : <span className="mp-url">{m.url}</span>}</td>
      <td>
        <Sha sha={m.servedSha} />
      </td>
      <td>{humanize(m.syncMode)}</td>
      <td>
        {row.held > 0 ? <span className={badgeClass('held')}>{row.held} held</span> : <span className="muted">0</span>}
      </td>
      <td>
        <When at={m.lastIngestAt} />
        {failing(row.status) ? (
          <span className="mp-gap">
            <StateBadge state="failed" label={row.status === 'ingest-rejected' ? 'rejected' : 'failed'} />
          </span>
        ) : null}
      </td>
    </tr>
  );
}

function MarketplaceTable({ marketplaces }: { marketplaces: readonly Marketplace[] }) {
  const [filter, setFilter] = useState('');
  const [shown, setShown] = useState(pageSize);
  const deferred = useDeferredValue(filter.trim().toLowerCase());
  const rows = useMemo(() => rowsOf(marketplaces), [marketplaces]);
  const matching = useMemo(
    () => (deferred ? rows.filter((r) => r.haystack.includes(deferred)) : rows),
    [rows, deferred],
  );
  const visible = matching.slice(0, shown);
  if (rows.length === 0) return <Empty>No marketplace is registered yet.</Empty>;
  return (
    <>
      <div className="row mp-filter">
        <label htmlFor="marketplace-filter">Filter</label>
        <input
          id="marketplace-filter"
          type="search"
          value={filter}
          placeholder="name or URL"
          onChange={(e) => {
            setFilter(e.target.value);
            setShown(pageSize);
          }}
        />
        <span className="muted" role="status">
          {matching.length === rows.length
            ? plural(rows.length, 'marketplace')
            : `${matching.length} of ${plural(rows.length, 'marketplace')}`}
        </span>
      </div>
      {matching.length === 0 ? (
        <Empty>No marketplace matches “{filter}”.</Empty>
      ) : (
        <table className="mp-table">
          <caption className="mp-caption">
            Live marketplaces{visible.length < matching.length ? ` (first ${visible.length})` : ''}
          </caption>
          <ColumnHeads
            columns={['Name', 'Status', 'Upstream', 'Served commit', 'Sync', 'Waiting for review', 'Last ingest']}
          />
          <tbody>
            {visible.map((row) => (
              <MarketplaceRow key={row.marketplace.id} row={row} />
            ))}
          </tbody>
        </table>
      )}
      {visible.length < matching.length ? (
        <button type="button" className="secondary" onClick={() => setShown((n) => n + pageSize)}>
          Show {Math.min(pageSize, matching.length - visible.length)} more
        </button>
      ) : null}
    </>
  );
}

export function MarketplaceList() {
  const session = useSession();
  const search = useSearch();
  const list = useQuery(marketplacesQuery());
  // ?register opens the form at once (the overview's "Register your first marketplace").
  const [registering, setRegistering] = useState(() => new URLSearchParams(search).has('register'));
  const [flash] = useState(readFlash);
  return (
    <Page
      title="Marketplaces"
      actions={
        session.admin && !registering ? (
          <button type="button" onClick={() => setRegistering(true)}>
            Register a marketplace
          </button>
        ) : null
      }
    >
      <Flash flash={flash} />
      {session.admin && registering ? <RegisterMarketplace onCancel={() => setRegistering(false)} /> : null}
      <Loaded query={list}>{(marketplaces) => <MarketplaceTable marketplaces={marketplaces} />}</Loaded>
    </Page>
  );
}
