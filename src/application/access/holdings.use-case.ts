import { answerHolding, type Capture, type HoldingAnswer } from '../../domain/access/holdings.ts';
import { capturesOfPairs } from '../../projections/snapshots/snapshots.queries.ts';
import type { Ports } from '../kernel/ports.ts';

export type Holding = Readonly<{ marketplace: string; sha: string }>;

const keyOf = (holding: Holding): string => `${holding.marketplace} ${holding.sha}`;

/**
 * The revocation check (docs/facade.md): one answer per pair, in request order. The captures of every pair are read
 * in one query (256 sequential reads let a few clients saturate the database); a pair outside the
 * caller's fetch scope is not read at all and answers unknown, like one never held.
 */
export async function checkHoldings(
  deps: Pick<Ports, 'pool'>,
  holdings: readonly Holding[],
  inScope: (marketplace: string) => boolean,
): Promise<HoldingAnswer[]> {
  const asked = new Map<string, Holding>();
  for (const holding of holdings) if (inScope(holding.marketplace)) asked.set(keyOf(holding), holding);
  const captures = new Map<string, Capture[]>();
  for (const row of await capturesOfPairs(deps.pool, [...asked.values()])) {
    const key = keyOf(row);
    const capture = { state: row.state, revokedAt: row.revoked_at, wasRevoked: row.was_revoked, live: row.live };
    captures.set(key, [...(captures.get(key) ?? []), capture]);
  }
  return holdings.map((holding) => answerHolding(captures.get(keyOf(holding)) ?? [], inScope(holding.marketplace)));
}
