// Several gateway replicas: `gateway serve` in child processes of their own (so that
// kill -9 is real), all on one external PostgreSQL database, each with a data directory of its own, the
// git store placed by a ReplicaStorage: a shared directory mounted at every replica's <data-dir>/git
// (sharedDirectory), or an S3-compatible bucket with a per-replica cache (objectStore). Which replica
// leads is read from its log, the line the leader election writes (src/projections/runner/leader.ts);
// no endpoint says it.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Test } from 'tap';
import { testDatabase } from './database.ts';

const projectRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const replicaAdmin = 'root';

/** Where a replica lives: its position in the set and its own data directory. */
export type ReplicaPlace = Readonly<{ index: number; dataDir: string }>;

/** How the replicas' git store is placed: one more value of this type is one more storage variant. */
export type ReplicaStorage = Readonly<{
  describe: string;
  /** Before a replica's first start (the shared volume mounted, a cache directory made). */
  prepare(place: ReplicaPlace): void | Promise<void>;
  /** The configuration keys (as environment variables) that place its git store. */
  env(place: ReplicaPlace): Readonly<Record<string, string>>;
}>;

/**
 * The filesystem backend on a shared volume: every replica's `<data-dir>/git` is the
 * same directory, as a volume mounted there would make it (a symbolic link stands in for the mount).
 * The rest of each data directory stays its own.
 */
export function sharedDirectory(root: string): ReplicaStorage {
  const shared = join(root, 'shared-git');
  mkdirSync(shared, { recursive: true });
  return {
    describe: `filesystem backend, every <data-dir>/git on ${shared}`,
    prepare: ({ dataDir }) => symlinkSync(shared, join(dataDir, 'git'), 'dir'),
    env: () => ({ GATEWAY_STORAGE_BACKEND: 'filesystem' }),
  };
}

export type ObjectStoreSettings = Readonly<{
  bucket: string;
  region: string;
  endpoint: string;
  /** Credentials and client settings the S3 client reads (AWS_ACCESS_KEY_ID, …). */
  env?: Readonly<Record<string, string>>;
}>;

/** The object-store backend: one bucket for all, a cache of its own under each replica's data directory. */
export function objectStore(settings: ObjectStoreSettings): ReplicaStorage {
  return {
    describe: `object-store backend, bucket ${settings.bucket} at ${settings.endpoint}`,
    prepare: () => {},
    env: ({ dataDir }) => ({
      GATEWAY_STORAGE_BACKEND: 'object-store',
      GATEWAY_STORAGE_OBJECT_STORE_BUCKET: settings.bucket,
      GATEWAY_STORAGE_OBJECT_STORE_REGION: settings.region,
      GATEWAY_STORAGE_OBJECT_STORE_ENDPOINT: settings.endpoint,
      GATEWAY_STORAGE_OBJECT_STORE_CACHE_DIR: join(dataDir, 'object-cache'),
      ...settings.env,
    }),
  };
}

type LogLine = Readonly<{ msg?: string; url?: string; leader?: boolean }>;

export type Replica = {
  readonly name: string;
  readonly index: number;
  readonly dataDir: string;
  /** Empty until started. */
  url: string;
  pid: number;
  /** Everything it wrote (pino lines), for the message of a failed assertion. */
  readonly log: { text: string };
  /** When (Date.now()) its log last said it took the leader lock; null while it does not hold it. */
  leadingSince: number | null;
  alive(): boolean;
  fetch(path: string, init?: RequestInit): Promise<Response>;
  /** `gateway serve` on its data directory, resolved once it listens. */
  start(): Promise<void>;
  /** kill -9; resolves once the process is gone. */
  kill(): Promise<void>;
  /** SIGTERM (a graceful stop), SIGKILL after 30 s. */
  stop(): Promise<void>;
};

export type ReplicaSet = Readonly<{
  databaseUrl: string;
  root: string;
  storage: ReplicaStorage;
  replicas: readonly Replica[];
  /** The one live replica whose log says it leads, or null (none yet, or more than one: never expected). */
  leader(): Replica | null;
  close(): Promise<void>;
}>;

export type ReplicaSetOptions = Readonly<{
  databaseUrl: string;
  /** A scratch directory: the replicas' data directories go under it. */
  root: string;
  storage: ReplicaStorage;
  count?: number;
  /** Configuration every replica gets (environment variables, as an operator would set them). */
  env?: Readonly<Record<string, string>>;
}>;

function parseLines(replica: Replica, pending: { text: string }, chunk: Buffer, onListening: (url: string) => void) {
  pending.text += chunk.toString();
  const lines = pending.text.split('\n');
  pending.text = lines.pop() ?? '';
  for (const text of lines) {
    replica.log.text += `${text}\n`;
    let line: LogLine;
    try {
      line = JSON.parse(text) as LogLine;
    } catch {
      continue;
    }
    const msg = line.msg ?? '';
    if (msg.startsWith('leader lock acquired')) replica.leadingSince = Date.now();
    if (msg.startsWith('leader lock lost') || msg.startsWith('leader duties failed to start'))
      replica.leadingSince = null;
    if (msg === 'gateway listening' && line.url) onListening(line.url);
  }
}

function replicaOf(index: number, options: ReplicaSetOptions, common: Record<string, string>): Replica {
  const name = String.fromCharCode(65 + index); // A, B, …
  const dataDir = join(options.root, `replica-${name}`);
  const place = { index, dataDir };
  let child: ChildProcess | null = null;
  let exited: Promise<void> = Promise.resolve();
  let prepared = false;
  const replica: Replica = {
    name,
    index,
    dataDir,
    url: '',
    pid: 0,
    log: { text: '' },
    leadingSince: null,
    alive: () => child !== null && child.exitCode === null && child.signalCode === null,
    fetch: (path, init) => fetch(`${replica.url}${path}`, init),
    async start() {
      if (!prepared) {
        mkdirSync(dataDir, { recursive: true });
        await options.storage.prepare(place);
        prepared = true;
      }
      const env = { ...process.env, ...common, GATEWAY_DATA_DIR: dataDir, ...options.storage.env(place) };
      const started = spawn(process.execPath, ['src/main.ts', 'serve'], {
        cwd: projectRoot,
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
        detached: true, // its own process group: a Ctrl-C of the test run reaches it once, through close()
      });
      child = started;
      replica.pid = started.pid!;
      replica.leadingSince = null;
      exited = new Promise((resolve) =>
        started.once('exit', () => {
          replica.leadingSince = null;
          resolve();
        }),
      );
      const listening = new Promise<string>((resolve, reject) => {
        const out = { text: '' };
        started.stdout?.on('data', (chunk: Buffer) => parseLines(replica, out, chunk, resolve));
        started.stderr?.on('data', (chunk: Buffer) => (replica.log.text += chunk.toString()));
        started.once('exit', (code, signal) =>
          reject(
            new Error(`replica ${name} exited during start (${code ?? signal}):\n${replica.log.text.slice(-3000)}`),
          ),
        );
      });
      replica.url = await listening;
    },
    async kill() {
      if (replica.alive()) child?.kill('SIGKILL');
      await exited;
    },
    async stop() {
      if (!replica.alive()) return;
      child?.kill('SIGTERM');
      const timer = setTimeout(() => child?.kill('SIGKILL'), 30_000);
      await exited;
      clearTimeout(timer);
    },
  };
  return replica;
}

/** Starts `count` replicas one after the other (the first to start takes the leader lock). */
export async function startReplicaSet(options: ReplicaSetOptions): Promise<ReplicaSet> {
  const common = {
    GATEWAY_DATABASE_URL: options.databaseUrl,
    PORT: '0',
    GATEWAY_LOG_LEVEL: 'info',
    GATEWAY_DEV_INSECURE_AUTH: 'true',
    GATEWAY_ROLES_ADMINS: replicaAdmin,
    // One key for every replica: each decrypts the secrets any other sealed (docs/operations.md).
    GATEWAY_SECRETS_KEY: randomBytes(32).toString('base64'),
    ...options.env,
  };
  const replicas = Array.from({ length: options.count ?? 2 }, (_, index) => replicaOf(index, options, common));
  const close = async () => {
    await Promise.all(replicas.map((replica) => replica.stop()));
  };
  try {
    for (const replica of replicas) await replica.start();
  } catch (error) {
    await Promise.all(replicas.map((replica) => replica.kill()));
    throw error;
  }
  return {
    databaseUrl: options.databaseUrl,
    root: options.root,
    storage: options.storage,
    replicas,
    leader: () => {
      const leading = replicas.filter((replica) => replica.alive() && replica.leadingSince !== null);
      return leading.length === 1 ? leading[0]! : null;
    },
    close,
  };
}

/**
 * A replica set for one test: a database of its own on the test run's server (TEST_DATABASE_URL), the
 * shared-directory storage unless another is given, everything stopped and removed at the test's end.
 */
export async function testReplicas(
  t: Test,
  options: Readonly<{
    storage?: (root: string) => ReplicaStorage | Promise<ReplicaStorage>;
    count?: number;
    env?: Readonly<Record<string, string>>;
  }> = {},
): Promise<ReplicaSet> {
  const { url } = await testDatabase(t);
  const root = mkdtempSync(join(tmpdir(), 'gateway-replicas-'));
  let set: ReplicaSet | null = null;
  // Teardowns run last-registered first: the replicas stop before the database is dropped.
  t.teardown(async () => {
    await set?.close();
    if (!process.env.REPLICAS_KEEP_DATA) rmSync(root, { recursive: true, force: true });
  });
  const storage = await (options.storage ?? sharedDirectory)(root);
  set = await startReplicaSet({
    databaseUrl: url,
    root,
    storage,
    ...(options.count === undefined ? {} : { count: options.count }),
    ...(options.env ? { env: options.env } : {}),
  });
  return set;
}
