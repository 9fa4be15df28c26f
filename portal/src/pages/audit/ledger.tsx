// The ledger browser (GET /api/v1/audit, docs/audit.md: newest first, paged by ledger sequence, not
// offset): one page request per screen, the marketplace filter and the position in the address (so a
// screen can be linked and the browser's back button pages newer), and the NDJSON export.
import { useQuery } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Link, useLocation, useSearch } from 'wouter';
import { Empty, Loaded, Page, Sha, When } from '../../components/ui';
import { ExportPanel } from './export';
import {
  defaultLedgerPageSize,
  ledgerPageSizes,
  ledgerQuery,
  sendEarly,
  type LedgerEntry,
  type LedgerPage as Ledger,
} from './queries';
import { AuditTabs } from './tabs';

/** The browser's address for a screen: ~/audit with the filter, position and screen size that are set. */
export function ledgerHref(marketplace: string | null, before = 0, limit = defaultLedgerPageSize): string {
  const query = new URLSearchParams();
  if (marketplace) query.set('marketplace', marketplace);
  if (before > 0) query.set('before', String(before));
  if (limit !== defaultLedgerPageSize) query.set('limit', String(limit));
  const search = query.toString();
  return `~/audit${search ? `?${search}` : ''}`;
}

type Position = Readonly<{ marketplace: string | null; before: number; limit: number }>;

function readSearch(search: string): Position {
  const query = new URLSearchParams(search);
  const before = Number(query.get('before') ?? 0);
  const limit = Number(query.get('limit') ?? defaultLedgerPageSize);
  return {
    marketplace: query.get('marketplace') || null,
    before: Number.isSafeInteger(before) && before > 0 ? before : 0,
    limit: (ledgerPageSizes as readonly number[]).includes(limit) ? limit : defaultLedgerPageSize,
  };
}

// Opened at the ledger (a deep link, a reload, the first screen): its one request goes out now.
if (location.pathname === '/audit') {
  const at = readSearch(location.search);
  sendEarly(at.marketplace, at.before, at.limit);
}

function Filter({ marketplace, limit }: { marketplace: string | null; limit: number }) {
  const [, navigate] = useLocation();
  const [name, setName] = useState(marketplace ?? '');
  const submit = (event: FormEvent) => {
    event.preventDefault();
    navigate(ledgerHref(name.trim() || null, 0, limit));
  };
  return (
    <form className="row audit-filter" onSubmit={submit} role="search" aria-label="Filter the ledger">
      <label htmlFor="ledger-marketplace">Marketplace</label>
      <input
        id="ledger-marketplace"
        value={name}
        onChange={(event) => setName(event.target.value)}
        placeholder="name as recorded"
        maxLength={63}
        aria-describedby="ledger-marketplace-help"
      />
      <button type="submit">Filter</button>
      {marketplace ? (
        <Link href={ledgerHref(null, 0, limit)} onClick={() => setName('')}>
          Show every marketplace
        </Link>
      ) : null}
      <span id="ledger-marketplace-help" className="muted">
        Includes entries of earlier marketplaces that held the same name; <code>-</code> for entries not scoped to one.
      </span>
    </form>
  );
}

function Row({ entry }: { entry: LedgerEntry }) {
  return (
    <tr>
      <td>
        <Link href={`/entries/${String(entry.id)}`} aria-label={`Entry ${String(entry.id)}: ${entry.event}`}>
          {entry.id}
        </Link>
      </td>
      <td>
        <When at={entry.ts} />
      </td>
      <td>
        <code>{entry.event}</code>
      </td>
      <td>
        {entry.marketplace === '-' ? (
          <span className="muted">—</span>
        ) : (
          <Link href={ledgerHref(entry.marketplace)}>{entry.marketplace}</Link>
        )}
      </td>
      <td>
        {entry.principal} <span className="muted">({entry.actorType})</span>
      </td>
      <td>{entry.ref ? <code>{entry.ref}</code> : <span className="muted">—</span>}</td>
      <td>
        <Sha sha={entry.sha} />
      </td>
      <td className="audit-detail-cell">{entry.detail ?? <span className="muted">—</span>}</td>
    </tr>
  );
}

function PageSize({ at }: { at: Position }) {
  const [, navigate] = useLocation();
  return (
    <span className="row">
      <label htmlFor="ledger-limit">Entries a screen</label>
      <select
        id="ledger-limit"
        value={at.limit}
        onChange={(event) => navigate(ledgerHref(at.marketplace, at.before, Number(event.target.value)))}
      >
        {ledgerPageSizes.map((size) => (
          <option key={size} value={size}>
            {size}
          </option>
        ))}
      </select>
    </span>
  );
}

function Screen({ page, at }: { page: Ledger; at: Position }) {
  const { marketplace, before, limit } = at;
  const total = `${page.totalIsEstimate ? 'about ' : ''}${page.total.toLocaleString('en')}`;
  return (
    <>
      <p className="muted" aria-live="polite">
        {page.entries.length === 0
          ? 'No entries on this screen.'
          : `Entries ${String(page.entries[0]?.id)} to ${String(page.entries.at(-1)?.id)}, newest first`}
        {marketplace ? ` for ${marketplace}` : ''}; the ledger holds {total} entries in all.
      </p>
      {page.entries.length === 0 ? (
        <Empty>{marketplace ? `No ledger entry names ${marketplace}.` : 'The ledger is empty.'}</Empty>
      ) : (
        <div className="audit-scroll">
          <table>
            <thead>
              <tr>
                <th scope="col">Entry</th>
                <th scope="col">Time</th>
                <th scope="col">Event</th>
                <th scope="col">Marketplace</th>
                <th scope="col">Principal</th>
                <th scope="col">Ref</th>
                <th scope="col">Commit</th>
                <th scope="col">Detail</th>
              </tr>
            </thead>
            <tbody>
              {page.entries.map((entry) => (
                <Row key={entry.id} entry={entry} />
              ))}
            </tbody>
          </table>
        </div>
      )}
      <nav className="row" aria-label="Ledger pages">
        {before > 0 ? <Link href={ledgerHref(marketplace, 0, limit)}>Newest entries</Link> : null}
        {page.nextBefore !== undefined ? (
          <Link href={ledgerHref(marketplace, page.nextBefore, limit)}>Older entries</Link>
        ) : (
          <span className="muted">This is the oldest entry{marketplace ? ` for ${marketplace}` : ''}.</span>
        )}
        <PageSize at={at} />
      </nav>
    </>
  );
}

export function LedgerPage() {
  const at = readSearch(useSearch());
  const query = useQuery(ledgerQuery(at.marketplace, at.before, at.limit));
  return (
    <Page title="Audit ledger">
      <AuditTabs />
      <Filter key={at.marketplace ?? ''} marketplace={at.marketplace} limit={at.limit} />
      <Loaded query={query}>{(page) => <Screen page={page} at={at} />}</Loaded>
      <p className="muted">Reading the ledger is not itself recorded.</p>
      <ExportPanel />
    </Page>
  );
}
