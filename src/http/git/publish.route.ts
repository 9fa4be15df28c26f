import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { pipeline, type Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { Type } from 'typebox';
import { runCommand } from '../../adapters/eventstore/run-command.ts';
import { encodePktLine, flushPkt, PktLineError } from '../../adapters/git/pkt-line.ts';
import {
  advertiseReceivePack, defaultReceiveLimits, isAncestor, pinPushed, ReceiveLimitError, restoreRef, runReceivePack, unpin,
  type ReceiveLimits,
} from '../../adapters/git/receive-pack.ts';
import {
  encodeReceiveAnswer, parseReceiveAnswer, readCommandSection, type CommandSection, type PushReport,
} from '../../adapters/git/receive-protocol.ts';
import type { PushPolicy } from '../../domain/marketplace/marketplace.events.ts';
import { publishDecider } from '../../domain/publish/publish.decider.ts';
import { publishedRef, refusePush } from '../../domain/publish/push-rules.ts';
import type { CommandMeta } from '../../domain/shared/decider.ts';
import { streams } from '../../domain/shared/streams.ts';
import { liveMarketplaceByName, type MarketplaceRecord } from '../../projections/marketplaces/marketplaces.queries.ts';
import { snapshotById } from '../../projections/snapshots/snapshots.queries.ts';
import { ingest } from '../api/marketplaces/ingest.ts';
import { mayPush, type FacadeCaller, type FacadeCredentialDeps } from '../auth/facade-credentials.ts';
import type { HttpApp, HttpDeps } from '../http-deps.ts';
import { notFound, text, wireCaller, wireErrorHandler } from './wire.ts';

// Hosted publishing (spec: "a publisher pushes to /publish/{name}"): the receive side of git smart
// HTTP over the system `git receive-pack`, into the marketplace's quarantine repository. A push never
// changes what is served: it is recorded (marketplace-pushed) and ingested as a held snapshot.

const requestType = 'application/x-git-receive-pack-request';
const resultType = 'application/x-git-receive-pack-result';

type Target = Readonly<{ marketplace: MarketplaceRecord; policy: PushPolicy; repo: string; caller: FacadeCaller }>;

// Errors in git's terms: plain text that the git client prints (DESIGN.md: the wire surfaces are not JSON).
const message = (line: string): Buffer => Buffer.from(`gateway: ${line}\n`, 'utf8');

/** The decider refused to record a push git had applied (a rewrite on append-only). */
class PushNotRecorded extends Error {}

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

export function publishRoutes(app: HttpApp, deps: HttpDeps, credentials: FacadeCredentialDeps, limits: ReceiveLimits = defaultReceiveLimits): void {
  app.register(async (plain) => {
    const git = plain.withTypeProvider<TypeBoxTypeProvider>();
    // The body is read as a stream: the command list is judged first, then the pack goes on to git.
    git.addContentTypeParser(requestType, (_request, payload, done) => done(null, payload));
    git.setNotFoundHandler((_request, reply) => notFound(reply));
    git.setErrorHandler(wireErrorHandler('publish', requestType, 'the gateway could not complete this push; nothing was published'));

    /**
     * Authenticated like the facade; then live, hosted, and named by the token's push scopes: anything
     * else answers as a nonexistent repository (spec, Tokens rule 3).
     */
    async function target(request: FastifyRequest, rawName: string, reply: FastifyReply): Promise<Target | null> {
      const authenticated = await wireCaller(credentials, request, rawName, reply);
      if (!authenticated) return null;
      const { name, caller } = authenticated;
      const marketplace = await liveMarketplaceByName(deps.pool, name);
      if (!marketplace || marketplace.origin !== 'hosted' || !mayPush(caller, name)) { notFound(reply); return null; }
      const policy: PushPolicy = marketplace.pushPolicy === 'allow-rewrite' ? 'allow-rewrite' : 'append-only';
      return { marketplace, policy, repo: await deps.gitStore.ensureQuarantine(marketplace.id), caller };
    }

    const metaOf = (request: FastifyRequest, caller: FacadeCaller): CommandMeta => ({
      principal: caller.principal, actorType: 'human', at: deps.clock.instant(), correlationId: request.id, source: request.ip,
      ...(caller.tokenId === null ? {} : { credentialId: caller.tokenId }),
    });

    const uploadPackRefused = (reply: FastifyReply) => text(reply, 403, "Service not enabled: 'upload-pack' (fetch approved content from /git/<name>)");

    git.get('/:repo/info/refs', {
      schema: { hide: true, params: Type.Object({ repo: Type.String() }), querystring: Type.Object({ service: Type.Optional(Type.String()) }, { additionalProperties: true }) },
    }, async (request, reply) => {
      if (request.query.service === 'git-upload-pack') return uploadPackRefused(reply);
      if (request.query.service !== 'git-receive-pack') return text(reply, 403, 'only the smart HTTP protocol (git-receive-pack) is served');
      const found = await target(request, request.params.repo, reply);
      if (!found) return reply;
      const advertisement = await advertiseReceivePack(found.repo, found.policy, limits);
      return reply.code(200).header('content-type', 'application/x-git-receive-pack-advertisement').header('cache-control', 'no-cache')
        .send(Buffer.concat([encodePktLine('# service=git-receive-pack\n'), flushPkt, advertisement]));
    });

    git.post('/:repo/git-upload-pack', {
      schema: { hide: true, params: Type.Object({ repo: Type.String() }) },
      onRequest: async (_request, reply) => { await uploadPackRefused(reply); },
    }, async (_request, reply) => uploadPackRefused(reply));

    git.post('/:repo/git-receive-pack', { schema: { hide: true, params: Type.Object({ repo: Type.String() }) } }, async (request, reply) => {
      const found = await target(request, request.params.repo, reply);
      if (!found) return reply;
      const raw = request.body as Readable | undefined;
      if (!raw || typeof (raw as Partial<Readable>).pipe !== 'function') return text(reply, 415, `expected ${requestType}`);
      const encoding = request.headers['content-encoding'];
      let source: Readable = raw;
      if (encoding === 'gzip') source = pipeline(raw, createGunzip(), () => {});
      else if (encoding !== undefined && encoding !== 'identity') return text(reply, 415, `unsupported content encoding '${encoding}'`);
      const body = source[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
      // An answer given before the body is read to its end closes the connection.
      const refuse = (status: number, why: string) => text(reply.header('connection', 'close'), status, why);

      let head = Buffer.alloc(0);
      let section: CommandSection | null = null;
      try {
        while (section === null) {
          const next = await body.next();
          if (next.done) throw new PktLineError('the command list ends early', head.length);
          head = Buffer.concat([head, next.value]);
          section = readCommandSection(head);
          if (section === null && head.length > limits.maxCommandBytes) return refuse(413, 'the command list of the push is too large');
        }
      } catch (error) {
        if (error instanceof PktLineError) return refuse(400, `malformed request: ${error.message}`);
        if (isZlibError(error)) return refuse(400, 'the request body could not be inflated');
        throw error;
      }

      const resultOf = (bytes: Buffer) => reply.code(200).header('content-type', resultType).header('cache-control', 'no-cache').send(bytes);
      // git's probe before a large push is a lone flush: there is nothing to run.
      if (section.updates.length === 0) {
        if (!await drain(body, limits.maxBodyBytes)) void reply.header('connection', 'close');
        return resultOf(Buffer.alloc(0));
      }
      const sideband = section.capabilities.includes('side-band-64k');
      if (!section.capabilities.includes('report-status') && !section.capabilities.includes('report-status-v2')) {
        return refuse(400, 'a push must ask for report-status');
      }

      // Ref rules first (domain/publish/push-rules.ts): a refused push never reaches git.
      const refusals = refusePush(section.updates);
      if (refusals.length > 0) {
        if (!await drain(body, limits.maxBodyBytes)) void reply.header('connection', 'close');
        const report: PushReport = { unpack: 'ok', refs: refusals.map((r) => ({ ref: r.ref, ok: false, reason: r.reason })) };
        const messages = [...new Set(refusals.map((r) => r.reason))].map(message);
        return resultOf(encodeReceiveAnswer({ messages, report }, sideband));
      }
      const update = section.updates[0]!;

      let run;
      try {
        run = await runReceivePack(found.repo, found.policy, head, body, limits);
      } catch (error) {
        if (error instanceof ReceiveLimitError) return refuse(413, error.message);
        if (isZlibError(error)) return refuse(400, 'the request body could not be inflated');
        throw error;
      }
      const answer = parseReceiveAnswer(run.output, sideband);
      if (answer.report === null) {
        request.log.error({ exitCode: run.exitCode, stderr: run.stderr, fatal: answer.fatal }, 'receive-pack gave no report');
        return text(reply, 500, `the gateway could not complete this push: ${answer.fatal ?? 'git receive-pack failed'}`);
      }
      const messages = [...answer.messages];
      let report = answer.report;
      const main = report.refs.find((r) => r.ref === publishedRef);
      if (report.unpack === 'ok' && main?.ok === true && update.newSha !== null) {
        const outcome = await accepted(request, found, update.oldSha, update.newSha);
        messages.push(...outcome.messages);
        if (outcome.refusal !== null) report = { unpack: 'ok', refs: [{ ref: publishedRef, ok: false, reason: outcome.refusal }] };
      } else if (main?.reason === 'non-fast-forward') {
        messages.push(message(`${found.marketplace.name} is append-only: a push that rewrites the history of main is refused`));
      }
      return resultOf(encodeReceiveAnswer({ messages, report }, sideband));
    });

    /**
     * git has moved main: record the push (synchronously; if that fails the ref is put back and the
     * push refused), then ingest the pushed commit as a held snapshot, attributed to the pusher.
     */
    async function accepted(request: FastifyRequest, found: Target, previousTip: string | null, newTip: string)
      : Promise<{ refusal: string | null; messages: Buffer[] }> {
      const { marketplace, repo, caller, policy } = found;
      let pinned = false;
      try {
        const fastForward = previousTip === null || await isAncestor(repo, previousTip, newTip);
        pinned = await pinPushed(repo, newTip);
        const { decision, position } = await runCommand(deps.store, publishDecider, streams.publish(marketplace.id), {
          type: 'record-push',
          data: { marketplaceId: marketplace.id, marketplace: marketplace.name, pushPolicy: policy, ref: publishedRef, previousTip, newTip, fastForward },
          meta: metaOf(request, caller),
        });
        if (decision.outcome === 'refused') throw new PushNotRecorded(decision.rejection.detail);
        if (position !== null) {
          await deps.waiter.waitFor(position, ['ledger']).catch((error: unknown) => request.log.warn({ err: error }, 'the ledger lags behind a recorded push'));
        }
      } catch (error) {
        request.log.error({ err: error, marketplace: marketplace.name }, 'push not recorded: main is put back');
        await restoreRef(repo, publishedRef, previousTip, newTip)
          .catch((undo: unknown) => request.log.error({ err: undo, marketplace: marketplace.name }, 'main could not be put back after an unrecorded push'));
        if (pinned) await unpin(repo, newTip).catch(() => {});
        const why = error instanceof PushNotRecorded ? error.message : 'the gateway could not record the push on its ledger; nothing changed, push again later';
        return { refusal: why, messages: [message(why)] };
      }
      try {
        const { snapshotId, created } = await ingest(deps, request, marketplace, 'push', metaOf(request, caller), newTip);
        const snapshot = await snapshotById(deps.pool, snapshotId);
        const state = snapshot === null ? '' : ` (${snapshot.state}${snapshot.violation === null ? '' : `: ${snapshot.violation}`})`;
        return {
          refusal: null,
          messages: [message(created
            ? `captured ${newTip} as snapshot ${snapshotId}${state}; nothing is served until it is approved`
            : `${newTip} was captured before, as snapshot ${snapshotId}${state}`)],
        };
      } catch (error) {
        const why = error instanceof Error ? error.message : String(error);
        return {
          refusal: null,
          messages: [message(`the push was recorded but could not be ingested: ${why}`),
            message(`ingest it again with POST /api/v1/marketplaces/${marketplace.name}/ingest`)],
        };
      }
    }
  }, { prefix: '/publish' });
}
