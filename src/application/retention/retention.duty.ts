// Retention (docs/retention.md): GET /api/v1/retention/candidates (a dry run: writes nothing), POST
// /api/v1/retention/evaluate (one pass now, whatever the scheduler's state) and the scheduled pass on
// gateway.retention.poll-interval (the leader, principal `system`). A pass soft-deletes what the criteria select, as
// `retention-policy`, and records one `retention-evaluated`.
import { appendFacts } from '../../adapters/eventstore/append-facts.ts';
import { metadataOf } from '../kernel/run-command.ts';
import { fact } from '../../domain/events.ts';
import {
  selectForRetention,
  type RetentionCandidate,
  type RetentionSelection,
} from '../../domain/retention/retention-criteria.ts';
import type { RetentionEvaluated } from '../../domain/retention/retention.events.ts';
import type { CommandMeta } from '../../domain/kernel/decider.ts';
import { streams } from '../../domain/kernel/streams.ts';
import { lastFetches, marketplaceNameKnown, retentionSubjects } from '../../projections/retention/retention.queries.ts';
import { periodicDuty, type DutyKind, type WakeableDuty } from '../kernel/periodic-duty.ts';
import { compactionPass, type CompactionPorts } from './compaction.duty.ts';
import type { Actor, Log, Ports } from '../kernel/ports.ts';
import { reject, Rejected } from '../kernel/rejected.ts';
import { softDeleteByPolicy, type DeletionPorts } from '../snapshots/deletion.use-case.ts';
import { requireAdminRole, requireAuditorRole } from '../access/standing.ts';
import { systemMeta } from '../kernel/system-meta.use-case.ts';

export type RetentionPorts = DeletionPorts & Pick<Ports, 'clock' | 'logger' | 'metrics'>;

/** Who asked for a pass: an admin on demand, or null for the scheduler (principal `system`). */
export type PassCaller = Readonly<{ actor: Actor; meta: CommandMeta }> | null;

export type RetentionPass = Readonly<{ selected: number; acted: number }>;

/** Marketplaces whose candidates are soft-deleted at once (one stream each; a marketplace's batches go one by one). */
const marketplacesAtOnce = 8;
/** Snapshots of one marketplace soft-deleted by one command (one decision, one append). */
const batchSize = 500;

/** What the criteria select now, read once: the rows, then the fetch recency of the pairs that could qualify. */
async function selection(deps: RetentionPorts, marketplace: string | null, now: string): Promise<RetentionSelection> {
  if (marketplace !== null && !(await marketplaceNameKnown(deps.pool, marketplace)))
    throw reject('marketplace-not-found', `no marketplace was ever registered as '${marketplace}'`);
  const subjects = await retentionSubjects(deps.pool, marketplace);
  const open = subjects.filter((s) => !s.deleted && s.state !== 'approved');
  const fetches = await lastFetches(deps.pool, open);
  return selectForRetention(subjects, (name, sha) => fetches.get(`${name}\n${sha}`), deps.retention, now);
}

/** The dry run: what a pass would soft-delete now, each with its selecting criterion; writes nothing. */
export async function retentionCandidates(
  deps: RetentionPorts,
  actor: Actor,
  marketplace: string | null,
): Promise<readonly RetentionCandidate[]> {
  await requireAuditorRole(deps, actor);
  return (await selection(deps, marketplace, deps.clock.instant())).candidates;
}

/** The candidates by marketplace (one stream each), in batches of at most `batchSize`. */
function batches(candidates: readonly RetentionCandidate[]): RetentionCandidate[][] {
  const groups = new Map<number, RetentionCandidate[]>();
  for (const c of candidates) {
    const group = groups.get(c.marketplaceId);
    if (group) group.push(c);
    else groups.set(c.marketplaceId, [c]);
  }
  return [...groups.values()].flatMap((group) =>
    Array.from({ length: Math.ceil(group.length / batchSize) }, (_, i) =>
      group.slice(i * batchSize, (i + 1) * batchSize),
    ),
  );
}

/** Each batch soft-deleted as one command; `marketplacesAtOnce` at a time. Answers how many were deleted. */
async function softDeleteAll(
  deps: RetentionPorts,
  log: Log,
  candidates: readonly RetentionCandidate[],
  meta: CommandMeta,
): Promise<number> {
  const queue = batches(candidates);
  let acted = 0;
  const one = async (batch: RetentionCandidate[]) => {
    const marketplaceId = batch[0]!.marketplaceId;
    try {
      const items = batch.map((c) => ({ snapshotId: c.snapshotId, reason: c.criterion }));
      const { deleted } = await softDeleteByPolicy(deps, marketplaceId, items, meta);
      acted += deleted.length;
      const done = new Set(deleted.map((d) => d.snapshotId));
      const skipped = batch.filter((c) => !done.has(c.snapshotId)).map((c) => c.snapshotId);
      if (skipped.length > 0) log.info({ marketplaceId, skipped }, 'not soft-deleted: no longer eligible');
    } catch (error) {
      const snapshotIds = batch.map((c) => c.snapshotId);
      if (error instanceof Rejected)
        log.info({ marketplaceId, snapshotIds, reason: error.message }, 'not soft-deleted');
      else log.error({ err: error, marketplaceId, snapshotIds }, 'soft deletion failed; the pass goes on');
    }
  };
  const worker = async () => {
    for (let batch = queue.shift(); batch !== undefined; batch = queue.shift()) await one(batch);
  };
  await Promise.all(Array.from({ length: Math.min(marketplacesAtOnce, queue.length) }, worker));
  return acted;
}

/**
 * One evaluation pass: soft-delete every candidate as `retention-policy` (reason: its criterion), one command per
 * marketplace, then record `retention-evaluated` and wait once for the read models. A candidate no longer eligible
 * (approved, or deleted by hand meanwhile) is skipped and not counted; any other failure is logged and the pass
 * goes on. Admin only on demand; 404 for a name never registered.
 */
export async function evaluateRetention(
  deps: RetentionPorts,
  caller: PassCaller,
  marketplace: string | null,
): Promise<RetentionPass> {
  if (caller !== null) await requireAdminRole(deps, caller.actor);
  const log = deps.logger.child({ component: 'retention' });
  const meta: CommandMeta = caller?.meta ?? systemMeta(deps, 'system');
  const { candidates, vetoed } = await selection(deps, marketplace, meta.at);
  // The policy acts (principal retention-policy), not the admin who asked: no credential of theirs on its entries.
  const policyMeta: CommandMeta = {
    principal: meta.principal,
    actorType: meta.actorType,
    at: meta.at,
    correlationId: meta.correlationId,
  };
  const acted = await softDeleteAll(deps, log, candidates, policyMeta);
  const evaluated: RetentionEvaluated['data'] = {
    marketplace,
    trigger: caller === null ? 'scheduled' : 'on-demand',
    selected: candidates.length,
    acted,
    vetoed: vetoed.length,
    heldTooLong: candidates.filter((c) => c.criterion === 'held-too-long').length,
    superseded: candidates.filter((c) => c.criterion === 'superseded').length,
    evaluatedAt: meta.at,
  };
  const event = fact('retention-evaluated', evaluated);
  const { position } = await appendFacts(deps.store, streams.retention(), [event], metadataOf(meta), 'any');
  // Appended after every deletion of the pass: one wait shows them all (the marks on snapshot reads, the ledger).
  await deps.waiter.waitFor(position, ['snapshots', 'ledger']);
  log.info(evaluated, 'retention pass finished');
  deps.metrics.retentionPasses.inc({ kind: 'evaluation', trigger: evaluated.trigger });
  deps.metrics.retentionSnapshots.inc({ action: 'soft-deleted' }, acted);
  return { selected: evaluated.selected, acted };
}

const kinds = {
  evaluation: {
    component: 'retention',
    disabled: 'retention passes are not scheduled (gateway.retention.enabled is false)',
    failure: 'retention pass failed; the next runs as scheduled',
  },
  compaction: {
    component: 'compaction',
    disabled: 'gateway.housekeeping.enabled is false: compaction runs only on demand',
    failure: 'compaction pass failed',
  },
} satisfies Record<string, DutyKind>;

/**
 * The leader's scheduled retention passes: the evaluation (the deletion criteria) every
 * gateway.retention.poll-interval when gateway.retention.enabled; compaction, which deletes by no
 * criterion of its own (it purges what is past its restore window and sweeps), every
 * gateway.retention.compaction-interval when gateway.housekeeping.enabled, on by default.
 */
export function retentionDuties(deps: RetentionPorts & CompactionPorts & Pick<Ports, 'housekeeping'>): WakeableDuty[] {
  const { enabled, pollIntervalMs, compactionIntervalMs } = deps.retention;
  const housekeeping = deps.housekeeping.enabled;
  const compact = () => compactionPass(deps, systemMeta(deps, 'system'));
  return [
    periodicDuty(deps.logger, kinds.evaluation, { enabled, intervalMs: pollIntervalMs }, () =>
      evaluateRetention(deps, null, null),
    ),
    periodicDuty(deps.logger, kinds.compaction, { enabled: housekeeping, intervalMs: compactionIntervalMs }, compact),
  ];
}
