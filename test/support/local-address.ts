// Requests from a chosen loopback address (127.0.0.2 and up are this machine too): what a second client
// looks like to the gateway's per-address limits. fetch cannot pick its local address without a dispatcher
// of its own, so this is node:http behind fetch's shape (no redirects followed, the whole body read).
import { request } from 'node:http';

const nullBodyStatuses = new Set([101, 204, 205, 304]);

function bodyOf(body: RequestInit['body']): string | Buffer | undefined {
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'string' || body instanceof URLSearchParams) return body.toString();
  if (body instanceof Uint8Array) return Buffer.from(body);
  throw new Error('fetchFrom sends string, URLSearchParams or byte bodies only');
}

/** A fetch whose connections leave from `localAddress`. */
export function fetchFrom(localAddress: string): typeof fetch {
  return (input, init = {}) =>
    new Promise<Response>((resolve, reject) => {
      const url = new URL(input instanceof Request ? input.url : String(input));
      const headers = new Headers(init.headers);
      if (init.body instanceof URLSearchParams && !headers.has('content-type'))
        headers.set('content-type', 'application/x-www-form-urlencoded;charset=UTF-8');
      const body = bodyOf(init.body);
      const outgoing = request(
        url,
        { method: init.method ?? 'GET', headers: Object.fromEntries(headers), localAddress },
        (incoming) => {
          const chunks: Buffer[] = [];
          incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
          incoming.once('error', reject);
          incoming.once('end', () => {
            const answered = new Headers();
            for (let i = 0; i + 1 < incoming.rawHeaders.length; i += 2)
              answered.append(incoming.rawHeaders[i]!, incoming.rawHeaders[i + 1]!);
            const status = incoming.statusCode ?? 500;
            resolve(
              new Response(nullBodyStatuses.has(status) ? null : Buffer.concat(chunks), { status, headers: answered }),
            );
          });
        },
      );
      outgoing.once('error', reject);
      outgoing.end(body);
    });
}
