// What the Audit pages read, one place per endpoint (the ledger, adoption, the estate, the mirror, retention,
// webhook subscribers: docs/api.md).
import { api, ApiError, data, type Body } from '../../api/client';
import type { LedgerFilter } from './ledger-address';

export type LedgerPage = Body<'/api/v1/audit', 'get'>;
export type LedgerEntry = LedgerPage['entries'][number];
export type Sink = Body<'/api/v1/audit/sinks', 'get'>[number];
export type Subscriber = Body<'/api/v1/webhooks', 'get'>[number];
export type Delivery = Body<'/api/v1/webhooks/deliveries', 'get'>['deliveries'][number];
export type DeliveryState = Delivery['state'];
export type Adoption = Body<'/api/v1/adoption', 'get'>[number];
export type Stale = Body<'/api/v1/adoption/staleness', 'get'>[number];
export type EstateReport = Body<'/api/v1/estate', 'get'>;
export type MirrorReport = Body<'/api/v1/mirror/drift', 'get'>[number];
export type RetentionCandidate = Body<'/api/v1/retention/candidates', 'get'>[number];
export type ServedAt = Body<'/api/v1/audit/served', 'get'>;
export type HoldersAt = Body<'/api/v1/snapshots/{id}/holders', 'get'>;

/** One screen of the ledger browser: a single page request, never a count of everything. */
export const ledgerPageSizes = [10, 50, 200, 1000] as const;
export const defaultLedgerPageSize = 50;

const readLedger = (filter: LedgerFilter, before: number, limit: number) => {
  const narrowed = Object.fromEntries(Object.entries(filter).filter(([, value]) => value !== null));
  return data(
    api.GET('/api/v1/audit', { params: { query: { limit, ...(before > 0 ? { before } : {}), ...narrowed } } }),
  );
};

/**
 * The first screen's request, sent when the portal's script loads at /audit, alongside the session's own
 * GET /api/v1/me rather than after it (a query starts only once its page is committed, which waits for the
 * session). Taken once, by the query with the same key within seconds; still one request a screen. A caller
 * who may not read the ledger gets the page's own notice; the early 403 is dropped.
 */
let early: { key: string; answer: Promise<LedgerPage>; sentAt: number } | null = null;

export function sendEarly(filter: LedgerFilter, before: number, limit: number): void {
  const answer = readLedger(filter, before, limit);
  answer.catch(() => undefined); // awaited (and its failure shown) by the query that takes it
  early = { key: JSON.stringify([filter, before, limit]), answer, sentAt: Date.now() };
}

export const ledgerQuery = (filter: LedgerFilter, before: number, limit: number) => ({
  queryKey: ['audit', 'ledger', filter, before, limit],
  queryFn: () => {
    const fresh = early && early.key === JSON.stringify([filter, before, limit]) && Date.now() - early.sentAt < 5000;
    const sent = fresh ? early?.answer : null;
    early = null;
    return sent ?? readLedger(filter, before, limit);
  },
});

/** One entry by id: the page of one entry just before id + 1 (ledger ids are the ordering key). */
export const entryQuery = (id: number) => ({
  queryKey: ['audit', 'entry', id],
  queryFn: async () => {
    const page = await data(api.GET('/api/v1/audit', { params: { query: { before: id + 1, limit: 1 } } }));
    const entry = page.entries[0];
    return entry && entry.id === id ? entry : null;
  },
});

/** The reads a change on these pages refreshes: each query's own key is what the change invalidates. */
export const sinksQuery = { queryKey: ['audit', 'sinks'], queryFn: () => data(api.GET('/api/v1/audit/sinks')) };
export const subscribersQuery = { queryKey: ['audit', 'webhooks'], queryFn: () => data(api.GET('/api/v1/webhooks')) };

export const eventKindsQuery = () => ({
  queryKey: ['audit', 'webhook-events'],
  queryFn: () => data(api.GET('/api/v1/webhooks/events')),
  staleTime: Infinity,
});

export type DeliveryFilter = Readonly<{ subscriber?: number; sink?: number; state?: DeliveryState }>;

export const deliveriesQuery = (filter: DeliveryFilter) => ({
  queryKey: ['audit', 'deliveries', filter],
  queryFn: () => data(api.GET('/api/v1/webhooks/deliveries', { params: { query: { ...filter, limit: 50 } } })),
});

export const adoptionQuery = (days: number) => ({
  queryKey: ['audit', 'adoption', days],
  queryFn: () => data(api.GET('/api/v1/adoption', { params: { query: { days } } })),
});

export const stalenessQuery = () => ({
  queryKey: ['audit', 'staleness'],
  queryFn: () => data(api.GET('/api/v1/adoption/staleness')),
});

export const estateKey = ['audit', 'estate'] as const;
/**
 * The last estate report, and whether an estate file is configured: a report exists only after a run that
 * applied; before one, the 404 says whether gateway.estate.file is set (decision 421).
 */
export type EstateState = Readonly<{ report: EstateReport | null; configured: boolean }>;

export const estateQuery = () => ({
  queryKey: estateKey,
  queryFn: async (): Promise<EstateState> => {
    try {
      return { report: await data(api.GET('/api/v1/estate')), configured: true };
    } catch (error) {
      if (error instanceof ApiError && error.problem.status === 404)
        return { report: null, configured: (error.problem as { configured?: unknown }).configured === true };
      throw error;
    }
  },
});

export const mirrorQuery = { queryKey: ['audit', 'mirror'], queryFn: () => data(api.GET('/api/v1/mirror/drift')) };
export const retentionQuery = {
  queryKey: ['audit', 'retention'],
  queryFn: () => data(api.GET('/api/v1/retention/candidates')),
};

/** What was served at `at` (null: now), from the recorded events (docs/audit-time-travel.md). */
export const servedQuery = (at: string | null) => ({
  queryKey: ['audit', 'served', at],
  queryFn: () => data(api.GET('/api/v1/audit/served', { params: { query: at ? { at } : {} } })),
});

/** Who had fetched a snapshot's commit by `at` (null: now). */
export const holdersQuery = (snapshotId: number, at: string | null) => ({
  queryKey: ['audit', 'holders', snapshotId, at],
  queryFn: () =>
    data(api.GET('/api/v1/snapshots/{id}/holders', { params: { path: { id: snapshotId }, query: at ? { at } : {} } })),
});
