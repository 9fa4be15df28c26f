import { evaluate } from '../../domain/vetting/outcome.ts';
import { latestRun, waiversOf } from '../../projections/vetting/vetting.queries.ts';
import { addressedSnapshot, type AddressedSnapshot } from '../snapshots/addressed-snapshot.ts';
import type { Ports } from '../kernel/ports.ts';
import { chainFor } from './run-vetting.ts';

export type ReportPorts = Pick<Ports, 'pool' | 'gitStore' | 'vetting'>;

/**
 * The vetting report (docs/vetting.md): the latest run, and the outcome in force at `at`, recomputed from that run and
 * the waivers active then (a snapshot never vetted reports BLOCKED with run null).
 */
export async function reportOf(
  deps: ReportPorts,
  subject: Pick<AddressedSnapshot, 'snapshot' | 'marketplace'>,
  at: string,
) {
  const { snapshot, marketplace } = subject;
  const [run, waivers, { chain }] = await Promise.all([
    latestRun(deps.pool, snapshot.id),
    waiversOf(deps.pool, marketplace.id),
    chainFor(deps, marketplace.id),
  ]);
  const evaluation = evaluate(run?.verdicts ?? null, snapshot.sha, waivers, at);
  const rules = new Set(run?.verdicts.flatMap((v) => v.findings.map((f) => f.id)) ?? []);
  return {
    snapshotId: snapshot.id,
    outcome: evaluation.outcome,
    recordedOutcome: run?.outcome ?? evaluation.recordedOutcome,
    run: run && {
      runId: run.runId,
      snapshotId: run.snapshotId,
      trigger: run.trigger,
      outcome: run.outcome,
      startedAt: run.startedAt,
      finishedAt: run.finishedAt,
      verdicts: run.verdicts.map((v) => ({ ...v, findings: [...v.findings] })),
    },
    suppressed: [...evaluation.suppressed],
    uncovered: [...evaluation.uncovered],
    waivers: waivers.filter((w) => rules.has(w.ruleId)),
    connectors: chain,
    /** The instant the outcome was computed for, at which the waivers are to be shown too. */
    at,
  };
}

/** The vetting report of the addressed snapshot; 404 when unknown. */
export async function vettingReport(deps: ReportPorts, snapshotId: number, at: string) {
  return reportOf(deps, await addressedSnapshot(deps, snapshotId, { readsContent: false }), at);
}
