import { readScanInput } from '../../adapters/git/tree-reader.ts';
import { runChain } from '../../adapters/vetting/chain.ts';
import type { ReportProgress } from '../../domain/marketplace/ingest-progress.ts';
import { marketplaceDecider } from '../../domain/marketplace/marketplace.decider.ts';
import type { CommandMeta } from '../../domain/kernel/decider.ts';
import { streams } from '../../domain/kernel/streams.ts';
import { classify, evaluate, type Evaluation } from '../../domain/vetting/outcome.ts';
import { effectiveChain } from '../../domain/vetting/settings.decider.ts';
import { withheldPluginsVerdict } from '../../domain/vetting/unresolved-sources.ts';
import { revetResult, vettingRunDecider, type RevetMode } from '../../domain/vetting/vetting.decider.ts';
import type { Affected, Classification, Verdict, VettingTrigger } from '../../domain/vetting/vetting.events.ts';
import type { SnapshotRecord } from '../../projections/snapshots/snapshots.queries.ts';
import { fetchersOf, vettingSettings, waiversOf } from '../../projections/vetting/vetting.queries.ts';
import { execute } from '../kernel/execute.ts';
import { historyVerdict } from './history-verdict.ts';
import type { Ports } from '../kernel/ports.ts';
import { reject } from '../kernel/rejected.ts';

/** What a vetting run uses: the chain's settings, the pinned tree, ids, and the stores it records in. */
export type VettingPorts = Pick<
  Ports,
  'store' | 'waiter' | 'pool' | 'clock' | 'ids' | 'logger' | 'gitStore' | 'vetting' | 'metrics'
>;

export type VettedMarketplace = Readonly<{ id: number; name: string }>;

/** Every connector in chain order for a marketplace (described, enabled or not) and those that run, under the settings in force. */
export async function chainFor(deps: Pick<Ports, 'pool' | 'vetting'>, marketplaceId: number | null) {
  const settings = await vettingSettings(deps.pool);
  const known = deps.vetting.connectors.map((c) => c.name);
  const byName = new Map(deps.vetting.connectors.map((c) => [c.name, c]));
  const chain = effectiveChain(settings, known, marketplaceId).map((link) => ({
    ...link,
    description: byName.get(link.name)!.description,
  }));
  return { settings, chain, enabled: chain.filter((link) => link.enabled).map((link) => byName.get(link.name)!) };
}

export type RunOutcome = Readonly<{
  runId: number;
  verdicts: readonly Verdict[];
  evaluation: Evaluation;
  /** Re-vets only. */
  revet: Readonly<{
    classification: Classification;
    mode: RevetMode;
    revoked: boolean;
    affected: readonly Affected[];
  }> | null;
}>;

type RunLog = VettingPorts['logger'];

/**
 * The enabled connectors in order over the snapshot's pinned tree; what each found, not yet numbered.
 * `report` is told the files read, then each connector's verdict as it arrives: a connector reads the
 * whole tree at once, so the vetting is followed connector by connector, not file by file.
 */
async function scan(
  deps: VettingPorts,
  snapshot: SnapshotRecord,
  marketplace: VettedMarketplace,
  log: RunLog,
  report: ReportProgress,
) {
  const { settings, enabled } = await chainFor(deps, marketplace.id);
  const startedAt = deps.clock.instant();
  report({ type: 'phase', phase: 'tree' });
  const input = await readScanInput(
    deps.gitStore.quarantinePath(marketplace.id),
    snapshot.sha,
    { maxFileBytes: deps.vetting.maxFileBytes, license: deps.vetting.license },
    (done, total) => report({ type: 'files', done, total }),
  );
  log.info({ files: input.files.length, chain: enabled.map((c) => c.name), mode: settings.mode }, 'vetting started');
  let finished = 0;
  const connectors = (current: string | null) =>
    report({ type: 'connectors', done: finished, total: enabled.length, current });
  connectors(enabled[0]?.name ?? null);
  const drafts = await runChain(
    enabled,
    input,
    { snapshotId: snapshot.id, marketplace: marketplace.name, sha: snapshot.sha },
    {
      mode: settings.mode,
      timeoutMs: deps.vetting.timeoutMs,
      onVerdict: (v) => {
        deps.metrics.vetting.observe({ connector: v.connector, verdict: v.state }, v.elapsedMs / 1000);
        log.info(
          { connector: v.connector, state: v.state, findings: v.findings.length, elapsedMs: Math.round(v.elapsedMs) },
          'connector finished',
        );
        finished += 1;
        connectors(enabled[finished]?.name ?? null);
      },
    },
  );
  // In stop-on-failure mode the connectors after a FAIL or ERROR never run.
  connectors(null);
  // Plugins the ingest withheld are reported whatever the chain (unresolved-sources.ts).
  const withheld = withheldPluginsVerdict(snapshot.unresolved);
  if (withheld) drafts.push({ ...withheld, position: drafts.length, reportUrl: null, elapsedMs: 0 });
  // So is what approval would newly expose as history (vetting/history-verdict.ts).
  const history = await historyVerdict(deps, snapshot, marketplace, drafts.length, log);
  if (history) drafts.push(history);
  return { mode: settings.mode, chain: enabled.map((c) => c.name), startedAt, drafts };
}

/** Ids are allocated before deciding and written into the events (they survive a rebuild). */
async function numbered(deps: VettingPorts, drafts: Awaited<ReturnType<typeof scan>>['drafts']): Promise<Verdict[]> {
  const verdicts: Verdict[] = [];
  for (const draft of drafts) {
    const { connector, position, state, detail, reportUrl, findings } = draft;
    verdicts.push({
      verdictId: await deps.ids('vetting-verdict'),
      connector,
      position,
      state,
      detail,
      reportUrl,
      findings,
    });
  }
  return verdicts;
}

/** ENFORCE mode: a VIOLATION of an approved snapshot revokes it (publication then removes its refs). */
async function revokeForViolation(
  deps: VettingPorts,
  snapshot: SnapshotRecord,
  marketplace: VettedMarketplace,
  evaluation: Evaluation,
  meta: CommandMeta,
): Promise<boolean> {
  const rules = [...new Set(evaluation.uncovered.map((u) => u.ruleId))].join(', ');
  const decision = await execute(
    deps,
    marketplaceDecider,
    streams.marketplace(marketplace.id),
    {
      type: 'revoke-snapshot',
      data: { snapshotId: snapshot.id, reason: `re-vet violation (ENFORCE): ${rules}` },
      meta: { ...meta, at: deps.clock.instant() },
    },
    ['snapshots', 'marketplaces', 'ledger', 'publication'],
  );
  const revoked = decision.events.some((e) => e.type === 'snapshot-revoked');
  deps.logger.warn({ snapshotId: snapshot.id, rules, revoked }, 're-vet violation in ENFORCE mode');
  return revoked;
}

/**
 * One vetting run of a snapshot: the enabled connectors in order over its pinned tree, recorded as one
 * decision (verdicts, completion and, on a re-vet, the classification). In ENFORCE mode a VIOLATION of
 * an approved snapshot then revokes it, which the publication projection turns into removed refs.
 */
export async function runVetting(
  deps: VettingPorts,
  snapshot: SnapshotRecord,
  marketplace: VettedMarketplace,
  trigger: VettingTrigger,
  meta: CommandMeta,
  report: ReportProgress = () => {},
): Promise<RunOutcome> {
  const log = deps.logger.child({
    component: 'vetting',
    snapshotId: snapshot.id,
    marketplace: marketplace.name,
    trigger,
  });
  const { mode, chain, startedAt, drafts } = await scan(deps, snapshot, marketplace, log, report);
  const runId = await deps.ids('vetting-run');
  const verdicts = await numbered(deps, drafts);
  const isRevet = trigger !== 'ingestion';
  const waivers = isRevet ? await waiversOf(deps.pool, marketplace.id) : [];
  const affected = isRevet ? await fetchersOf(deps.pool, marketplace.id, snapshot.sha) : [];
  const approved = snapshot.state === 'approved';
  const finishedAt = deps.clock.instant();
  const { id: marketplaceId, name } = marketplace;
  const revet = isRevet ? { mode: deps.vetting.revetMode, waivers, affected, approved } : null;
  await execute(
    deps,
    vettingRunDecider,
    streams.vetting(snapshot.id),
    {
      type: 'record-vetting-run',
      data: {
        runId,
        snapshotId: snapshot.id,
        marketplaceId,
        marketplace: name,
        sha: snapshot.sha,
        trigger,
        mode,
        chain,
        startedAt,
        finishedAt,
        verdicts,
        revet,
      },
      meta: { ...meta, at: finishedAt },
    },
    ['vetting', 'ledger'],
  );
  const evaluation = evaluate(verdicts, snapshot.sha, waivers, finishedAt);
  const counts = {
    runId,
    outcome: evaluation.recordedOutcome,
    effective: evaluation.outcome,
    uncovered: evaluation.uncovered.length,
  };
  log.info(counts, 'vetting finished');
  if (!isRevet) return { runId, verdicts, evaluation, revet: null };

  const { classification, revoke } = revetResult(classify(evaluation), deps.vetting.revetMode, approved);
  const revoked = revoke ? await revokeForViolation(deps, snapshot, marketplace, evaluation, meta) : false;
  return { runId, verdicts, evaluation, revet: { classification, mode: deps.vetting.revetMode, revoked, affected } };
}

/**
 * A manual or scheduled re-vet and its result (docs/vetting.md, Vetting again). A re-vet of a
 * snapshot that is not approved answers 409, before the chain runs, so nothing is recorded; a held
 * snapshot is vetted again with rerunVetting instead.
 */
export async function revet(
  deps: VettingPorts,
  snapshot: SnapshotRecord,
  marketplace: VettedMarketplace,
  meta: CommandMeta,
  trigger: 'revet-manual' | 'revet-scheduled' = 'revet-manual',
) {
  if (snapshot.state !== 'approved') {
    throw reject(
      'snapshot-not-approved',
      `snapshot ${snapshot.id} is ${snapshot.state}: only an approved snapshot is re-vetted ` +
        `(vet a snapshot that is not approved again with POST /api/v1/snapshots/${snapshot.id}/vetting/rerun)`,
    );
  }
  const outcome = await runVetting(deps, snapshot, marketplace, trigger, meta);
  const revetPart = outcome.revet!;
  return {
    snapshotId: snapshot.id,
    marketplace: marketplace.name,
    sha: snapshot.sha,
    runId: outcome.runId,
    classification: revetPart.classification,
    outcome: outcome.evaluation.outcome,
    revoked: revetPart.revoked,
    mode: revetPart.mode,
    uncovered: [...outcome.evaluation.uncovered],
    affected: [...revetPart.affected],
  };
}
