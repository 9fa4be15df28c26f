// A forge to mirror to: every repository under a root behind `git http-backend` with receive-pack enabled,
// behind HTTP Basic authentication, on loopback. It can go down and come back on the same port.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { join } from 'node:path';
import type { Test } from 'tap';
import { gitHttpBackend, gitIn } from './upstream.ts';
import { scratchDir } from './scratch.ts';

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
  const root = scratchDir(t, 'gw-forge-');
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
    // http-backend enables receive-pack for an authenticated user.
    gitHttpBackend(backend, root, req, res, { REMOTE_USER: user });
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
