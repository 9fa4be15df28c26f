// Loopback servers that hold requests until the test lets them through: git repositories behind git
// http-backend and an external scanner (connector `http`). A test holds an ingest at a step this way
// and reads what the gateway says meanwhile.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Test } from 'tap';
import { gitHttpBackend, gitIn, type Files } from './upstream.ts';
import { scratchDir } from './scratch.ts';

/** A gate: requests wait at it while it is shut. */
export function gate() {
  let open: () => void = () => {};
  let opened = new Promise<void>((resolve) => (open = resolve));
  let waiting = 0;
  return {
    shut: () => (opened = new Promise<void>((resolve) => (open = resolve))),
    open: () => open(),
    pass: async () => {
      waiting += 1;
      await opened;
      waiting -= 1;
    },
    waiting: () => waiting,
  };
}

/** A bare repository `name`.git under `root` with one commit of `files` on main. */
export async function bareRepo(root: string, name: string, files: Files): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'gw-work-'));
  await gitIn(work, 'init', '--quiet', '--initial-branch=main');
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(work, path)), { recursive: true });
    writeFileSync(join(work, path), content);
  }
  await gitIn(work, 'add', '-A');
  await gitIn(work, 'commit', '--quiet', '-m', 'initial');
  await gitIn(root, 'init', '--bare', '--quiet', '--initial-branch=main', `${name}.git`);
  await gitIn(work, 'push', '--quiet', join(root, `${name}.git`), 'HEAD:refs/heads/main');
  rmSync(work, { recursive: true, force: true });
}

/**
 * Repositories behind git http-backend on loopback, each with a gate (open at first): a request for a
 * repository whose gate is shut waits there. Counts the requests per repository.
 */
export async function gatedRepos(t: Test, repos: Readonly<Record<string, Files>>) {
  const root = scratchDir(t, 'gw-gated-');
  for (const [name, files] of Object.entries(repos)) await bareRepo(root, name, files);
  const backend = join(await gitIn(root, '--exec-path'), 'git-http-backend');
  const gates = new Map(Object.keys(repos).map((name) => [name, gate()]));
  const hits = new Map<string, number>();
  for (const g of gates.values()) g.open();
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const name = /^\/([^/]+)\.git\//.exec(req.url ?? '')?.[1] ?? '';
    hits.set(name, (hits.get(name) ?? 0) + 1);
    void (gates.get(name)?.pass() ?? Promise.resolve()).then(() => gitHttpBackend(backend, root, req, res));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => {
    for (const g of gates.values()) g.open();
    server.closeAllConnections();
    server.close();
  });
  const port = (server.address() as { port: number }).port;
  return {
    url: (name: string) => `http://127.0.0.1:${port}/${name}.git`,
    gate: (name: string) => gates.get(name)!,
    hits: (name: string) => hits.get(name) ?? 0,
  };
}

/** An external scanner (connector `http`) on loopback that answers clean once its gate is open. */
export async function gatedScanner(t: Test) {
  const scans = gate();
  scans.open();
  const server = createServer((req, res) => {
    req.resume();
    void scans.pass().then(() => res.writeHead(200, { 'content-type': 'application/json' }).end('{"findings":[]}'));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => {
    scans.open();
    server.closeAllConnections();
    server.close();
  });
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}/scan`, gate: scans };
}
