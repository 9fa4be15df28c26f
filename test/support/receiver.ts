import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Test } from 'tap';

/** One request as a receiver saw it: the raw body, as a Standard Webhooks receiver must verify it. */
export type Received = { headers: IncomingHttpHeaders; body: string };

/**
 * A loopback receiver of webhook deliveries or audit sink batches answering `status(n)` to the nth request,
 * keeping what it received; closed at the test's end. `host` is another loopback address to listen on.
 */
export async function receiver(t: Test, status: (n: number) => number = () => 204, host = '127.0.0.1') {
  const received: Received[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({ headers: request.headers, body: Buffer.concat(chunks).toString('utf8') });
      response.statusCode = status(received.length);
      response.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { url: `http://${host}:${(server.address() as AddressInfo).port}/hook`, received };
}
