// The declarative estate's runs (docs/estate.md): at startup on the leader (trigger `startup`) when
// gateway.estate.file is set, and by POST /api/v1/estate/reconcile (trigger `api`, admin), each re-reading the
// file; GET /api/v1/estate answers the last report (auditor or admin). A run that applied records
// `estate-reconcile-triggered` with its report; a file that fails to load, or a run that fails as a whole,
// applies nothing more and records `estate-reconciliation-failed`. Runs go one at a time.
import { appendFacts } from '../../adapters/eventstore/append-facts.ts';
import { metadataOf } from '../kernel/run-command.ts';
import { loadEstateFile, type LoadedEstateFile } from '../../adapters/estate/estate-file.ts';
import type { EstateTrigger } from '../../domain/estate/estate.events.ts';
import type { EstateReport } from '../../domain/estate/estate.ts';
import { fact } from '../../domain/events.ts';
import type { CommandMeta } from '../../domain/kernel/decider.ts';
import { streams } from '../../domain/kernel/streams.ts';
import { lastEstateReport } from '../../projections/estate/estate.queries.ts';
import type { LeaderDuty } from '../../projections/runner/leader.ts';
import { applyEstate, reconcilerPrincipal, type ReconcilePorts } from './apply-estate.ts';
import type { Actor } from '../kernel/ports.ts';
import { reject } from '../kernel/rejected.ts';
import { requireAdminRole, requireAuditorRole } from '../access/standing.ts';
import { systemMeta } from '../kernel/system-meta.use-case.ts';

export type EstatePorts = ReconcilePorts & Readonly<{ estate: Readonly<{ file: string | null }> }>;

/** What the items are applied as: config-reconciler, correlated with what triggered the run. */
const reconcilerMeta = (deps: EstatePorts, trigger: CommandMeta): CommandMeta => ({
  principal: reconcilerPrincipal,
  actorType: 'system',
  at: deps.clock.instant(),
  correlationId: trigger.correlationId,
});

async function recordFailure(
  deps: EstatePorts,
  trigger: EstateTrigger,
  file: string,
  problems: readonly string[],
  meta: CommandMeta,
): Promise<void> {
  const failed = fact('estate-reconciliation-failed', { trigger, file, failedAt: meta.at, problems });
  const { position } = await appendFacts(deps.store, streams.estate(), [failed], metadataOf(meta), 'any');
  await deps.waiter.waitFor(position, ['ledger']);
}

/**
 * One run of what `file` declared, as `loaded` (the estate, or why it failed to load): a file that failed
 * applies nothing (422 estate-invalid, every `<file>:<line>: <message>` in `errors`). `meta` is who
 * triggered it (the admin, or config-reconciler at startup); the items are applied as config-reconciler.
 */
export async function reconcileEstate(
  deps: EstatePorts,
  file: string,
  loaded: LoadedEstateFile,
  trigger: EstateTrigger,
  meta: CommandMeta,
): Promise<EstateReport> {
  if (!loaded.ok) {
    await recordFailure(deps, trigger, file, loaded.errors, meta);
    throw reject('estate-invalid', `the estate file applies nothing: ${loaded.errors.join('; ')}`, {
      errors: loaded.errors,
    });
  }
  let report: EstateReport;
  try {
    report = await applyEstate(deps, loaded.estate, trigger, reconcilerMeta(deps, meta));
  } catch (error) {
    // Each item's failure is its own line: what reaches here failed the run itself (the database, most likely).
    await recordFailure(deps, trigger, file, ['the run failed as a whole; see the gateway log'], meta).catch(
      () => undefined,
    );
    throw error;
  }
  const triggered = fact('estate-reconcile-triggered', { report, file });
  const { position } = await appendFacts(deps.store, streams.estate(), [triggered], metadataOf(meta), 'any');
  await deps.waiter.waitFor(position, ['estate', 'ledger']);
  return report;
}

// One run at a time per event store (two at once would both create what neither found).
const running = new WeakMap<object, Promise<unknown>>();

function oneAtATime<T>(deps: EstatePorts, run: () => Promise<T>): Promise<T> {
  const before = running.get(deps.store) ?? Promise.resolve();
  const next = before.then(run, run);
  running.set(
    deps.store,
    next.catch(() => undefined),
  );
  return next;
}

/** A run of the configured file, re-read now. */
const runFile = (deps: EstatePorts, file: string, trigger: EstateTrigger, meta: CommandMeta) =>
  oneAtATime(deps, async () =>
    reconcileEstate(deps, file, await loadEstateFile(file, deps.marketplaces.allowedUrlSchemes), trigger, meta),
  );

/** A reconciliation's answer: the report, and whether an estate file is configured at all. */
export type EstateReconciliation = EstateReport & Readonly<{ configured: boolean }>;

/**
 * POST /api/v1/estate/reconcile (admin): a run now. Without gateway.estate.file there is nothing to apply, which
 * is not an error: an empty report with configured false, nothing recorded (decision 358).
 */
export async function reconcileEstateNow(
  deps: EstatePorts,
  actor: Actor,
  meta: CommandMeta,
): Promise<EstateReconciliation> {
  await requireAdminRole(deps, actor);
  const { file } = deps.estate;
  if (file === null) {
    const empty = { entries: [], created: 0, updated: 0, unchanged: 0, failed: 0 };
    return { ranAt: meta.at, trigger: 'api', ...empty, configured: false };
  }
  return { ...(await runFile(deps, file, 'api', meta)), configured: true };
}

/**
 * GET /api/v1/estate (auditor or admin): the last run's report; 404 before any run applied. The 404 says
 * whether gateway.estate.file is set (`configured`), so a client offers a reconcile only where one can
 * apply something (decision 421).
 */
export async function estateReport(deps: EstatePorts, actor: Actor): Promise<EstateReport> {
  await requireAuditorRole(deps, actor);
  const report = await lastEstateReport(deps.pool);
  const configured = deps.estate.file !== null;
  if (report === null)
    throw reject(
      'not-found',
      configured
        ? 'no estate reconciliation has applied yet (gateway.estate.file is set)'
        : 'no estate reconciliation has run: gateway.estate.file is not set',
      { configured },
    );
  return report;
}

/**
 * The startup run, on the leader (each time it becomes the leader), when gateway.estate.file is set. It runs
 * beside the other duties (an unreadable upstream must not hold the gateway up); stop waits for it.
 */
export function estateDuty(deps: EstatePorts): LeaderDuty {
  let run: Promise<unknown> = Promise.resolve();
  const log = deps.logger.child({ component: 'estate' });
  return {
    start() {
      const { file } = deps.estate;
      if (file === null) return;
      run = runFile(deps, file, 'startup', systemMeta(deps, reconcilerPrincipal)).then(
        (report) => log.info({ ...report, entries: undefined }, 'estate reconciled at startup'),
        (error: unknown) => log.error({ err: error }, 'estate reconciliation at startup applied nothing'),
      );
    },
    async stop() {
      await run;
    },
  };
}
