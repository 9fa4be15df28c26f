// One ledger entry with every field (docs/audit.md, Entries), and the entry as the API answered it, as text.
import { useQuery } from '@tanstack/react-query';
import { Link } from 'wouter';
import { Loaded, Page, When } from '../../components/ui';
import { humanize } from '../../components/labels';
import { eventLabel } from '../../components/ledger-groups';
import { ledgerHref } from './ledger-address';
import { entryQuery, type LedgerEntry } from './queries';
import { AuditTabs } from './tabs';

type Field = keyof LedgerEntry;

/** What a field is called where its own name, read as words, would not say it. */
const names: Partial<Record<Field, string>> = {
  id: 'Entry',
  ts: 'Time',
  marketplaceId: 'Marketplace id',
  sha: 'Commit',
  tokenId: 'Token id',
};

/** What a field holds, where its name alone leaves it open. */
const help: Partial<Record<Field, string>> = {
  id: 'the ordering key',
  ts: 'when it was appended',
  marketplace: '- when not marketplace-scoped',
  marketplaceId: 'tells apart earlier marketplaces of the same name',
  actorType: 'human, machine or system',
  source: 'client address for a fetch; admin for an administrative action',
  tokenId: 'the credential that authenticated it',
  credential_kind: 'pat or idp for facade fetches',
};

/** Every field of an entry, in the order shown. */
const fields = (
  [
    'id',
    'ts',
    'event',
    'marketplace',
    'marketplaceId',
    'principal',
    'actorType',
    'source',
    'ref',
    'sha',
    'detail',
    'tokenId',
    'credential_kind',
  ] as const
).map((key) => ({ key, label: names[key] ?? humanize(key), help: help[key] ?? '' }));

/** How a facade fetch authenticated. */
export const credentialKinds: Readonly<Record<string, string>> = {
  pat: 'Personal access token',
  idp: 'Identity-provider token',
};

function Value({ entry, field }: { entry: LedgerEntry; field: keyof LedgerEntry }) {
  const value = entry[field];
  if (value === null || value === '') return <span className="muted">none</span>;
  if (field === 'ts') return <When at={String(value)} />;
  if (field === 'marketplace' && value !== '-')
    return <Link href={ledgerHref({ marketplace: String(value) })}>{String(value)}</Link>;
  if (field === 'principal') return <Link href={ledgerHref({ principal: String(value) })}>{String(value)}</Link>;
  if (field === 'event')
    return (
      <>
        {eventLabel(String(value))} <code className="audit-value">{String(value)}</code>
      </>
    );
  if (field === 'actorType') return <>{humanize(String(value))}</>;
  if (field === 'credential_kind') return <>{credentialKinds[String(value)] ?? humanize(String(value))}</>;
  return <code className="audit-value">{String(value)}</code>;
}

function Detail({ entry }: { entry: LedgerEntry }) {
  return (
    <>
      <dl className="audit-fields">
        {fields.map((field) => (
          <div key={field.key}>
            <dt>
              {field.label}
              {field.help ? <span className="muted"> ({field.help})</span> : null}
            </dt>
            <dd>
              <Value entry={entry} field={field.key} />
            </dd>
          </div>
        ))}
      </dl>
      <h2>As recorded</h2>
      <pre className="audit-json" tabIndex={0} aria-label="The entry as JSON">
        {JSON.stringify(entry, null, 2)}
      </pre>
    </>
  );
}

export function EntryPage({ id }: { id: string }) {
  const n = Number(id);
  const valid = Number.isSafeInteger(n) && n > 0;
  const query = useQuery({ ...entryQuery(valid ? n : 0), enabled: valid });
  return (
    <Page title={`Ledger entry ${id}`}>
      <AuditTabs />
      <p>
        <Link href={ledgerHref({ before: valid ? n + 1 : 0 })}>Back to the ledger at this entry</Link>
      </p>
      {valid ? (
        <Loaded query={query}>
          {(entry) => (entry ? <Detail entry={entry} /> : <p className="notice">There is no ledger entry {id}.</p>)}
        </Loaded>
      ) : (
        <p className="notice">There is no ledger entry {id}.</p>
      )}
    </Page>
  );
}
