import { answerHolding, type Capture, type HoldingAnswer } from '../../domain/access/holdings.ts';
import { capturesOfPairs } from '../../projections/snapshots/snapshots.queries.ts';
import type { Ports } from '../kernel/ports.ts';

export type Holding = Readonly<{ marketplace: string; sha: string }>;

const keyOf = (holding: Holding): string => `${holding.marketplace} ${holding.sha}`;

/**
 * The revocation check (docs/facade.md): one answer per pair, in request order. The gateway answers from
 * its memory of the captures (facade-memory.ts), once every event announced before the request is in it;
 * without one (a tool, a test building its own ports) the captures of every pair are read in one query. A
 * pair outside the caller's fetch scope is not looked at and answers unknown, like one never held.
 */
export async function checkHoldings(
  deps: Pick<Ports, 'pool' | 'facadeMemory'>,
  holdings: readonly Holding[],
  inScope: (marketplace: string) => boolean,
): Promise<HoldingAnswer[]> {
  const memory = deps.facadeMemory;
  if (memory) {
    await memory.current();
    return holdings.map((holding) => {
      const scoped = inScope(holding.marketplace);
      return answerHolding(scoped ? memory.holdings.capturesOf(holding.marketplace, holding.sha) : [], scoped);
    });
  }
  return checkHoldingsInDatabase(deps, holdings, inScope);
}

/** The same answers, read from the snapshots read model in one query (256 sequential reads saturate it). */
export async function checkHoldingsInDatabase(
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
