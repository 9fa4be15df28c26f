// The ledger browser (GET /api/v1/audit, newest first, paged by ledger sequence, not offset): one page
// request per screen, the filter and the position in the address (ledger-address.ts), related entries
// grouped on one row that opens to show each (decision 422), and the NDJSON export.
import { useQuery } from '@tanstack/react-query';
import { Link, useLocation, useSearch } from 'wouter';
import { humanize } from '../../components/labels';
import { eventLabel, groupLedger, type EntryGroup } from '../../components/ledger-groups';
import { actorsOf, GroupToggle, useOpenGroups } from '../../components/ledger-group-view';
import { ColumnHeads, Empty, Loaded, Options, Page, Sha, When } from '../../components/ui';
import { ExportPanel } from './export';
import { filterOf, isFiltered, ledgerHref, readLedgerSearch, type LedgerAt } from './ledger-address';
import { LedgerFilterForm } from './ledger-filter';
import { ledgerPageSizes, ledgerQuery, sendEarly, type LedgerEntry, type LedgerPage as Ledger } from './queries';
import { AuditTabs } from './tabs';

// Opened at the ledger (a deep link, a reload, the first screen): its one request goes out now.
if (location.pathname === '/audit') {
  const at = readLedgerSearch(location.search);
  sendEarly(filterOf(at), at.before, at.limit);
}

const none = <span className="muted">—</span>;

function Row({ entry, member = false }: { entry: LedgerEntry; member?: boolean }) {
  return (
    <tr className={member ? 'group-member' : undefined}>
      <td>
        <Link href={`/entries/${String(entry.id)}`} aria-label={`Entry ${String(entry.id)}: ${entry.event}`}>
          {entry.id}
        </Link>
      </td>
      <td>
        <When at={entry.ts} />
      </td>
      <td>
        <span title={entry.event}>{eventLabel(entry.event)}</span>
      </td>
      <td>
        {entry.marketplace === '-' ? (
          none
        ) : (
          <Link href={ledgerHref({ marketplace: entry.marketplace })}>{entry.marketplace}</Link>
        )}
      </td>
      <td>
        <Link href={ledgerHref({ principal: entry.principal })}>{entry.principal}</Link>{' '}
        <span className="muted">({humanize(entry.actorType)})</span>
      </td>
      <td>{entry.ref ? <code>{entry.ref}</code> : none}</td>
      <td>
        <Sha sha={entry.sha} />
      </td>
      <td className="audit-detail-cell">{entry.detail ?? none}</td>
    </tr>
  );
}

/** The value every entry of the group shares, or null. */
function shared<K extends keyof LedgerEntry>(group: EntryGroup<LedgerEntry>, key: K): LedgerEntry[K] | null {
  const value = group.newest[key];
  return group.entries.every((e) => e[key] === value) ? value : null;
}

function GroupRows({ group, open, onToggle }: { group: EntryGroup<LedgerEntry>; open: boolean; onToggle: () => void }) {
  const { newest, oldest } = group;
  const id = `ledger-group-${String(newest.id)}`;
  const marketplace = shared(group, 'marketplace');
  return (
    <tbody id={id}>
      <tr className="audit-group">
        <td>
          {oldest.id}–{newest.id}
        </td>
        <td>
          <When at={newest.ts} />
        </td>
        <td>
          <strong>{group.title}</strong>
          <GroupToggle group={group} open={open} onToggle={onToggle} controls={id} />
        </td>
        <td>
          {marketplace === null || marketplace === '-' ? (
            none
          ) : (
            <Link href={ledgerHref({ marketplace })}>{marketplace}</Link>
          )}
        </td>
        <td>{actorsOf(group)}</td>
        <td>{shared(group, 'ref') ? <code>{shared(group, 'ref')}</code> : none}</td>
        <td>
          <Sha sha={shared(group, 'sha')} />
        </td>
        <td className="audit-detail-cell muted">{group.entries.length} entries</td>
      </tr>
      {open ? group.entries.map((entry) => <Row key={entry.id} entry={entry} member />) : null}
    </tbody>
  );
}

function Entries({ entries, grouped }: { entries: LedgerEntry[]; grouped: boolean }) {
  const groups = useOpenGroups();
  return (
    <div className="audit-scroll">
      <table>
        <ColumnHeads columns={['Entry', 'Time', 'Event', 'Marketplace', 'Principal', 'Ref', 'Commit', 'Detail']} />
        {grouped ? (
          groupLedger(entries).map((group) =>
            group.entries.length === 1 ? (
              <tbody key={group.newest.id}>
                <Row entry={group.newest} />
              </tbody>
            ) : (
              <GroupRows
                key={group.newest.id}
                group={group}
                open={groups.isOpen(group.newest.id)}
                onToggle={() => groups.toggle(group.newest.id)}
              />
            ),
          )
        ) : (
          <tbody>
            {entries.map((entry) => (
              <Row key={entry.id} entry={entry} />
            ))}
          </tbody>
        )}
      </table>
    </div>
  );
}

function PageSize({ at }: { at: LedgerAt }) {
  const [, navigate] = useLocation();
  return (
    <span className="row">
      <label htmlFor="ledger-limit">Entries a screen</label>
      <select
        id="ledger-limit"
        value={at.limit}
        onChange={(event) => navigate(ledgerHref({ ...at, limit: Number(event.target.value) }))}
      >
        <Options values={ledgerPageSizes} />
      </select>
    </span>
  );
}

function Screen({ page, at }: { page: Ledger; at: LedgerAt }) {
  const filtered = isFiltered(at);
  const total = `${page.totalIsEstimate ? 'about ' : ''}${page.total.toLocaleString('en')}`;
  return (
    <>
      <p className="muted" aria-live="polite">
        {page.entries.length === 0
          ? 'No entries on this screen.'
          : `Entries ${String(page.entries[0]?.id)} to ${String(page.entries.at(-1)?.id)}, newest first`}
        {at.marketplace ? ` for ${at.marketplace}` : ''}
        {filtered ? ' (filtered)' : ''}; the ledger holds {total} entries in all.
      </p>
      {page.entries.length === 0 ? (
        <Empty>{filtered ? 'No ledger entry matches the filter.' : 'The ledger is empty.'}</Empty>
      ) : (
        <Entries key={`${String(at.before)}-${String(at.grouped)}`} entries={page.entries} grouped={at.grouped} />
      )}
      <nav className="row" aria-label="Ledger pages">
        {at.before > 0 ? <Link href={ledgerHref({ ...at, before: 0 })}>Newest entries</Link> : null}
        {page.nextBefore !== undefined ? (
          <Link href={ledgerHref({ ...at, before: page.nextBefore })}>Older entries</Link>
        ) : (
          <span className="muted">
            This is the oldest entry{at.marketplace ? ` for ${at.marketplace}` : ''}
            {filtered ? ' that matches' : ''}.
          </span>
        )}
        <PageSize at={at} />
      </nav>
    </>
  );
}

export function LedgerPage() {
  const at = readLedgerSearch(useSearch());
  const filter = filterOf(at);
  const query = useQuery(ledgerQuery(filter, at.before, at.limit));
  return (
    <Page title="Audit ledger">
      <AuditTabs />
      <LedgerFilterForm key={JSON.stringify(filter)} at={at} />
      <Loaded query={query}>{(page) => <Screen page={page} at={at} />}</Loaded>
      <p className="muted">Reading the ledger is not itself recorded.</p>
      <ExportPanel />
    </Page>
  );
}
