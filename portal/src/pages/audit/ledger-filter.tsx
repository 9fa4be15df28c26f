// The ledger browser's filter (decision 420): marketplace, principal, event and a time range in the reader's
// own time zone, each sent to GET /api/v1/audit, which narrows server-side; and whether related entries are
// grouped on one row (decision 422). Submitting starts again at the newest entry.
import { useState, type FormEvent, type InputHTMLAttributes } from 'react';
import { Link, useLocation } from 'wouter';
import { eventLabel } from '../../components/ledger-groups';
import { Options } from '../../components/ui';
import { isFiltered, ledgerHref, noFilter, type LedgerAt } from './ledger-address';

/** Ledger events a reader is likely to look for; any other name may be typed. */
const knownEvents = [
  'info-refs',
  'upload-pack',
  'marketplace-registered',
  'marketplace-removed',
  'snapshot-captured',
  'ingest-succeeded',
  'ingest-failed',
  'vetting-verdict',
  'vetting-completed',
  'snapshot-approved',
  'snapshot-rejected',
  'snapshot-revoked',
  'policy-denied',
  'waiver-created',
  'role-granted',
  'role-revoked',
  'roles-read',
  'token-issued',
  'token-revoked',
  'machine-credential-created',
  'catalog-rebuilt',
  'estate-reconcile-triggered',
] as const;

const pad = (n: number) => String(n).padStart(2, '0');

/** An instant as a datetime-local value in the reader's time zone (to the second). */
export function localInput(iso: string | null): string {
  if (iso === null) return '';
  const d = new Date(iso);
  return `${String(d.getFullYear())}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

/**
 * A datetime-local value (the reader's time zone) as an ISO-8601 instant. An end given to the minute or the
 * second takes in the whole of it: "to 10:05" includes 10:05:59.999.
 */
export function instantOfInput(value: string, end: boolean): string | null {
  if (value === '') return null;
  const at = new Date(value).getTime();
  if (Number.isNaN(at)) return null;
  const precision = value.length <= 16 ? 60_000 : value.includes('.') ? 1 : 1000;
  return new Date(end ? at + precision - 1 : at).toISOString();
}

type FieldKey = 'marketplace' | 'principal' | 'event' | 'from' | 'to';

const instant: InputHTMLAttributes<HTMLInputElement> = { type: 'datetime-local', step: 1 };

/** The filter's fields in the order shown, each with its input's own attributes. */
const fields: ReadonlyArray<{ key: FieldKey; label: string; input: InputHTMLAttributes<HTMLInputElement> }> = [
  { key: 'marketplace', label: 'Marketplace', input: { placeholder: 'name as recorded', maxLength: 63 } },
  { key: 'principal', label: 'Principal', input: { placeholder: 'who acted, exactly', maxLength: 256 } },
  {
    key: 'event',
    label: 'Event',
    input: {
      list: 'ledger-events',
      placeholder: 'e.g. snapshot-approved',
      pattern: '[a-z][a-z0-9\\-]{0,63}',
      title: 'A ledger event name: lower case letters, digits and hyphens',
    },
  },
  { key: 'from', label: 'From', input: instant },
  { key: 'to', label: 'To', input: instant },
];

export function LedgerFilterForm({ at }: { at: LedgerAt }) {
  const [, navigate] = useLocation();
  const [values, setValues] = useState<Record<FieldKey, string>>({
    marketplace: at.marketplace ?? '',
    principal: at.principal ?? '',
    event: at.event ?? '',
    from: localInput(at.from),
    to: localInput(at.to),
  });
  const text = (key: FieldKey) => values[key].trim() || null;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    navigate(
      ledgerHref({
        marketplace: text('marketplace'),
        principal: text('principal'),
        event: text('event'),
        from: instantOfInput(values.from, false),
        to: instantOfInput(values.to, true),
        limit: at.limit,
        grouped: at.grouped,
      }),
    );
  };
  return (
    <form className="audit-filter" onSubmit={submit} role="search" aria-label="Filter the ledger">
      <div className="audit-filter-fields">
        {fields.map(({ key, label, input }) => (
          <div key={key} className="audit-field">
            <label htmlFor={`ledger-${key}`}>{label}</label>
            <input
              id={`ledger-${key}`}
              {...input}
              value={values[key]}
              onChange={(e) => setValues({ ...values, [key]: e.target.value })}
            />
            {key === 'event' ? (
              <datalist id="ledger-events">
                <Options values={knownEvents} label={eventLabel} />
              </datalist>
            ) : null}
          </div>
        ))}
      </div>
      <div className="row">
        <button type="submit">Filter</button>
        {isFiltered(at) ? (
          <Link href={ledgerHref({ ...noFilter, limit: at.limit, grouped: at.grouped })}>Clear the filter</Link>
        ) : null}
        <label className="audit-group-option">
          <input
            type="checkbox"
            checked={at.grouped}
            onChange={(e) => navigate(ledgerHref({ ...at, grouped: e.target.checked }))}
          />{' '}
          Group related entries
        </label>
      </div>
      <p className="muted">
        Each field narrows the ledger; times are yours ({Intl.DateTimeFormat().resolvedOptions().timeZone}), both ends
        included. The marketplace includes entries of earlier marketplaces that held the same name; <code>-</code> for
        entries not scoped to one.
      </p>
    </form>
  );
}
