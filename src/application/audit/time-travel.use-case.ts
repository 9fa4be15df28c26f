import {
  capturedSnapshot,
  catalogServedAt,
  holdersAt,
  servedAt,
  type CatalogServedAt,
  type Holder,
  type ServedAt,
  type TimeTravelSnapshot,
} from '../../projections/time-travel/time-travel.queries.ts';
import type { Ports } from '../kernel/ports.ts';
import { reject } from '../kernel/rejected.ts';

/**
 * Time travel (docs/audit-time-travel.md): the instant a question is asked about, as UTC ISO-8601 with milliseconds
 * (the precision of every recorded instant); absent means now. An instant that is no date is refused.
 */
export function instantOf(at: string | undefined, now: Date): string {
  if (at === undefined) return now.toISOString();
  const parsed = new Date(at);
  if (Number.isNaN(parsed.getTime())) throw reject('invalid-request', `at: '${at}' is not an ISO-8601 instant`);
  return parsed.toISOString();
}

export type ServedAnswer = Readonly<{ at: string; marketplaces: ServedAt[]; catalog: CatalogServedAt | null }>;

/** What each marketplace and the catalog served at refs/heads/main at `at`, from the recorded history. */
export async function servedAtInstant(
  deps: Pick<Ports, 'pool'>,
  asked: string | undefined,
  now: Date,
): Promise<ServedAnswer> {
  const at = instantOf(asked, now);
  const [marketplaces, catalog] = await Promise.all([servedAt(deps.pool, at), catalogServedAt(deps.pool, at)]);
  return { at, marketplaces, catalog };
}

export type HoldersAnswer = Readonly<{
  at: string;
  snapshotId: number;
  marketplace: string;
  marketplaceId: number;
  sha: string;
  holders: Holder[];
}>;

/** Every identity that had fetched a snapshot's commit by `at`; 404 for a snapshot never captured. */
export async function holdersOfSnapshot(
  deps: Pick<Ports, 'pool'>,
  id: number,
  asked: string | undefined,
  now: Date,
): Promise<HoldersAnswer> {
  const at = instantOf(asked, now);
  const snapshot: TimeTravelSnapshot | null = await capturedSnapshot(deps.pool, id);
  if (!snapshot) throw reject('snapshot-not-found', `no snapshot ${id}`);
  const holders = await holdersAt(deps.pool, snapshot, at);
  return {
    at,
    snapshotId: snapshot.id,
    marketplace: snapshot.marketplace,
    marketplaceId: snapshot.marketplaceId,
    sha: snapshot.sha,
    holders,
  };
}
