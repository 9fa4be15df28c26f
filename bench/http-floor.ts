// The floor under an HTTP benchmark on this machine: a bare node:http server in a process of its own that
// reads each POST body, parses it as JSON and answers a stored answer, nothing else (no framework, no
// authentication, no logging). The same callers against it show what the machine's cores, the loopback
// and Node's HTTP cost before the gateway does anything: a latency target below this floor cannot be
// met by the gateway's own code.
//
// Run as a module it starts the server: the answer's bytes come over the IPC channel, the port goes back.
import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import { fileURLToPath } from 'node:url';

export type HttpFloor = Readonly<{ url: string; pid: number; close(): Promise<void> }>;

/** Starts the bare server answering every POST with `answer` (application/json). */
export async function startHttpFloor(answer: string): Promise<HttpFloor> {
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), 'serve'], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const exit = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const port = await Promise.race([
    new Promise<number>((resolve) => {
      child.once('message', (message: { port: number }) => resolve(message.port));
      child.send({ answer });
    }),
    exit.then(() => {
      throw new Error('the bare HTTP server exited during start');
    }),
  ]);
  return {
    url: `http://127.0.0.1:${port}`,
    pid: child.pid ?? 0,
    close: async () => {
      child.kill();
      await exit;
    },
  };
}

function serve(): void {
  process.once('message', ({ answer }: { answer: string }) => {
    const body = Buffer.from(answer);
    const server = http.createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        JSON.parse(Buffer.concat(chunks).toString());
        response.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': body.length });
        response.end(body);
      });
    });
    server.keepAliveTimeout = 60_000;
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      process.send?.({ port: typeof address === 'object' && address ? address.port : 0 });
    });
    process.on('disconnect', () => process.exit(0));
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url) && process.argv[2] === 'serve') serve();
