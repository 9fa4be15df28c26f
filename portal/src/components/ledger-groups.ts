// Related ledger entries shown as one row (decision 422): the ledger keeps every entry, and a reader first
// wants the acts. Neighbouring entries (newest first, as the ledger is read) of one act form a group:
// - a fetch: a client's ref advertisement and the wants it then fetched (info-refs, upload-pack), by one
//   principal from one marketplace;
// - an ingest: the capture of one commit of one marketplace and its vetting run (verdicts, the outcome);
// - otherwise the same event by the same principal on the same marketplace, repeated.
// Neighbours further apart than the act's window start a new group. Used by the overview's recent activity
// and by the ledger browser, so both read the ledger the same way.
// With its extension: the unit tests import this module under Node's own module resolution.
import { humanize, labelFrom, vettingOutcomeLabels } from './labels.ts';

export type GroupableEntry = Readonly<{
  id: number;
  ts: string;
  principal: string;
  marketplace: string;
  event: string;
  sha: string | null;
  detail: string | null;
}>;

export type GroupKind = 'fetch' | 'ingest' | 'repeat';

export type EntryGroup<E extends GroupableEntry> = Readonly<{
  kind: GroupKind;
  /** What a person reads: "Git fetch", "Ingest and vetting: Clear", "Vetting verdict ×7". */
  title: string;
  /** Newest first, as given. */
  entries: readonly E[];
  newest: E;
  oldest: E;
}>;

/** Ledger events whose plain reading says little: the git facade's two. */
const ledgerEventLabels: Readonly<Record<string, string>> = {
  'info-refs': 'Ref advertisement',
  'upload-pack': 'Content fetch',
  'roles-read': 'Role grants read',
};

/** A ledger event in words ("vetting-verdict" → "Vetting verdict"). */
export const eventLabel = (event: string): string => labelFrom(ledgerEventLabels, event);

const fetchEvents: ReadonlySet<string> = new Set(['info-refs', 'upload-pack']);
const ingestEvents: ReadonlySet<string> = new Set([
  'snapshot-captured',
  'plugin-withheld',
  'ingest-succeeded',
  'vetting-verdict',
  'vetting-completed',
]);

/** The longest gap between neighbouring entries of one act: a clone or a repeat is quick, a vetting run less so. */
export const groupWindowMs: Readonly<Record<GroupKind, number>> = {
  fetch: 2 * 60_000,
  ingest: 10 * 60_000,
  repeat: 2 * 60_000,
};

function kindOf(entry: GroupableEntry): GroupKind {
  if (fetchEvents.has(entry.event)) return 'fetch';
  if (ingestEvents.has(entry.event) && entry.sha !== null) return 'ingest';
  return 'repeat';
}

/** Entries with the same key and close enough in time belong to one act. */
function keyOf(entry: GroupableEntry, kind: GroupKind): string {
  if (kind === 'fetch') return JSON.stringify([kind, entry.principal, entry.marketplace]);
  // The vetting run may be attributed to another principal than the capture: the commit ties them.
  if (kind === 'ingest') return JSON.stringify([kind, entry.marketplace, entry.sha]);
  return JSON.stringify([kind, entry.event, entry.principal, entry.marketplace]);
}

const times = (n: number) => (n > 1 ? ` ×${String(n)}` : '');

function titleOf(kind: GroupKind, entries: readonly GroupableEntry[]): string {
  const first = entries[0];
  if (first === undefined) return '';
  if (kind === 'fetch') {
    // A ref advertisement alone (git ls-remote) transferred nothing: it is no fetch.
    if (!entries.some((e) => e.event === 'upload-pack')) return `${eventLabel(first.event)}${times(entries.length)}`;
    // One ref advertisement opens each clone or fetch; a fetch that skipped it still counts once.
    const fetches = Math.max(1, entries.filter((e) => e.event === 'info-refs').length);
    return fetches > 1 ? `Git fetches${times(fetches)}` : 'Git fetch';
  }
  if (kind === 'ingest') {
    const ingested = entries.some((e) => e.event === 'snapshot-captured' || e.event === 'ingest-succeeded');
    const outcome = /(?:^|\s)outcome=(\S+)/.exec(
      entries.find((e) => e.event === 'vetting-completed')?.detail ?? '',
    )?.[1];
    const what = ingested ? 'Ingest and vetting' : 'Vetting';
    if (entries.length === 1) return eventLabel(first.event);
    return outcome ? `${what}: ${vettingOutcomeLabels[outcome] ?? humanize(outcome)}` : what;
  }
  return `${eventLabel(first.event)}${times(entries.length)}`;
}

function groupOf<E extends GroupableEntry>(kind: GroupKind, entries: E[]): EntryGroup<E> {
  const newest = entries[0] as E;
  const oldest = entries[entries.length - 1] as E;
  return { kind, title: titleOf(kind, entries), entries, newest, oldest };
}

/** The entries (newest first) as acts, newest first; every entry is in exactly one group, in order. */
export function groupLedger<E extends GroupableEntry>(
  entries: readonly E[],
  windowMs: Readonly<Record<GroupKind, number>> = groupWindowMs,
): EntryGroup<E>[] {
  const groups: EntryGroup<E>[] = [];
  let open: { kind: GroupKind; key: string; entries: E[] } | null = null;
  for (const entry of entries) {
    const kind = kindOf(entry);
    const key = keyOf(entry, kind);
    const previous = open?.entries[open.entries.length - 1];
    const near = previous !== undefined && Math.abs(Date.parse(previous.ts) - Date.parse(entry.ts)) <= windowMs[kind];
    if (open && open.key === key && near) {
      open.entries.push(entry);
      continue;
    }
    if (open) groups.push(groupOf(open.kind, open.entries));
    open = { kind, key, entries: [entry] };
  }
  if (open) groups.push(groupOf(open.kind, open.entries));
  return groups;
}
