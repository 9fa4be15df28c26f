import { appendFacts } from '../../adapters/eventstore/append-facts.ts';
import { metadataOf } from '../kernel/run-command.ts';
import { pushToMirror, scrubbed, type MirrorAuth } from '../../adapters/git/mirror-remote.ts';
import { fact } from '../../domain/events.ts';
import { mirrorPlan, refspecsOf } from '../../domain/mirror/mirror-drift.ts';
import type { MirrorReconciled, MirrorTargetOutcome } from '../../domain/mirror/mirror.events.ts';
import { mirrorUrlOf } from '../../domain/mirror/mirror-url.ts';
import { parseSecretReference } from '../../domain/kernel/secret-reference.ts';
import { streams } from '../../domain/kernel/streams.ts';
import type { MirrorSignal, MirrorWake } from '../../domain/mirror/mirror-signal.ts';
import type { LeaderDuty } from '../../projections/runner/leader.ts';
import {
  credentialsOrProblem,
  emptyRepo,
  mirrorTargets,
  remoteState,
  servedState,
  settledReadModels,
  type MirroredCatalog,
  type MirrorPorts,
  type MirrorTarget,
  type ServedState,
} from './reconcile.use-case.ts';
import type { Ports } from '../kernel/ports.ts';
import { systemMeta } from '../kernel/system-meta.use-case.ts';

/** gateway.mirror.* as loaded: the credentials reference was checked when the configuration was. */
export function mirrorSettings(mirror: Readonly<{ url: string | null; credentials: string | null }>): Ports['mirror'] {
  const reference = mirror.credentials === null ? null : parseSecretReference(mirror.credentials);
  return {
    url: mirror.url,
    credentials: reference === null || 'error' in reference ? null : reference,
    reconcileWaitMs: 30_000,
  };
}

type Trigger = MirrorReconciled['data']['trigger'];
type Context = Readonly<{ deps: MirrorPorts; catalog: MirroredCatalog | null; template: string }>;

const unattempted = (target: MirrorTarget) => ({
  name: target.name,
  marketplaceId: target.marketplaceId,
  pushed: 0,
  deleted: 0,
  retired: false,
});

/** How long a refused catalog waits for the build in progress before it is read again. */
const catalogBuildWaitMs = 10_000;

/**
 * Served state, read again once when it refuses: after the read models settle (publication may have lagged) and,
 * for the catalog, after the build in progress (an approval's catalog build follows its answer, so the first
 * marketplace can be served a moment before the first catalog is; bounded, as a failing build is retried).
 */
async function servedOrRefused(ctx: Context, target: MirrorTarget): Promise<ServedState> {
  const first = await servedState(ctx.deps, target, ctx.catalog);
  if (!('refused' in first)) return first;
  await settledReadModels(ctx.deps);
  if (target.kind === 'catalog' && ctx.catalog) {
    let timer: NodeJS.Timeout | undefined;
    const giveUp = new Promise<void>((resolve) => (timer = setTimeout(resolve, catalogBuildWaitMs).unref()));
    await Promise.race([ctx.catalog.idle(), giveUp]);
    clearTimeout(timer);
  }
  return servedState(ctx.deps, target, ctx.catalog);
}

/** One name: compare, then push exactly the difference (explicit refspecs, deletions included), or refuse. */
async function reconcileTarget(ctx: Context, target: MirrorTarget, auth: MirrorAuth): Promise<MirrorTargetOutcome> {
  const base = unattempted(target);
  const served = await servedOrRefused(ctx, target);
  if ('refused' in served) return { ...base, outcome: 'failed', error: `refused: ${served.refused}` };
  const url = mirrorUrlOf(ctx.template, target.name);
  const mirror = await remoteState(ctx.deps.gitStore.remote, url, auth);
  if ('unreachable' in mirror)
    return { ...base, outcome: 'failed', error: `mirror unreachable: ${mirror.unreachable}` };
  const plan = mirrorPlan(served.refs, mirror.refs);
  const retired = served.refs.size === 0;
  if (plan.set.length === 0 && plan.remove.length === 0) return { ...base, outcome: 'ok', error: null, retired };
  try {
    const gitDir = target.gitDir ?? (await emptyRepo(ctx.deps));
    await pushToMirror(ctx.deps.gitStore.remote, gitDir, url, auth, refspecsOf(plan));
  } catch (error) {
    return { ...base, outcome: 'failed', error: `push failed: ${scrubbed(auth, error)}` };
  }
  return { ...base, outcome: 'ok', error: null, pushed: plan.set.length, deleted: plan.remove.length, retired };
}

/**
 * Whether a name's outcome changes what the drift report says: a failure, a push, a name followed for the
 * first time or retired, or a failed name back in sync. A pass that only confirms an ok name records nothing.
 */
const worthRecording = (o: MirrorTargetOutcome, target: MirrorTarget): boolean =>
  o.outcome === 'failed' ||
  o.pushed + o.deleted > 0 ||
  (o.retired ? target.last !== null : target.last === null || target.last.outcome === 'failed');

/**
 * One mirror pass (leader): every followed name compared and brought in line. Recorded as mirror-reconciled
 * when it pushed, deleted, retired a name, failed, or answers a request; each refusal also as
 * mirror-reconciliation-refused (once per new refusal, or when asked for). Returns whether any name failed.
 */
export async function mirrorPass(ctx: Context, trigger: Trigger, requests: readonly string[]): Promise<boolean> {
  const { deps } = ctx;
  await settledReadModels(deps);
  const { auth, problem: authProblem } = credentialsOrProblem(deps);
  const targets = await mirrorTargets(deps, ctx.catalog);
  const outcomes: MirrorTargetOutcome[] = [];
  for (const target of targets) {
    outcomes.push(
      authProblem === null
        ? await reconcileTarget(ctx, target, auth)
        : { ...unattempted(target), outcome: 'failed', error: authProblem },
    );
  }
  const acted = outcomes.filter((o, i) => worthRecording(o, targets[i]!));
  const refusals = outcomes
    .filter((o, i) => o.error?.startsWith('refused: ') && (requests.length > 0 || targets[i]!.last?.error !== o.error))
    .map((o) =>
      fact('mirror-reconciliation-refused', {
        name: o.name,
        marketplaceId: o.marketplaceId,
        reason: o.error!.slice('refused: '.length),
      }),
    );
  if (acted.length > 0 || requests.length > 0) {
    const meta = systemMeta(deps, 'system');
    const reconciled = fact('mirror-reconciled', { at: meta.at, trigger, requests, targets: outcomes });
    await appendFacts(deps.store, streams.mirror(), [...refusals, reconciled], metadataOf(meta), 'any');
  }
  for (const o of outcomes.filter((o) => o.outcome === 'failed'))
    deps.logger.warn({ mirror: o.name, error: o.error }, 'mirror: not in sync');
  return outcomes.some((o) => o.outcome === 'failed');
}

const maxBackoffMs = 300_000;
const verifyIntervalMs = 15 * 60_000;

/**
 * The leader's mirror duty: a pass at start, after each change of what is served or request (the mirror
 * reactor wakes it), every 15 minutes to catch drift made on the mirror, and after a failed pass again with
 * backoff (1 s doubling to 5 min) until the mirror is in sync. Never two passes at once.
 */
export function mirrorDuty(deps: MirrorPorts, catalog: MirroredCatalog | null, signal: MirrorSignal): LeaderDuty {
  const log = deps.logger.child({ component: 'mirror' });
  const template = deps.mirror.url;
  let active = false;
  let running: Promise<void> | null = null;
  let pending: { trigger: Trigger; requests: string[] } | null = null;
  let failures = 0;
  let retry: NodeJS.Timeout | null = null;
  let verify: NodeJS.Timeout | null = null;

  const wake = (w: MirrorWake | { trigger: Trigger; requestId: null }) => {
    if (!active) return;
    pending ??= { trigger: w.trigger, requests: [] };
    if (w.trigger === 'api') pending.trigger = 'api';
    if (w.requestId !== null) pending.requests.push(w.requestId);
    if (!running) run();
  };
  const run = () => {
    if (retry) clearTimeout(retry);
    retry = null;
    const { trigger, requests } = pending!;
    pending = null;
    running = mirrorPass({ deps, catalog, template: template! }, trigger, requests)
      .then((failed) => {
        failures = failed ? failures + 1 : 0;
      })
      .catch((error: unknown) => {
        failures += 1;
        log.error({ err: error }, 'mirror pass failed');
      })
      .finally(() => {
        running = null;
        if (!active) return;
        if (pending) run();
        else if (failures > 0) {
          retry = setTimeout(
            () => wake({ trigger: 'retry', requestId: null }),
            Math.min(1000 * 2 ** (failures - 1), maxBackoffMs),
          );
          retry.unref();
        }
      });
  };
  return {
    start() {
      if (template === null) {
        log.info('gateway.mirror.url is unset: nothing is mirrored');
        return;
      }
      active = true;
      signal.listen(wake);
      verify = setInterval(() => wake({ trigger: 'change', requestId: null }), verifyIntervalMs);
      verify.unref();
      wake({ trigger: 'startup', requestId: null });
    },
    async stop() {
      active = false;
      signal.listen(null);
      if (retry) clearTimeout(retry);
      if (verify) clearInterval(verify);
      retry = verify = null;
      pending = null;
      while (running) await running;
    },
  };
}
