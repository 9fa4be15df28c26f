// One push to /publish/{name}: the command list is read and judged first (domain/publish/push-rules.ts),
// then the pack goes on to `git receive-pack` on the quarantine; a push git applied is recorded
// (marketplace-pushed, record-push.use-case.ts) before the client hears of it, and ingested as a held
// snapshot. The route parses the request, authenticates, and sends what these answer in git's terms.
import { PktLineError } from '../../adapters/git/pkt-line.ts';
import {
  advertiseReceivePack,
  ReceiveLimitError,
  runReceivePack,
  type ReceiveLimits,
  type ReceiveRun,
} from '../../adapters/git/receive-pack.ts';
import {
  encodeReceiveAnswer,
  parseReceiveAnswer,
  readCommandSection,
  type CommandSection,
  type PushReport,
  type RefUpdate,
} from '../../adapters/git/receive-protocol.ts';
import type { CommandMeta } from '../../domain/kernel/decider.ts';
import type { PushPolicy } from '../../domain/marketplace/marketplace.events.ts';
import { publishedRef, refusePush } from '../../domain/publish/push-rules.ts';
import { liveMarketplaceByName, type MarketplaceRecord } from '../../projections/marketplaces/marketplaces.queries.ts';
import { snapshotById } from '../../projections/snapshots/snapshots.queries.ts';
import type { Log, Ports } from '../kernel/ports.ts';
import type { IngestRegistry } from '../marketplaces/ingest-registry.ts';
import { recordPush } from './record-push.use-case.ts';

export { defaultReceiveLimits, type ReceiveLimits } from '../../adapters/git/receive-pack.ts';

/** A live hosted marketplace, its push policy and its quarantine repository. */
export type PushTarget = Readonly<{ marketplace: MarketplaceRecord; policy: PushPolicy; repo: string }>;

/** The live hosted marketplace of that name and its quarantine (made when missing), or null. */
export async function pushTargetNamed(
  deps: Pick<Ports, 'pool' | 'gitStore'>,
  name: string,
): Promise<PushTarget | null> {
  const marketplace = await liveMarketplaceByName(deps.pool, name);
  if (!marketplace || marketplace.origin !== 'hosted') return null;
  const policy: PushPolicy = marketplace.pushPolicy === 'allow-rewrite' ? 'allow-rewrite' : 'append-only';
  return { marketplace, policy, repo: await deps.gitStore.ensureQuarantine(marketplace.id) };
}

/** The receive-pack ref advertisement of the target's quarantine, with the capabilities its policy allows. */
export const advertisePush = (target: PushTarget, limits: ReceiveLimits): Promise<Buffer> =>
  advertiseReceivePack(target.repo, target.policy, limits);

/** The recorded push ingested as a held snapshot, attributed to the pusher: what the pusher is told. */
export async function capturePush(
  deps: Pick<Ports, 'pool'> & Readonly<{ ingests: IngestRegistry }>,
  marketplace: MarketplaceRecord,
  meta: CommandMeta,
  newTip: string,
): Promise<string[]> {
  try {
    const { snapshotId, created } = await deps.ingests.run(marketplace, 'push', meta, newTip);
    const snapshot = await snapshotById(deps.pool, snapshotId);
    const state =
      snapshot === null ? '' : ` (${snapshot.state}${snapshot.violation === null ? '' : `: ${snapshot.violation}`})`;
    return [
      created
        ? `captured ${newTip} as snapshot ${snapshotId}${state}; nothing is served until it is approved`
        : `${newTip} was captured before, as snapshot ${snapshotId}${state}`,
    ];
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    return [
      `the push was recorded but could not be ingested: ${why}`,
      `ingest it again with POST /api/v1/marketplaces/${marketplace.name}/ingest`,
    ];
  }
}

export type ReceiveDeps = Pick<Ports, 'store' | 'waiter' | 'quarantineLocks'> & Readonly<{ limits: ReceiveLimits }>;

export type ReceiveInput = Readonly<{
  /** The request body as a stream of chunks (already inflated). */
  body: AsyncIterator<Buffer>;
  /** Who pushes, when: taken as the push is recorded. */
  meta(): CommandMeta;
  /** The request's log, so lines carry its id. */
  log: Log;
  /** The push is recorded: ingest `newTip`; what the pusher is told (a failure is told, not thrown). */
  captured(newTip: string): Promise<string[]>;
}>;

/**
 * The answer to a push: refused before git ran (the body unread to its end, so the connection closes), the
 * result to send (`drain`: read the rest of the body first), or a failure of git itself (500).
 */
export type PushAnswer =
  | Readonly<{ kind: 'refused'; status: number; why: string }>
  | Readonly<{ kind: 'result'; bytes: Buffer; drain: boolean }>
  | Readonly<{ kind: 'failed'; why: string }>;

// Errors in git's terms: plain text that the git client prints (the wire surfaces are not JSON: docs/architecture.md).
const message = (line: string): Buffer => Buffer.from(`gateway: ${line}\n`, 'utf8');

/** Reads and discards the rest of a body the gateway will not use, so the client reads the answer cleanly. */
export async function drainBody(body: AsyncIterator<Buffer>, budget: number): Promise<boolean> {
  let size = 0;
  try {
    for (let next = await body.next(); !next.done; next = await body.next()) {
      size += next.value.length;
      if (size > budget) return false;
    }
    return true;
  } catch {
    return false;
  }
}

const isZlibError = (error: unknown): boolean =>
  typeof (error as { code?: unknown }).code === 'string' && (error as { code: string }).code.startsWith('Z_');

type Refusal = Readonly<{ kind: 'refused'; status: number; why: string }>;
const refusal = (status: number, why: string): Refusal => ({ kind: 'refused', status, why });

/** Reads the body up to the end of the command list: the bytes read and the list, or why it cannot be. */
async function readCommands(
  body: AsyncIterator<Buffer>,
  limits: ReceiveLimits,
): Promise<Readonly<{ head: Buffer; section: CommandSection }> | Refusal> {
  let head = Buffer.alloc(0);
  try {
    for (;;) {
      const next = await body.next();
      if (next.done) throw new PktLineError('the command list ends early', head.length);
      head = Buffer.concat([head, next.value]);
      const section = readCommandSection(head);
      if (section !== null) return { head, section };
      if (head.length > limits.maxCommandBytes) return refusal(413, 'the command list of the push is too large');
    }
  } catch (error) {
    if (error instanceof PktLineError) return refusal(400, `malformed request: ${error.message}`);
    if (isZlibError(error)) return refusal(400, 'the request body could not be inflated');
    throw error;
  }
}

/** The report and the `remote:` messages a push is answered with. */
type Outcome = Readonly<{ messages: readonly Buffer[]; report: PushReport }>;

/** The answer to a push whose ref rules refuse it, or null when they let it through. */
function refusalOf(updates: CommandSection['updates']): Outcome | null {
  const refusals = refusePush(updates);
  if (refusals.length === 0) return null;
  const report: PushReport = {
    unpack: 'ok',
    refs: refusals.map((r) => ({ ref: r.ref, ok: false, reason: r.reason })),
  };
  const messages = [...new Set(refusals.map((r) => r.reason))].map(message);
  return { messages, report };
}

/** Runs `git receive-pack` on the quarantine with the bytes already read and the rest of the body. */
async function runGit(
  target: PushTarget,
  head: Buffer,
  body: AsyncIterator<Buffer>,
  limits: ReceiveLimits,
): Promise<ReceiveRun | Refusal> {
  try {
    return await runReceivePack(target.repo, target.policy, head, body, limits);
  } catch (error) {
    if (error instanceof ReceiveLimitError) return refusal(413, error.message);
    if (isZlibError(error)) return refusal(400, 'the request body could not be inflated');
    throw error;
  }
}

/** After git ran: a push git applied to main is recorded (or refused after all); a rewrite is explained. */
async function settle(
  deps: ReceiveDeps,
  input: ReceiveInput,
  target: PushTarget,
  update: RefUpdate,
  answer: Outcome,
): Promise<Outcome> {
  const messages = [...answer.messages];
  let report = answer.report;
  const main = report.refs.find((r) => r.ref === publishedRef);
  if (report.unpack === 'ok' && main?.ok === true && update.newSha !== null) {
    const { marketplace, policy, repo } = target;
    const push = { marketplace, policy, repo, previousTip: update.oldSha, newTip: update.newSha };
    const refused = await recordPush(deps, input.log, push, input.meta());
    if (refused === null) messages.push(...(await input.captured(update.newSha)).map(message));
    else {
      messages.push(message(refused));
      report = { unpack: 'ok', refs: [{ ref: publishedRef, ok: false, reason: refused }] };
    }
  } else if (main?.reason === 'non-fast-forward') {
    const name = target.marketplace.name;
    messages.push(message(`${name} is append-only: a push that rewrites the history of main is refused`));
  }
  return { messages, report };
}

/** Receives one push into `target`: what the pusher is answered. */
export async function receivePush(deps: ReceiveDeps, target: PushTarget, input: ReceiveInput): Promise<PushAnswer> {
  const { limits } = deps;
  const commands = await readCommands(input.body, limits);
  if ('why' in commands) return commands;
  const { head, section } = commands;
  // git's probe before a large push is a lone flush: there is nothing to run.
  if (section.updates.length === 0) return { kind: 'result', bytes: Buffer.alloc(0), drain: true };
  const sideband = section.capabilities.includes('side-band-64k');
  if (!section.capabilities.includes('report-status') && !section.capabilities.includes('report-status-v2')) {
    return refusal(400, 'a push must ask for report-status');
  }
  // Ref rules first: a refused push never reaches git.
  const refused = refusalOf(section.updates);
  if (refused !== null) return { kind: 'result', bytes: encodeReceiveAnswer(refused, sideband), drain: true };

  // Shared quarantine lock while git writes objects and moves main: compaction never prunes under a push.
  const run = await deps.quarantineLocks.shared(target.marketplace.id, () => runGit(target, head, input.body, limits));
  if ('why' in run) return run;
  const answer = parseReceiveAnswer(run.output, sideband);
  if (answer.report === null) {
    input.log.error({ exitCode: run.exitCode, stderr: run.stderr, fatal: answer.fatal }, 'receive-pack gave no report');
    return {
      kind: 'failed',
      why: `the gateway could not complete this push: ${answer.fatal ?? 'git receive-pack failed'}`,
    };
  }
  const outcome = await settle(deps, input, target, section.updates[0]!, {
    messages: answer.messages,
    report: answer.report,
  });
  return { kind: 'result', bytes: encodeReceiveAnswer(outcome, sideband), drain: false };
}
