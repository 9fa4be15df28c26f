import { compilePolicy } from '../../adapters/policy/cel.ts';
import { evaluateInWorker } from '../../adapters/policy/policy-engine.ts';
import { liveMarketplaces, type MarketplaceRecord } from '../../projections/marketplaces/marketplaces.queries.ts';
import { snapshotsOf, type SnapshotRecord } from '../../projections/snapshots/snapshots.queries.ts';
import { latestRun, waiversOf, type WaiverRecord } from '../../projections/vetting/vetting.queries.ts';
import type { RoleAssignment } from '../../domain/role/permissions.ts';
import { policyVariablesOf, snapshotTreeFacts } from './evaluation.ts';
import type { Actor, Ports } from '../kernel/ports.ts';
import { reject } from '../kernel/rejected.ts';
import { requireAuditorRole } from '../access/standing.ts';

export type DryRunPorts = Pick<Ports, 'pool' | 'gitStore' | 'vetting' | 'access' | 'marketplaces' | 'policy'>;

/** At most this many snapshots are evaluated by one dry run (each reads a pinned tree from git). */
export const dryRunMaxSnapshots = 500;
export const dryRunDefaultSnapshots = 200;
// Trees read at once: the machine's git and disk are shared with the facade.
const concurrency = 4;

/** What of the dry run's time is kept for making the answer: a twentieth, at most half a second. */
const answerMarginMs = (timeoutMs: number): number => Math.min(500, timeoutMs / 20);

export type DryRunVerdict = Readonly<{
  id: number;
  marketplace: string;
  sha: string;
  state: 'approved' | 'held';
  /** not-evaluated: the dry run's time ran out first (gateway.policy.dry-run-timeout). */
  decision: 'deny' | 'allow' | 'not-evaluated';
  /** Why it would deny: the rule matched, or it failed to evaluate (enforcement denies both). */
  outcome: 'matched' | 'error' | null;
  /** The evaluation error, or why the snapshot was not evaluated. */
  error: string | null;
}>;

export type DryRunAnswer = Readonly<{
  expression: string;
  at: string;
  /** Served (approved) and held snapshots of live marketplaces, soft-deleted ones left out. */
  total: number;
  evaluated: number;
  truncated: boolean;
  /** Chosen snapshots the dry run's time ran out before (listed with decision not-evaluated). */
  notEvaluated: number;
  denied: number;
  allowed: number;
  snapshots: DryRunVerdict[];
}>;

type Candidate = Readonly<{
  snapshot: SnapshotRecord & { state: 'approved' | 'held' };
  marketplace: MarketplaceRecord;
}>;

/** Served snapshots first, then held ones; newest first within each: the ones a limit keeps. */
async function candidates(deps: Pick<Ports, 'pool'>): Promise<Candidate[]> {
  const marketplaces = await liveMarketplaces(deps.pool);
  const byId = new Map(marketplaces.map((m) => [m.id, m]));
  const snapshots = await snapshotsOf(
    deps.pool,
    marketplaces.map((m) => m.id),
  );
  const rank = (s: SnapshotRecord) => (s.state === 'approved' ? 0 : 1);
  return snapshots
    .filter((s): s is Candidate['snapshot'] => (s.state === 'approved' || s.state === 'held') && s.deletedAt === null)
    .sort((a, b) => rank(a) - rank(b) || b.id - a.id)
    .map((snapshot) => ({ snapshot, marketplace: byId.get(snapshot.marketplaceId) as MarketplaceRecord }));
}

type Shared = Readonly<{
  expression: string;
  /** Aborts when the dry run's time is up. */
  deadline: AbortSignal;
  timeoutMs: number;
  at: string;
  approver: Readonly<{ principal: string; roles: readonly RoleAssignment[] }>;
  waivers: (marketplaceId: number) => Promise<readonly WaiverRecord[]>;
}>;

async function verdictOf(deps: DryRunPorts, shared: Shared, { snapshot, marketplace }: Candidate) {
  const base = { id: snapshot.id, marketplace: marketplace.name, sha: snapshot.sha, state: snapshot.state };
  const notEvaluated = {
    ...base,
    decision: 'not-evaluated',
    outcome: null,
    error: `the dry run's ${shared.timeoutMs / 1000} s (gateway.policy.dry-run-timeout) ran out before this snapshot was evaluated`,
  } as const;
  if (shared.deadline.aborted) return notEvaluated;
  // When the time is up the snapshot is not evaluated, whatever it was waiting for (a large tree's read).
  let stop = () => {};
  const stopped = new Promise<typeof notEvaluated>((resolve) => {
    stop = () => resolve(notEvaluated);
    shared.deadline.addEventListener('abort', stop, { once: true });
  });
  try {
    return await Promise.race([evaluated(deps, shared, { snapshot, marketplace }, base, notEvaluated), stopped]);
  } finally {
    shared.deadline.removeEventListener('abort', stop);
  }
}

async function evaluated<N>(
  deps: DryRunPorts,
  shared: Shared,
  { snapshot, marketplace }: Candidate,
  base: Readonly<{ id: number; marketplace: string; sha: string; state: Candidate['snapshot']['state'] }>,
  notEvaluated: N,
) {
  let result: { matched: boolean } | { error: string };
  try {
    const [tree, run, waivers] = await Promise.all([
      snapshotTreeFacts(deps, snapshot),
      latestRun(deps.pool, snapshot.id),
      shared.waivers(marketplace.id),
    ]);
    const facts = { snapshot, marketplace, tree, run, waivers, approver: shared.approver };
    const variables = policyVariablesOf(
      { ...facts, minimumReleaseAgeMs: deps.marketplaces.minimumReleaseAgeMs },
      shared.at,
    );
    result = await evaluateInWorker(shared.expression, variables, deps.policy.evaluationTimeoutMs, shared.deadline);
    if (shared.deadline.aborted) return notEvaluated;
  } catch (error) {
    // A tree that cannot be read is an evaluation error: the approval would fail as well.
    result = { error: `the snapshot's variables could not be read: ${(error as Error).message}` };
  }
  if ('error' in result) return { ...base, decision: 'deny', outcome: 'error', error: result.error } as const;
  return result.matched
    ? ({ ...base, decision: 'deny', outcome: 'matched', error: null } as const)
    : ({ ...base, decision: 'allow', outcome: null, error: null } as const);
}

/** Maps `items` through `fn`, at most `limit` at a time, keeping their order. */
async function mapBounded<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      out[index] = await fn(items[index] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

/**
 * Evaluates `expression` against every served and every held snapshot as if `actor`
 * approved each at `at`, and answers which it would deny and why. Nothing is stored or recorded.
 * 422 invalid-expression when it does not compile (like rule creation); 403 unless auditor or admin.
 */
export async function policyDryRun(
  deps: DryRunPorts,
  actor: Actor,
  expression: string,
  at: string,
  limit = dryRunDefaultSnapshots,
): Promise<DryRunAnswer> {
  const roles = await requireAuditorRole(deps, actor);
  const compiled = compilePolicy(expression);
  if (!compiled.ok) throw reject('invalid-expression', compiled.error);
  const all = await candidates(deps);
  const chosen = all.slice(0, Math.min(limit, dryRunMaxSnapshots));
  const waivers = new Map<number, Promise<readonly WaiverRecord[]>>();
  // The evaluations stop a little before the time is up, so that the answer is made within it.
  const deadline = AbortSignal.timeout(
    Math.max(0, deps.policy.dryRunTimeoutMs - answerMarginMs(deps.policy.dryRunTimeoutMs)),
  );
  const shared: Shared = {
    expression,
    deadline,
    timeoutMs: deps.policy.dryRunTimeoutMs,
    at,
    approver: { principal: actor.principal, roles },
    waivers: (id) => {
      let read = waivers.get(id);
      if (!read) waivers.set(id, (read = waiversOf(deps.pool, id)));
      return read;
    },
  };
  const snapshots = await mapBounded(chosen, concurrency, (c) => verdictOf(deps, shared, c));
  const denied = snapshots.filter((s) => s.decision === 'deny').length;
  const notEvaluated = snapshots.filter((s) => s.decision === 'not-evaluated').length;
  return {
    expression,
    at,
    total: all.length,
    evaluated: snapshots.length - notEvaluated,
    truncated: chosen.length < all.length,
    notEvaluated,
    denied,
    allowed: snapshots.length - notEvaluated - denied,
    snapshots,
  };
}
