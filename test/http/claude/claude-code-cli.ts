// Claude Code's own plugin manager as a test client: installed from the npm registry into a temporary
// folder (cached between runs per version), run with a throwaway HOME, offline except for loopback.
import { execFile } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createServer, type IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { marketplaceFiles, type Files } from '../../support/upstream.ts';

export const claudeCodePackage = '@anthropic-ai/claude-code';
/**
 * The release the tests run, pinned so that a new release cannot break CI: the one these tests were
 * last run against. Move it on purpose (after running test/http/claude and the catalog test with
 * GATEWAY_TEST_CLAUDE_CODE_VERSION set to the candidate).
 */
export const claudeCodeVersion = '2.1.330';
const npmTimeoutMs = 5 * 60_000;
export const cliTimeoutMs = 60_000;

export type Ran = Readonly<{
  ok: boolean;
  code: number | null;
  signal: string | null;
  timedOut: boolean;
  stdout: string;
  stderr: string;
}>;

/** A child process bounded in time (killed with SIGKILL at the deadline), never throwing. */
export function runBounded(
  command: string,
  args: readonly string[],
  options: { cwd?: string; env: NodeJS.ProcessEnv; timeoutMs: number },
): Promise<Ran> {
  return new Promise((resolve) => {
    const child = execFile(
      command,
      args,
      {
        cwd: options.cwd,
        env: options.env,
        timeout: options.timeoutMs,
        killSignal: 'SIGKILL',
        maxBuffer: 32 * 1024 * 1024,
        encoding: 'utf8',
      },
      (error, stdout, stderr) => {
        const failure = error as (Error & { code?: number | string; killed?: boolean; signal?: string | null }) | null;
        resolve({
          ok: failure === null,
          code: failure === null ? 0 : typeof failure.code === 'number' ? failure.code : null,
          signal: failure?.signal ?? null,
          timedOut: failure !== null && failure.killed === true && failure.signal === 'SIGKILL',
          stdout,
          stderr: failure !== null && typeof failure.code === 'string' ? `${stderr}${failure.message}` : stderr,
        });
      },
    );
    child.stdin?.end();
  });
}

// npm's own warnings (unknown config keys, engines, install scripts) say nothing about why a command failed.
const firstLines = (text: string, n = 3) =>
  text
    .trim()
    .split('\n')
    .filter((line) => line.trim() !== '' && !/^npm warn /.test(line))
    .slice(0, n)
    .join(' | ')
    .slice(0, 400);
const describe = (ran: Ran) =>
  ran.timedOut
    ? 'timed out'
    : `exit ${ran.code ?? ran.signal}: ${firstLines(ran.stderr || ran.stdout) || '(no output)'}`;

/**
 * The environment of a `claude` run: nothing inherited but PATH, HOME and the XDG directories inside
 * `home`, no auto-update, telemetry, error reporting or other nonessential traffic, no official
 * marketplace auto-install, git never prompting, and every non-loopback HTTP(S) request sent to a
 * closed loopback port (loopback itself bypasses the proxy).
 */
export function claudeEnvironment(home: string, proxy = 'http://127.0.0.1:9'): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin',
    HOME: home,
    USER: 'gateway-test',
    LANG: 'C.UTF-8',
    TMPDIR: tmpdir(),
    SHELL: '/bin/sh',
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_CACHE_HOME: join(home, '.cache'),
    XDG_DATA_HOME: join(home, '.local/share'),
    XDG_STATE_HOME: join(home, '.local/state'),
    CLAUDE_CONFIG_DIR: join(home, '.claude'),
    DISABLE_AUTOUPDATER: '1',
    DISABLE_UPDATES: '1',
    DISABLE_TELEMETRY: '1',
    DISABLE_ERROR_REPORTING: '1',
    DISABLE_INSTALLATION_CHECKS: '1',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    CLAUDE_CODE_DISABLE_OFFICIAL_MARKETPLACE_AUTOINSTALL: '1',
    CLAUDE_CODE_PLUGIN_GIT_TIMEOUT_MS: String(cliTimeoutMs / 2),
    NO_COLOR: '1',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_TERMINAL_PROMPT: '0',
    HTTP_PROXY: proxy,
    HTTPS_PROXY: proxy,
    http_proxy: proxy,
    https_proxy: proxy,
    NO_PROXY: '127.0.0.1,localhost',
    no_proxy: '127.0.0.1,localhost',
  };
}

export type ClaudeCode = Readonly<{ version: string; command: string; prefixArgs: readonly string[]; root: string }>;
export type Prepared = Readonly<{ ok: true; cli: ClaudeCode } | { ok: false; reason: string }>;

/** A fresh HOME for one `claude` user, removed by the caller. */
export function freshHome(label: string): string {
  return mkdtempSync(join(tmpdir(), `gw-claude-${label}-`));
}

/** Runs `claude <args>` as the user whose HOME is `home`. */
export function claude(
  cli: ClaudeCode,
  home: string,
  args: readonly string[],
  options: { proxy?: string; timeoutMs?: number } = {},
): Promise<Ran> {
  return runBounded(cli.command, [...cli.prefixArgs, ...args], {
    cwd: home,
    env: claudeEnvironment(home, options.proxy),
    timeoutMs: options.timeoutMs ?? cliTimeoutMs,
  });
}

/**
 * A loopback HTTP proxy that refuses everything and remembers what was asked of it: where the CLI
 * tried to go beyond loopback (HTTP(S)_PROXY points here; NO_PROXY exempts loopback).
 */
export async function egressTrap(): Promise<{ url: string; attempts: string[]; close(): Promise<void> }> {
  const attempts: string[] = [];
  const server = createServer((request, response) => {
    attempts.push(`${request.method ?? 'GET'} ${request.url ?? ''}`);
    response.writeHead(403).end();
  });
  server.on('connect', (request: IncomingMessage, socket: Socket) => {
    attempts.push(`CONNECT ${request.url ?? ''}`);
    socket.on('error', () => {});
    socket.end('HTTP/1.1 403 Forbidden\r\n\r\n');
  });
  server.on('clientError', (_error, socket) => socket.destroy());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    attempts,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The installed CLI: package.json `bin` when it is the native binary, else the package's Node fallback launcher. */
async function locate(root: string, version: string): Promise<Prepared> {
  const dir = join(root, 'node_modules', ...claudeCodePackage.split('/'));
  let manifest: { version?: string; bin?: string | Record<string, string> };
  try {
    manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as typeof manifest;
  } catch {
    return { ok: false, reason: `${claudeCodePackage}@${version} is not installed under ${root}` };
  }
  const bin = typeof manifest.bin === 'string' ? manifest.bin : manifest.bin?.claude;
  if (!bin) return { ok: false, reason: `${claudeCodePackage}@${manifest.version} declares no \`claude\` bin` };
  const binary = join(dir, bin);
  // The published bin/claude.exe is a small placeholder that the postinstall replaces with the
  // native binary from the platform's optional dependency; cli-wrapper.cjs is its documented fallback.
  const wrapper = join(dir, 'cli-wrapper.cjs');
  const native = existsSync(binary) && statSync(binary).size > 64 * 1024;
  const candidate = native
    ? { command: binary, prefixArgs: [] as string[] }
    : existsSync(wrapper)
      ? { command: process.execPath, prefixArgs: [wrapper] }
      : null;
  if (!candidate)
    return {
      ok: false,
      reason: `${bin} of ${claudeCodePackage}@${manifest.version} is the placeholder (the postinstall did not run) and there is no cli-wrapper.cjs`,
    };
  const home = freshHome('version');
  try {
    const ran = await runBounded(candidate.command, [...candidate.prefixArgs, '--version'], {
      cwd: home,
      env: claudeEnvironment(home),
      timeoutMs: cliTimeoutMs,
    });
    const reported = /^(\d+\.\d+\.\d+\S*) \(Claude Code\)/m.exec(ran.stdout)?.[1];
    if (!ran.ok || !reported) {
      return {
        ok: false,
        reason: `\`claude --version\` (${native ? bin : 'cli-wrapper.cjs'} of ${claudeCodePackage}@${manifest.version}) does not run here: ${describe(ran)}`,
      };
    }
    return { ok: true, cli: { version: reported, root, ...candidate } };
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

/** The version to test: GATEWAY_TEST_CLAUDE_CODE_VERSION (to try another release), else the pin. */
function wantedVersion(): { ok: true; version: string } | { ok: false; reason: string } {
  const version = process.env.GATEWAY_TEST_CLAUDE_CODE_VERSION || claudeCodeVersion;
  if (/^\d+\.\d+\.\d+\S*$/.test(version)) return { ok: true, version };
  return { ok: false, reason: `GATEWAY_TEST_CLAUDE_CODE_VERSION '${version}' is not an exact version` };
}

/**
 * Installs the CLI with `npm install --no-save --prefix <tmp>` into `<tmpdir>/gateway-claude-code-<version>`
 * unless a working install is already there (staged, then renamed, so concurrent runs never see half an install).
 */
export async function prepareClaudeCode(): Promise<Prepared> {
  const wanted = wantedVersion();
  if (!wanted.ok) return wanted;
  const cache = join(tmpdir(), `gateway-claude-code-${wanted.version}`);
  if (existsSync(cache)) {
    const cached = await locate(cache, wanted.version);
    if (cached.ok) return cached;
    rmSync(cache, { recursive: true, force: true });
  }
  const staging = mkdtempSync(`${cache}.staging-`);
  try {
    const ran = await runBounded(
      'npm',
      [
        'install',
        '--no-save',
        '--no-audit',
        '--no-fund',
        '--loglevel=warn',
        '--prefix',
        staging,
        `${claudeCodePackage}@${wanted.version}`,
      ],
      { cwd: staging, env: process.env, timeoutMs: npmTimeoutMs },
    );
    if (!ran.ok)
      return { ok: false, reason: `\`npm install ${claudeCodePackage}@${wanted.version}\` failed (${describe(ran)})` };
    const installed = await locate(staging, wanted.version);
    if (!installed.ok) return installed;
    try {
      renameSync(staging, cache);
    } catch {
      // Another run put its install there first: use that one.
    }
    return await locate(cache, wanted.version);
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

export function writeFiles(root: string, files: Files): void {
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
  }
}

/**
 * Whether this CLI can manage plugins here at all, independently of the gateway: a marketplace in a
 * local directory is added and one of its plugins installed, offline, with a throwaway HOME. A failure
 * here (login demanded, network insisted on, subcommands missing) is outside the project's control.
 */
export async function preflight(cli: ClaudeCode): Promise<Prepared> {
  const home = freshHome('preflight');
  try {
    const help = await claude(cli, home, ['plugin', 'marketplace', 'add', '--help']);
    if (!help.ok)
      return { ok: false, reason: `claude ${cli.version} has no \`plugin marketplace add\` (${describe(help)})` };
    const local = join(home, 'local-marketplace');
    writeFiles(local, marketplaceFiles('preflight-local', ['probe']));
    const add = await claude(cli, home, ['plugin', 'marketplace', 'add', local]);
    if (!add.ok)
      return {
        ok: false,
        reason: `claude ${cli.version} cannot add even a local-directory marketplace offline (${describe(add)})`,
      };
    const install = await claude(cli, home, ['plugin', 'install', 'probe@preflight-local']);
    if (!install.ok)
      return {
        ok: false,
        reason: `claude ${cli.version} cannot install even from a local-directory marketplace offline (${describe(install)})`,
      };
    return { ok: true, cli };
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

/** The git credential store of `home`: `http://<user>:<token>@<host:port>`, as `git-credential-store` writes it. */
export function storeCredential(home: string, origin: string, user: string, token: string): void {
  writeFileSync(join(home, '.gitconfig'), '[credential]\n\thelper = store\n');
  const { protocol, host } = new URL(origin);
  writeFileSync(
    join(home, '.git-credentials'),
    `${protocol}//${encodeURIComponent(user)}:${encodeURIComponent(token)}@${host}\n`,
    { mode: 0o600 },
  );
  chmodSync(join(home, '.git-credentials'), 0o600);
}

/** A command's outcome for an assertion message, with the token (should it ever appear) masked. */
export const shown = (ran: Ran, token: string) =>
  JSON.stringify({
    code: ran.code,
    signal: ran.signal,
    timedOut: ran.timedOut,
    stdout: ran.stdout.trim(),
    stderr: ran.stderr.trim(),
  }).replaceAll(token, '<token>');
