// GET /api/v1/audit (docs/audit.md), newest first and paged by ledger sequence, for an auditor or admin. Besides
// the marketplace filter, the ledger browser narrows by principal, event and a time range
// (decision 420); the total still counts the whole ledger, whatever the filter.
import { ledgerPageWithTotal, type LedgerEntry, type LedgerFilter } from '../../projections/ledger/ledger.queries.ts';
import type { Actor, Ports } from '../kernel/ports.ts';
import { reject } from '../kernel/rejected.ts';
import { requireAuditorRole } from '../access/standing.ts';

export type LedgerRequest = Readonly<{
  before: number;
  limit: number;
  marketplace?: string | undefined;
  principal?: string | undefined;
  event?: string | undefined;
  from?: string | undefined;
  to?: string | undefined;
}>;

export type LedgerScreen = Readonly<{
  entries: LedgerEntry[];
  nextBefore?: number;
  total: number;
  totalIsEstimate: boolean;
}>;

/** An instant bound of the range as UTC ISO-8601 with milliseconds (the precision of every ts), or null. */
function boundOf(name: 'from' | 'to', value: string | undefined): string | null {
  if (value === undefined) return null;
  const parsed = new Date(value);
  if (Number.isNaN(parsed.getTime())) throw reject('invalid-request', `${name}: '${value}' is not an ISO-8601 instant`);
  return parsed.toISOString();
}

/** The filter a request names; a range that ends before it starts is refused (422), not answered empty. */
export function ledgerFilterOf(request: LedgerRequest): LedgerFilter {
  const from = boundOf('from', request.from);
  const to = boundOf('to', request.to);
  if (from !== null && to !== null && from > to)
    throw reject('invalid-request', `from (${from}) is after to (${to}): the range holds no instant`);
  return {
    marketplace: request.marketplace ?? null,
    principal: request.principal ?? null,
    event: request.event ?? null,
    from,
    to,
  };
}

/** One screen of the ledger: `limit` entries before `before` (0: the newest) that the filter admits. */
export async function readLedger(
  deps: Pick<Ports, 'pool' | 'access'>,
  actor: Actor,
  request: LedgerRequest,
): Promise<LedgerScreen> {
  await requireAuditorRole(deps, actor);
  const filter = ledgerFilterOf(request);
  const { rows, ...total } = await ledgerPageWithTotal(deps.pool, request.before, request.limit + 1, filter);
  const entries = rows.slice(0, request.limit);
  const last = entries.at(-1);
  return { entries, ...(rows.length > request.limit && last ? { nextBefore: last.id } : {}), ...total };
}
