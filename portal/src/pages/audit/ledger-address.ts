// Where the ledger browser is: its filter, position and screen size live in the address, so a screen can be
// linked and the browser's back button pages newer. The filter is what GET /api/v1/audit narrows by
// (decision 420); `group=off` shows every entry on a row of its own (decision 422).
import { defaultLedgerPageSize, ledgerPageSizes } from './queries';

export type LedgerFilter = Readonly<{
  marketplace: string | null;
  principal: string | null;
  event: string | null;
  /** Inclusive instants, ISO-8601 UTC. */
  from: string | null;
  to: string | null;
}>;

export type LedgerAt = LedgerFilter & Readonly<{ before: number; limit: number; grouped: boolean }>;

export const noFilter: LedgerFilter = { marketplace: null, principal: null, event: null, from: null, to: null };
const start: LedgerAt = { ...noFilter, before: 0, limit: defaultLedgerPageSize, grouped: true };
const filterKeys = ['marketplace', 'principal', 'event', 'from', 'to'] as const;

export const isFiltered = (at: LedgerFilter): boolean => filterKeys.some((key) => at[key] !== null);

/** The filter alone, for a query key and a request. */
export const filterOf = (at: LedgerFilter): LedgerFilter =>
  Object.fromEntries(filterKeys.map((key) => [key, at[key]])) as LedgerFilter;

const instant = (value: string | null): string | null =>
  value !== null && !Number.isNaN(Date.parse(value)) ? new Date(value).toISOString() : null;

export function readLedgerSearch(search: string): LedgerAt {
  const query = new URLSearchParams(search);
  const before = Number(query.get('before') ?? 0);
  const limit = Number(query.get('limit') ?? defaultLedgerPageSize);
  return {
    marketplace: query.get('marketplace') || null,
    principal: query.get('principal') || null,
    event: query.get('event') || null,
    from: instant(query.get('from')),
    to: instant(query.get('to')),
    before: Number.isSafeInteger(before) && before > 0 ? before : 0,
    limit: (ledgerPageSizes as readonly number[]).includes(limit) ? limit : defaultLedgerPageSize,
    grouped: query.get('group') !== 'off',
  };
}

/** The browser's address for a screen: ~/audit with what differs from the first, unfiltered screen. */
export function ledgerHref(at: Partial<LedgerAt> = {}): string {
  const full = { ...start, ...at };
  const query = new URLSearchParams();
  for (const key of filterKeys) {
    const value = full[key];
    if (value) query.set(key, value);
  }
  if (full.before > 0) query.set('before', String(full.before));
  if (full.limit !== defaultLedgerPageSize) query.set('limit', String(full.limit));
  if (!full.grouped) query.set('group', 'off');
  const search = query.toString();
  return `~/audit${search ? `?${search}` : ''}`;
}
