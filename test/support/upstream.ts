import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { dirname, join } from 'node:path';
import type { Test } from 'tap';
import { gitText } from '../../src/adapters/git/git-process.ts';
import { gitLauncher } from '../../src/adapters/git/git-launcher.ts';
import { httpBackendEnv } from './http-backend-env.ts';
import { scratchDir } from './scratch.ts';

const identity = {
  GIT_AUTHOR_NAME: 'Upstream',
  GIT_AUTHOR_EMAIL: 'upstream@example.test',
  GIT_COMMITTER_NAME: 'Upstream',
  GIT_COMMITTER_EMAIL: 'upstream@example.test',
};
/** git in `cwd` as the upstream's author, started through the gateway's git launcher (no fork of this process). */
export const gitIn = async (cwd: string, ...args: string[]) => gitText(args, { cwd, env: identity });

export type Files = Readonly<Record<string, string>>;

/** A plugin marketplace in the Claude Code format with the given plugins (relative sources). */
export function marketplaceFiles(name: string, plugins: readonly string[]): Files {
  const files: Record<string, string> = {
    '.claude-plugin/marketplace.json': JSON.stringify(
      {
        name,
        owner: { name: 'Upstream' },
        description: `${name} test marketplace`,
        plugins: plugins.map((plugin) => ({
          name: plugin,
          source: `./plugins/${plugin}`,
          description: `the ${plugin} plugin`,
        })),
      },
      null,
      2,
    ),
  };
  for (const plugin of plugins) {
    files[`plugins/${plugin}/.claude-plugin/plugin.json`] = JSON.stringify({ name: plugin, version: '1.0.0' });
    files[`plugins/${plugin}/skills/${plugin}-skill/SKILL.md`] =
      `---\nname: ${plugin}-skill\ndescription: a skill of ${plugin}\n---\nDo the ${plugin} thing.\n`;
  }
  return files;
}

export type Upstream = Readonly<{
  /** Clone URL served by git http-backend on loopback. */
  url: string;
  /** Commits the files (added or replaced; null deletes) on main and pushes; returns the new tip. */
  commit(files: Readonly<Record<string, string | null>>, message?: string): Promise<string>;
  bare: string;
  /** Requests the server answered. */
  hits(): number;
}>;

/**
 * A real upstream repository behind `git http-backend` (CGI) on 127.0.0.1 (or another loopback `host`),
 * stopped at the test's end.
 */
export async function serveUpstream(
  t: Test,
  files: Files,
  name = 'upstream',
  host = '127.0.0.1',
  /** Paths committed with the executable bit (git mode 100755); the others are 100644. */
  executable: readonly string[] = [],
): Promise<Upstream> {
  const root = scratchDir(t, 'gw-upstream-');
  const bare = join(root, `${name}.git`);
  const work = join(root, 'work');
  await gitIn(root, 'init', '--bare', '--quiet', '--initial-branch=main', bare);
  await gitIn(root, 'init', '--quiet', '--initial-branch=main', work);
  const commit = async (changed: Readonly<Record<string, string | null>>, message = 'update') => {
    for (const [path, content] of Object.entries(changed)) {
      if (content === null) {
        rmSync(join(work, path), { force: true });
        continue;
      }
      mkdirSync(dirname(join(work, path)), { recursive: true });
      writeFileSync(join(work, path), content);
      if (executable.includes(path)) chmodSync(join(work, path), 0o755);
    }
    await gitIn(work, 'add', '-A');
    await gitIn(work, 'commit', '--quiet', '--allow-empty', '-m', message);
    await gitIn(work, 'push', '--quiet', bare, 'HEAD:refs/heads/main');
    return gitIn(work, 'rev-parse', 'HEAD');
  };
  await commit(files, 'initial');
  const { url, hits } = await serveRepos(t, root, host);
  return { url: url(name), commit, bare, hits };
}

/**
 * Answers one request with `git http-backend` (CGI) over the bare repositories under `root`; `extraEnv`
 * adds CGI variables (REMOTE_USER enables receive-pack for an authenticated user).
 */
export function gitHttpBackend(
  backend: string,
  root: string,
  req: IncomingMessage,
  res: ServerResponse,
  extraEnv: Record<string, string> = {},
): void {
  const env = httpBackendEnv(root, req, extraEnv);
  let head = Buffer.alloc(0);
  let headersDone = false;
  const stdout = (chunk: Buffer) => {
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
  };
  // The request is read whole, then the CGI started through the gateway's git launcher (no fork of this
  // process); what git http-backend does not read of it is dropped.
  const body: Buffer[] = [];
  req.on('data', (chunk: Buffer) => body.push(chunk));
  req.on('error', () => res.destroy());
  req.on('end', () => {
    gitLauncher.run(
      { command: backend, args: [], cwd: undefined, env, input: Buffer.concat(body) },
      {
        stdout,
        stderr: () => {},
        close: (_code, startError) => {
          if (startError === undefined && headersDone) return void res.end();
          if (!res.headersSent) res.statusCode = 500;
          res.end();
        },
      },
    );
  });
}

/**
 * Every repository under `root` behind `git http-backend` (CGI) on 127.0.0.1, like serveUpstream, but
 * counting the requests it answers and closable before the test ends (an upstream that goes away).
 */
export async function serveRepos(t: Test, root: string, host = '127.0.0.1') {
  const backend = join(await gitIn(root, '--exec-path'), 'git-http-backend');
  let hits = 0;
  const server = createServer((req, res) => {
    hits += 1;
    gitHttpBackend(backend, root, req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  let open = true;
  const close = async () => {
    if (!open) return;
    open = false;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  t.teardown(close);
  const port = (server.address() as { port: number }).port;
  return { port, url: (name: string) => `http://${host}:${port}/${name}.git`, hits: () => hits, close };
}

/** The real git client with a throwaway HOME, no prompts, the token as HTTP Basic password. */
export function gitClient(t: Test, token: string | null) {
  const home = scratchDir(t, 'gw-client-');
  const auth =
    token === null
      ? []
      : ['-c', `http.extraHeader=Authorization: Basic ${Buffer.from(`any:${token}`).toString('base64')}`];
  const env: Record<string, string> = {
    ...(process.env as Record<string, string>),
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_TERMINAL_PROMPT: '0',
    ...identity,
    HOME: home,
  };
  // Through the gateway's git launcher (no fork of this process); stdout is trimmed, as execFile's callers had it.
  const gitRun = (args: string[], cwd = home) =>
    new Promise<
      { ok: true; stdout: string; stderr: string } | { ok: false; stdout: string; stderr: string; code: number | null }
    >((resolve) => {
      const out: Buffer[] = [];
      const err: Buffer[] = [];
      gitLauncher.run(
        { args: [...auth, ...args], cwd, env, input: '' },
        {
          stdout: (chunk) => out.push(chunk),
          stderr: (chunk) => err.push(chunk),
          close: (code, startError) => {
            const stdout = Buffer.concat(out).toString().trim();
            const stderr = Buffer.concat(err).toString() + (startError ?? '');
            resolve(code === 0 ? { ok: true, stdout, stderr } : { ok: false, stdout, stderr, code });
          },
        },
      );
    });
  return {
    home,
    run: gitRun,
    async clone(url: string, options: { protocol?: 0 | 1 | 2 } = {}) {
      const dir = mkdtempSync(join(home, 'clone-'));
      const result = await gitRun(['-c', `protocol.version=${options.protocol ?? 2}`, 'clone', '--quiet', url, dir]);
      return { ...result, dir };
    },
  };
}
