import { accept, type Command, type Decider, type Instant } from '../kernel/decider.ts';
import type { VerdictState } from '../kernel/findings.ts';
import { classify, evaluate, recordedOutcomeOf, type WaiverTerms } from './outcome.ts';
import type {
  Affected,
  ChainMode,
  Classification,
  RunRef,
  VettingCompleted,
  VettingEvent,
  Verdict,
  VettingVerdictRecorded,
} from './vetting.events.ts';

// The runs of one snapshot live in its vetting stream (streams.vetting(snapshotId)). A run is decided
// whole once the chain has finished: its verdicts, the completion and, on a re-vet, the classification.

export type RevetMode = 'WARN' | 'ENFORCE';

export type RecordRun = Command<
  'record-vetting-run',
  RunRef & {
    mode: ChainMode;
    chain: readonly string[];
    startedAt: Instant;
    finishedAt: Instant;
    verdicts: readonly Verdict[];
    /**
     * Re-vets only: the marketplace's waivers (the classification counts those active at meta.at), who
     * fetched the commit, and whether the snapshot is approved (only an approval can be revoked).
     */
    revet: Readonly<{
      mode: RevetMode;
      waivers: readonly WaiverTerms[];
      affected: readonly Affected[];
      approved: boolean;
    }> | null;
  }
>;

export type RunState = Readonly<{ lastStates: ReadonlyMap<string, VerdictState> }>;

export type RevetResult = Readonly<{ classification: Classification; revoke: boolean }>;

/**
 * A VIOLATION of an approved snapshot in ENFORCE mode revokes; WARN mode and INCONCLUSIVE never do (docs/vetting.md).
 */
export const revetResult = (classification: Classification, mode: RevetMode, approved: boolean): RevetResult => ({
  classification,
  revoke: classification === 'VIOLATION' && mode === 'ENFORCE' && approved,
});

export const vettingRunDecider: Decider<RunState, RecordRun, VettingEvent> = {
  initialState: () => ({ lastStates: new Map() }),
  evolve(state, event) {
    if (event.type !== 'vetting-completed') return state;
    return { lastStates: new Map(event.data.verdicts.map((v) => [v.connector, v.state])) };
  },
  decide(command, state) {
    const { revet, verdicts, ...run } = command.data;
    const ref = {
      runId: run.runId,
      snapshotId: run.snapshotId,
      marketplaceId: run.marketplaceId,
      marketplace: run.marketplace,
      sha: run.sha,
      trigger: run.trigger,
    };
    // Ingestion records every verdict; a re-vet only those that changed.
    const verdictEvents = verdicts
      .filter((verdict) => revet === null || state.lastStates.get(verdict.connector) !== verdict.state)
      .map((verdict): VettingVerdictRecorded => ({
        type: 'vetting-verdict',
        data: { ...ref, verdict, previousState: state.lastStates.get(verdict.connector) ?? null },
      }));
    const completed: VettingCompleted = {
      type: 'vetting-completed',
      data: {
        ...ref,
        outcome: recordedOutcomeOf(verdicts),
        startedAt: run.startedAt,
        finishedAt: run.finishedAt,
        chain: run.chain,
        mode: run.mode,
        verdicts,
      },
    };
    if (revet === null) return accept<VettingEvent>(...verdictEvents, completed);
    const evaluation = evaluate(verdicts, run.sha, revet.waivers, command.meta.at);
    const { classification, revoke } = revetResult(classify(evaluation), revet.mode, revet.approved);
    const data = { ...ref, mode: revet.mode, outcome: evaluation.outcome, uncovered: evaluation.uncovered };
    const outcomeEvents: VettingEvent[] =
      classification === 'CLEAR'
        ? [{ type: 'revet-clear', data }]
        : classification === 'INCONCLUSIVE'
          ? [{ type: 'revet-inconclusive', data }]
          : [
              { type: 'revet-violation', data: { ...data, revoked: revoke } },
              { type: 'revet-violation-affected', data: { ...ref, affected: revet.affected } },
            ];
    return accept<VettingEvent>(...verdictEvents, completed, ...outcomeEvents);
  },
};
