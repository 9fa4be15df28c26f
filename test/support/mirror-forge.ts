// A forge to mirror to: every repository under a root behind `git http-backend` with receive-pack enabled,
// behind HTTP Basic authentication, on loopback. It can go down and come back on the same port.
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Test } from 'tap';
import { gitIn } from './upstream.ts';

export type MirrorForge = Readonly<{
  root: string;
  /** The URL template for gateway.mirror.url. */
  template: string;
  /** Creates the bare repository `name` (a forge's "new repository"). */
  create(name: string): Promise<void>;
  /** Every ref of `name` as the forge holds it (name → sha), HEAD aside. */
  refs(name: string): Promise<Map<string, string>>;
  /** Requests answered, and those refused for missing or wrong credentials. */
  hits(): number;
  refused(): number;
  /** Closes the listening socket (the mirror is down), and listens again on the same port. */
  down(): Promise<void>;
  up(): Promise<void>;
}>;

export async function serveMirrorForge(t: Test, user: string, password: string): Promise<MirrorForge> {
  const root = mkdtempSync(join(tmpdir(), 'gw-forge-'));
  const backend = join(await gitIn(root, '--exec-path'), 'git-http-backend');
  const expected = `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
  let hits = 0;
  let refused = 0;
  const handle = (req: IncomingMessage, res: ServerResponse) => {
    hits += 1;
    if (req.headers.authorization !== expected) {
      refused += 1;
      res.writeHead(401, { 'www-authenticate': 'Basic realm="forge"' });
      res.end();
      return;
    }
    const url = new URL(req.url ?? '/', 'http://forge');
    const cgi = spawn(backend, [], {
      env: {
        PATH: process.env.PATH ?? '',
        GIT_PROJECT_ROOT: root,
        GIT_HTTP_EXPORT_ALL: '1',
        // http-backend enables receive-pack for an authenticated user.
        REMOTE_USER: user,
        REQUEST_METHOD: req.method ?? 'GET',
        PATH_INFO: url.pathname,
        QUERY_STRING: url.search.slice(1),
        CONTENT_TYPE: req.headers['content-type'] ?? '',
        REMOTE_ADDR: '127.0.0.1',
        GIT_CONFIG_NOSYSTEM: '1',
        GIT_CONFIG_GLOBAL: '/dev/null',
        ...(req.headers['git-protocol'] ? { GIT_PROTOCOL: String(req.headers['git-protocol']) } : {}),
        ...(req.headers['content-encoding'] ? { HTTP_CONTENT_ENCODING: String(req.headers['content-encoding']) } : {}),
      },
    });
    req.pipe(cgi.stdin);
    let head = Buffer.alloc(0);
    let headersDone = false;
    cgi.stdout.on('data', (chunk: Buffer) => {
      if (headersDone) {
        res.write(chunk);
        return;
      }
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) return;
      headersDone = true;
      let status = 200;
      for (const line of head.subarray(0, end).toString().split('\r\n')) {
        const [key, ...rest] = line.split(':');
        const value = rest.join(':').trim();
        if (key?.toLowerCase() === 'status') status = Number.parseInt(value, 10);
        else if (key) res.setHeader(key, value);
      }
      res.writeHead(status);
      res.write(head.subarray(end + 4));
    });
    cgi.stdout.on('end', () => res.end());
    cgi.on('error', () => {
      res.statusCode = 500;
      res.end();
    });
  };
  let server = createServer(handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  let open = true;
  const down = async () => {
    if (!open) return;
    open = false;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  const up = async () => {
    if (open) return;
    server = createServer(handle);
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    open = true;
  };
  t.teardown(down);
  return {
    root,
    template: `http://127.0.0.1:${port}/mirror/{name}.git`,
    async create(name) {
      await gitIn(root, 'init', '--bare', '--quiet', '--initial-branch=main', join(root, 'mirror', `${name}.git`));
    },
    async refs(name) {
      const text = await gitIn(
        root,
        '--git-dir',
        join(root, 'mirror', `${name}.git`),
        'for-each-ref',
        '--format=%(objectname) %(refname)',
      );
      return new Map(
        text
          .split('\n')
          .filter(Boolean)
          .map((line) => {
            const [sha, ref] = line.split(' ');
            return [ref!, sha!] as const;
          }),
      );
    },
    hits: () => hits,
    refused: () => refused,
    down,
    up,
  };
}
