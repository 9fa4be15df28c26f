import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Test } from 'tap';
import { isAlive } from '../../../src/adapters/system/data-dir-lock.ts';

// `gateway serve` as an operator runs it, on the embedded PostgreSQL (no database URL), in a process
// group of its own.

export type Served = Readonly<{
  child: ChildProcess;
  url: string;
  dataDir: string;
  /** Everything the process wrote so far (pino lines and stderr). */
  output: () => string;
  exited: Promise<number | null>;
}>;

export const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The pid of the embedded PostgreSQL's postmaster: the first line of its postmaster.pid. */
export const postmasterPid = (dataDir: string): number => {
  const file = join(dataDir, 'postgres', 'postmaster.pid');
  return existsSync(file) ? Number.parseInt(readFileSync(file, 'utf8'), 10) : Number.NaN;
};

/** The port the embedded PostgreSQL listens on: the fourth line of its postmaster.pid. */
export const postmasterPort = (dataDir: string): number =>
  Number.parseInt(readFileSync(join(dataDir, 'postgres', 'postmaster.pid'), 'utf8').split('\n')[3] ?? '', 10);

export function dataDirFor(t: Test): string {
  const dataDir = mkdtempSync(join(tmpdir(), 'gateway-dbloss-'));
  chmodSync(dataDir, 0o755);
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  return dataDir;
}

/** Starts `gateway serve` and resolves once it announced its URL (rejects if it exits first). */
export async function serve(t: Test, dataDir: string, env: Record<string, string>): Promise<Served> {
  const child = spawn(process.execPath, ['src/main.ts', 'serve'], {
    env: { ...process.env, GATEWAY_DATABASE_URL: '', GATEWAY_DATA_DIR: dataDir, PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let text = '';
  const append = (chunk: Buffer) => {
    text += chunk.toString();
  };
  child.stdout.on('data', append);
  child.stderr.on('data', append);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  t.teardown(async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    // The embedded PostgreSQL has a process group of its own: a killed gateway would leave it running.
    const pid = postmasterPid(dataDir);
    child.kill('SIGKILL');
    await exited;
    if (isAlive(pid)) process.kill(pid, 'SIGQUIT');
  });
  let url: string | undefined;
  for (let waited = 0; !url && waited < 90_000; waited += 100) {
    if (child.exitCode !== null) throw new Error(`gateway serve exited during start:\n${text}`);
    url = /"url":"(http:\/\/127\.0\.0\.1:\d+)"[^\n]*gateway listening/.exec(text)?.[1];
    if (!url) await delay(100);
  }
  if (!url) throw new Error(`gateway serve did not announce its URL:\n${text}`);
  return { child, url, dataDir, output: () => text, exited };
}

export type Answer = { status: number; headers: Headers; text: string; body: any };

/** A session through the development hatch, echoing the XSRF cookie as test/support/api.ts does. */
export function devClient(url: string, user: string) {
  let xsrf: string | undefined;
  return async (method: string, path: string, body?: unknown): Promise<Answer> => {
    xsrf ??= /XSRF-TOKEN=([^;]+)/.exec((await fetch(`${url}/actuator/health`)).headers.get('set-cookie') ?? '')?.[1];
    const response = await fetch(`${url}${path}`, {
      method,
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      headers: {
        'x-dev-user': user,
        cookie: `XSRF-TOKEN=${xsrf}`,
        'x-xsrf-token': xsrf!,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
    });
    const text = await response.text();
    let parsed: unknown = null;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = null;
    }
    return { status: response.status, headers: response.headers, text, body: parsed };
  };
}
