// Plain `git http-backend` (CGI) behind a minimal Node HTTP server on 127.0.0.1, in a process of its
// own: the upstream the gateway ingests from, and the baseline the facade is compared with. As
// test/support/upstream.ts, with the CGI output piped (back-pressure) once its headers are read.
//
//   BENCH_GIT_PROJECT_ROOT  directory holding the served bare repositories
import { spawn } from 'node:child_process';
import { execFileSync } from 'node:child_process';
import { createServer, type IncomingMessage } from 'node:http';
import { join } from 'node:path';
import { httpBackendEnv } from '../test/support/http-backend-env.ts';

const root = process.env.BENCH_GIT_PROJECT_ROOT;
if (!root) throw new Error('BENCH_GIT_PROJECT_ROOT is unset');
const backend = join(execFileSync('git', ['--exec-path']).toString().trim(), 'git-http-backend');

const requests = new Map<string, number>();
const kindOf = (req: IncomingMessage): string => {
  const path = (req.url ?? '/').split('?')[0] ?? '/';
  return `${req.method} ${path.endsWith('/info/refs') ? '*/info/refs' : path.endsWith('/git-upload-pack') ? '*/git-upload-pack' : path}`;
};

const server = createServer((req, res) => {
  const kind = kindOf(req);
  requests.set(kind, (requests.get(kind) ?? 0) + 1);
  const cgi = spawn(backend, [], {
    env: httpBackendEnv(
      root,
      req,
      req.headers['content-length'] ? { CONTENT_LENGTH: String(req.headers['content-length']) } : {},
    ),
    stdio: ['pipe', 'pipe', 'ignore'],
  });
  req.pipe(cgi.stdin);
  cgi.stdin.on('error', () => {});
  let head = Buffer.alloc(0);
  const onData = (chunk: Buffer) => {
    head = Buffer.concat([head, chunk]);
    const end = head.indexOf('\r\n\r\n');
    if (end < 0) return;
    cgi.stdout.off('data', onData);
    cgi.stdout.pause();
    let status = 200;
    for (const line of head.subarray(0, end).toString().split('\r\n')) {
      const colon = line.indexOf(':');
      if (colon < 0) continue;
      const key = line.slice(0, colon).trim();
      const value = line.slice(colon + 1).trim();
      if (key.toLowerCase() === 'status') status = Number.parseInt(value, 10);
      else res.setHeader(key, value);
    }
    res.writeHead(status);
    res.write(head.subarray(end + 4));
    cgi.stdout.pipe(res);
  };
  cgi.stdout.on('data', onData);
  cgi.stdout.on('end', () => {
    if (!res.headersSent) {
      res.statusCode = 502;
      res.end();
    }
  });
  cgi.on('error', () => {
    res.statusCode = 500;
    res.end();
  });
});

server.keepAliveTimeout = 10_000;
server.listen(0, '127.0.0.1', () => {
  const port = (server.address() as { port: number }).port;
  process.send?.({ type: 'ready', port });
});
process.on('message', (message: { cmd?: string }) => {
  if (message.cmd === 'stats') process.send?.({ type: 'stats', requests: Object.fromEntries(requests) });
  else if (message.cmd === 'reset') {
    requests.clear();
    process.send?.({ type: 'reset' });
  } else if (message.cmd === 'close') server.close(() => process.exit(0));
});
process.on('disconnect', () => process.exit(0));
