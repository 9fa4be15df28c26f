// One push to /publish/{name}: the command list is read and judged first (domain/publish/push-rules.ts),
// then the pack goes on to `git receive-pack` on the quarantine; a push git applied is recorded
// (marketplace-pushed, application/facade/record-push.use-case.ts) before the client hears of it, and handed on to be
// ingested as a held snapshot.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { pipeline, type Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { PktLineError } from '../../adapters/git/pkt-line.ts';
import {
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
import { recordPush } from '../../application/facade/record-push.use-case.ts';
import type { PushPolicy } from '../../domain/marketplace/marketplace.events.ts';
import { publishedRef, refusePush } from '../../domain/publish/push-rules.ts';
import type { MarketplaceRecord } from '../../projections/marketplaces/marketplaces.queries.ts';
import type { FacadeCaller } from '../auth/facade-credentials.ts';
import type { HttpDeps } from '../http-deps.ts';
import { facadeMeta, text } from './wire.ts';

export const requestType = 'application/x-git-receive-pack-request';
const resultType = 'application/x-git-receive-pack-result';

/** A live hosted marketplace the caller may push to, its push policy and its quarantine repository. */
export type PushTarget = Readonly<{
  marketplace: MarketplaceRecord;
  policy: PushPolicy;
  repo: string;
  caller: FacadeCaller;
}>;

export type ReceiveDeps = Pick<HttpDeps, 'store' | 'waiter' | 'clock' | 'quarantineLocks'> &
  Readonly<{
    limits: ReceiveLimits;
    /** The push is recorded: ingest `newTip`; what the pusher is told (a failure is told, not thrown). */
    captured(newTip: string): Promise<string[]>;
  }>;

// Errors in git's terms: plain text that the git client prints (the wire surfaces are not JSON: docs/architecture.md).
const message = (line: string): Buffer => Buffer.from(`gateway: ${line}\n`, 'utf8');

/** Reads and discards the rest of a body the gateway will not use, so the client reads the answer cleanly. */
async function drain(body: AsyncIterator<Buffer>, budget: number): Promise<boolean> {
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

type Refusal = Readonly<{ status: number; why: string }>;

/** The request body as a stream of chunks (inflated when gzip), or why it cannot be read. */
function bodyOf(request: FastifyRequest): AsyncIterator<Buffer> | Refusal {
  const raw = request.body as Readable | undefined;
  const streamed = Boolean(raw) && typeof (raw as Partial<Readable>).pipe === 'function';
  if (!raw || !streamed) return { status: 415, why: `expected ${requestType}` };
  const encoding = request.headers['content-encoding'];
  if (encoding !== undefined && encoding !== 'identity' && encoding !== 'gzip') {
    return { status: 415, why: `unsupported content encoding '${encoding}'` };
  }
  const source = encoding === 'gzip' ? pipeline(raw, createGunzip(), () => {}) : raw;
  return source[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
}

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
      if (head.length > limits.maxCommandBytes) {
        return { status: 413, why: 'the command list of the push is too large' };
      }
    }
  } catch (error) {
    if (error instanceof PktLineError) return { status: 400, why: `malformed request: ${error.message}` };
    if (isZlibError(error)) return { status: 400, why: 'the request body could not be inflated' };
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
    if (error instanceof ReceiveLimitError) return { status: 413, why: error.message };
    if (isZlibError(error)) return { status: 400, why: 'the request body could not be inflated' };
    throw error;
  }
}

/** After git ran: a push git applied to main is recorded (or refused after all); a rewrite is explained. */
async function settle(
  deps: ReceiveDeps,
  request: FastifyRequest,
  target: PushTarget,
  update: RefUpdate,
  answer: Outcome,
): Promise<Outcome> {
  const messages = [...answer.messages];
  let report = answer.report;
  const main = report.refs.find((r) => r.ref === publishedRef);
  if (report.unpack === 'ok' && main?.ok === true && update.newSha !== null) {
    const { marketplace, policy, repo, caller } = target;
    const refusal = await recordPush(
      deps,
      request.log,
      {
        marketplace,
        policy,
        repo,
        previousTip: update.oldSha,
        newTip: update.newSha,
      },
      facadeMeta(request, caller, deps.clock.instant()),
    );
    if (refusal === null) messages.push(...(await deps.captured(update.newSha)).map(message));
    else {
      messages.push(message(refusal));
      report = { unpack: 'ok', refs: [{ ref: publishedRef, ok: false, reason: refusal }] };
    }
  } else if (main?.reason === 'non-fast-forward') {
    const name = target.marketplace.name;
    messages.push(message(`${name} is append-only: a push that rewrites the history of main is refused`));
  }
  return { messages, report };
}

/** Answers one `git-receive-pack` request of `target`. */
export async function receive(
  deps: ReceiveDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  target: PushTarget,
): Promise<FastifyReply> {
  const { limits } = deps;
  const body = bodyOf(request);
  if ('why' in body) return text(reply, body.status, body.why);
  // An answer given before the body is read to its end closes the connection.
  const refuse = ({ status, why }: Refusal) => text(reply.header('connection', 'close'), status, why);
  const commands = await readCommands(body, limits);
  if ('why' in commands) return refuse(commands);
  const { head, section } = commands;

  const resultOf = (bytes: Buffer) =>
    reply.code(200).header('content-type', resultType).header('cache-control', 'no-cache').send(bytes);
  const drainedResultOf = async (bytes: Buffer) => {
    if (!(await drain(body, limits.maxBodyBytes))) void reply.header('connection', 'close');
    return resultOf(bytes);
  };
  // git's probe before a large push is a lone flush: there is nothing to run.
  if (section.updates.length === 0) return drainedResultOf(Buffer.alloc(0));
  const sideband = section.capabilities.includes('side-band-64k');
  if (!section.capabilities.includes('report-status') && !section.capabilities.includes('report-status-v2')) {
    return refuse({ status: 400, why: 'a push must ask for report-status' });
  }
  // Ref rules first: a refused push never reaches git.
  const refused = refusalOf(section.updates);
  if (refused !== null) return drainedResultOf(encodeReceiveAnswer(refused, sideband));

  // Shared quarantine lock while git writes objects and moves main: compaction never prunes under a push.
  const run = await deps.quarantineLocks.shared(target.marketplace.id, () => runGit(target, head, body, limits));
  if ('why' in run) return refuse(run);
  const answer = parseReceiveAnswer(run.output, sideband);
  if (answer.report === null) {
    request.log.error(
      { exitCode: run.exitCode, stderr: run.stderr, fatal: answer.fatal },
      'receive-pack gave no report',
    );
    return text(reply, 500, `the gateway could not complete this push: ${answer.fatal ?? 'git receive-pack failed'}`);
  }
  const outcome = await settle(deps, request, target, section.updates[0]!, {
    messages: answer.messages,
    report: answer.report,
  });
  return resultOf(encodeReceiveAnswer(outcome, sideband));
}
