// One push to /publish/{name} at the edge: the body checked and inflated, the push received by
// application/facade/receive-push.use-case.ts, and its answer sent as git expects it.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { pipeline, type Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import {
  drainBody,
  receivePush,
  type PushTarget,
  type ReceiveDeps,
  type ReceiveInput,
} from '../../application/facade/receive-push.use-case.ts';
import { text } from './wire.ts';

export const requestType = 'application/x-git-receive-pack-request';
const resultType = 'application/x-git-receive-pack-result';

/** The request body as a stream of chunks (inflated when gzip), or why it cannot be read. */
function bodyOf(request: FastifyRequest): AsyncIterator<Buffer> | Readonly<{ status: number; why: string }> {
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

/** Answers one `git-receive-pack` request of `target`. */
export async function receive(
  deps: ReceiveDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  target: PushTarget,
  input: Omit<ReceiveInput, 'body' | 'log'>,
): Promise<FastifyReply> {
  const body = bodyOf(request);
  if ('why' in body) return text(reply, body.status, body.why);
  const answer = await receivePush(deps, target, { ...input, body, log: request.log });
  switch (answer.kind) {
    case 'refused':
      // An answer given before the body is read to its end closes the connection.
      return text(reply.header('connection', 'close'), answer.status, answer.why);
    case 'failed':
      return text(reply, 500, answer.why);
    case 'result':
      if (answer.drain && !(await drainBody(body, deps.limits.maxBodyBytes))) void reply.header('connection', 'close');
      return reply.code(200).header('content-type', resultType).header('cache-control', 'no-cache').send(answer.bytes);
  }
}
