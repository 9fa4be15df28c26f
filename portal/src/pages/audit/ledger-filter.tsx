// The ledger browser's filter (decision 420): marketplace, principal, event and a time range in the reader's
// own time zone, each sent to GET /api/v1/audit, which narrows server-side; and whether related entries are
// grouped on one row (decision 422). Submitting starts again at the newest entry.
import { useState, type FormEvent, type ReactNode } from 'react';
import { Link, useLocation } from 'wouter';
import { eventLabel } from '../../components/ledger-groups';
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

function Field({ id, label, children }: { id: string; label: string; children: ReactNode }) {
  return (
    <div className="audit-field">
      <label htmlFor={id}>{label}</label>
      {children}
    </div>
  );
}

export function LedgerFilterForm({ at }: { at: LedgerAt }) {
  const [, navigate] = useLocation();
  const [marketplace, setMarketplace] = useState(at.marketplace ?? '');
  const [principal, setPrincipal] = useState(at.principal ?? '');
  const [event, setEvent] = useState(at.event ?? '');
  const [from, setFrom] = useState(localInput(at.from));
  const [to, setTo] = useState(localInput(at.to));
  const submit = (e: FormEvent) => {
    e.preventDefault();
    navigate(
      ledgerHref({
        marketplace: marketplace.trim() || null,
        principal: principal.trim() || null,
        event: event.trim() || null,
        from: instantOfInput(from, false),
        to: instantOfInput(to, true),
        limit: at.limit,
        grouped: at.grouped,
      }),
    );
  };
  return (
    <form className="audit-filter" onSubmit={submit} role="search" aria-label="Filter the ledger">
      <div className="audit-filter-fields">
        <Field id="ledger-marketplace" label="Marketplace">
          <input
            id="ledger-marketplace"
            value={marketplace}
            onChange={(e) => setMarketplace(e.target.value)}
            placeholder="name as recorded"
            maxLength={63}
          />
        </Field>
        <Field id="ledger-principal" label="Principal">
          <input
            id="ledger-principal"
            value={principal}
            onChange={(e) => setPrincipal(e.target.value)}
            placeholder="who acted, exactly"
            maxLength={256}
          />
        </Field>
        <Field id="ledger-event" label="Event">
          <input
            id="ledger-event"
            value={event}
            onChange={(e) => setEvent(e.target.value)}
            list="ledger-events"
            placeholder="e.g. snapshot-approved"
            pattern="[a-z][a-z0-9\-]{0,63}"
            title="A ledger event name: lower case letters, digits and hyphens"
          />
          <datalist id="ledger-events">
            {knownEvents.map((name) => (
              <option key={name} value={name}>
                {eventLabel(name)}
              </option>
            ))}
          </datalist>
        </Field>
        <Field id="ledger-from" label="From">
          <input
            id="ledger-from"
            type="datetime-local"
            step={1}
            value={from}
            onChange={(e) => setFrom(e.target.value)}
          />
        </Field>
        <Field id="ledger-to" label="To">
          <input id="ledger-to" type="datetime-local" step={1} value={to} onChange={(e) => setTo(e.target.value)} />
        </Field>
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
