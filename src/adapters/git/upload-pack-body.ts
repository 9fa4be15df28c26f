// Reads an upload-pack request body from the socket with bounded memory and without blocking the event
// loop: inflated as a stream (zlib works off the main thread), parsed as it arrives, and abandoned at
// the first byte past a limit. Decision 0118 (docs/decisions) says why the limits are what they are.
import type { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { PktLineError } from './pkt-line.ts';
import { UploadPackRequestParser, type UploadPackRequest } from './upload-pack-request.ts';

export type RequestLimits = Readonly<{
  /** Bytes on the wire (compressed or not): more is 413. */
  maxBodyBytes: number;
  /** Bytes once inflated (the request git reads): more is 400. */
  maxInflatedBytes: number;
  /** Pkt-lines, flush and delimiter packets included: more is 400. */
  maxPktLines: number;
}>;

export const requestLimits: RequestLimits = {
  maxBodyBytes: 8 * 1024 * 1024,
  maxInflatedBytes: 8 * 1024 * 1024,
  maxPktLines: 100_000,
};

export type RequestRead =
  | Readonly<{ ok: true; body: Buffer; request: UploadPackRequest }>
  | Readonly<{ ok: false; status: 400 | 413; reason: string }>;

const refusal = (status: 400 | 413, reason: string): RequestRead => ({ ok: false, status, reason });
const malformed = (error: unknown) =>
  refusal(400, `malformed request: ${error instanceof PktLineError ? error.message : 'unreadable pkt-lines'}`);

/**
 * The request `source` carries (gzip-encoded when `gzip`), parsed, with its inflated bytes to hand to
 * git; or why it is refused. On a refusal the source is left unread: the caller answers and closes.
 */
export function readUploadPackRequest(
  source: Readable,
  options: Readonly<{ version: 0 | 2; gzip: boolean; limits?: RequestLimits }>,
): Promise<RequestRead> {
  const limits = options.limits ?? requestLimits;
  const parser = new UploadPackRequestParser(options.version, limits.maxPktLines);
  const inflater = options.gzip ? createGunzip() : null;
  const chunks: Buffer[] = [];
  let received = 0;
  let inflated = 0;
  return new Promise((resolve) => {
    let settled = false;
    const finish = (result: RequestRead) => {
      if (settled) return;
      settled = true;
      source.off('data', onWire);
      if (inflater) {
        source.unpipe(inflater);
        inflater.off('data', onBytes);
        inflater.destroy();
      }
      source.pause();
      chunks.length = result.ok ? chunks.length : 0;
      resolve(result);
    };
    const onBytes = (chunk: Buffer) => {
      if (settled) return;
      inflated += chunk.length;
      if (inflated > limits.maxInflatedBytes) {
        finish(refusal(400, `the request inflates beyond ${limits.maxInflatedBytes} bytes`));
        return;
      }
      try {
        parser.push(chunk);
      } catch (error) {
        finish(malformed(error));
        return;
      }
      chunks.push(chunk);
    };
    const onWire = (chunk: Buffer) => {
      received += chunk.length;
      if (received > limits.maxBodyBytes) finish(refusal(413, 'request body too large'));
      else if (!inflater) onBytes(chunk);
    };
    const onEnd = () => {
      if (settled) return;
      try {
        const request = parser.end();
        finish({ ok: true, body: Buffer.concat(chunks), request });
      } catch (error) {
        finish(malformed(error));
      }
    };
    source.on('data', onWire);
    // Persistent listeners: an abort after the answer must not become an unhandled 'error'.
    source.on('error', () => finish(refusal(400, 'the request body could not be read')));
    if (inflater) {
      inflater.on('data', onBytes);
      inflater.once('end', onEnd);
      inflater.on('error', () => finish(refusal(400, 'the request body could not be inflated')));
      source.pipe(inflater);
    } else {
      source.once('end', onEnd);
    }
  });
}
