import { createHash } from 'node:crypto';
import { readdir, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { initBare } from './bare-repo.ts';
import { GitError, gitText } from './git-process.ts';
import { remoteText, type RemoteGit } from './remote-git.ts';
import { quietFetch, upstreamConfig } from './upstream-access.ts';

/**
 * The gateway's partial clone of one external repository: `<git root>/external-cache/<sha256 of url>.git`,
 * a shallow (`--depth=1`), blob-less (`--filter=blob:none`) bare repository whose fetched commits are
 * pinned as `refs/pins/<sha>`; the blobs of the plugin trees it resolves are fetched into it by id. It is
 * a cache: what quarantine needs is copied out of it (external-copy.ts), and it may be deleted at any time.
 *
 * The remote exists for the fetches alone (`asPromisor`: `origin` with the URL, a promisor remote with
 * the filter), never in the repository's configuration: given both settings, git writes neither there
 * (partial_clone_register), so no other command in the cache can fetch a missing object on its own.
 * Every network access is one of the commands below, under the trust boundary of `upstreamConfig`, the
 * outbound boundary (`remote`, decision 341) and a time limit.
 */
export class ExternalCache {
  readonly url: string;
  readonly path: string;
  private readonly remote: RemoteGit;
  private constructor(url: string, path: string, remote: RemoteGit) {
    this.url = url;
    this.path = path;
    this.remote = remote;
  }

  /** Runs `work` on the cache of `url` under `root`, one at a time per cache in this process. */
  static with<T>(root: string, url: string, remote: RemoteGit, work: (cache: ExternalCache) => Promise<T>): Promise<T> {
    const path = externalCachePath(root, url);
    return exclusive(path, async () => {
      await initBare(path);
      await markUsed(path);
      return work(new ExternalCache(url, path, remote));
    });
  }

  /** `-c` settings of a fetch: the trust boundary, and the URL as `origin`, a promisor for this command alone. */
  private get asPromisor(): string[] {
    return [
      ...upstreamConfig,
      ...['url', 'promisor', 'partialclonefilter'].flatMap((key, i) => [
        '-c',
        `remote.origin.${key}=${[this.url, 'true', 'blob:none'][i]}`,
      ]),
    ];
  }

  /**
   * The commit each ref names on the remote (null: the remote has no such ref; `null` as a ref: the
   * default branch), read with one `ls-remote`. Rejects with a GitError when the remote cannot be read.
   *
   * Over protocol v0 (`protocol.version=0`): one HTTP request (`GET info/refs`, the whole advertisement,
   * filtered here by the patterns) where v2 makes two (the capabilities, then `ls-refs` with the
   * patterns as prefixes) and the server runs upload-pack twice. This runs once per repository on
   * every ingest, unchanged pins included, so it is the floor of a second ingest. Measured on loopback
   * (`git http-backend`, git 2.39): 24 against 34 ms per ls-remote, still faster at 50,000 refs (102
   * against 128 ms: the v2 server reads every ref to filter them too); bench/externals.ts, second ingest
   * of 300 sources over 60 repositories on a busy machine: 1.05–1.55 s against 1.85–2.29 s, the upstream
   * server's CPU halved. Over a real network v0 saves a round trip and costs the bytes of
   * the refs not asked for (about 60 per ref: a repository with thousands of pull-request refs sends
   * hundreds of KiB). The answer is the same: only the exact names resolveRemoteRef looks up are read,
   * the others v0's tail-matching lets through are ignored, and a moved branch is seen either way.
   */
  async remoteTips(refs: ReadonlyArray<string | null>, timeoutMs: number): Promise<Map<string | null, string | null>> {
    const patterns = [...new Set(refs.flatMap((ref) => (ref === null ? ['HEAD'] : [ref, `${ref}^{}`])))];
    const command = [...upstreamConfig, '-c', 'protocol.version=0', 'ls-remote', this.url, ...patterns];
    const output = await remoteText(this.remote, command, {
      timeoutMs,
      maxOutputBytes: 16 * 1024 * 1024,
    });
    const listing = new Map<string, string>();
    for (const line of output.split('\n')) {
      const match = /^([0-9a-f]{40})\t(.+)$/.exec(line);
      if (match) listing.set(match[2]!, match[1]!);
    }
    return new Map(refs.map((ref) => [ref, resolveRemoteRef(listing, ref)]));
  }

  /** For each object name (`<sha>`, `<sha>:<path>`, `<sha>^{tree}`): its id and type here, or null. */
  async lookup(names: readonly string[]): Promise<Map<string, { oid: string; type: string } | null>> {
    const answers = new Map<string, { oid: string; type: string } | null>();
    if (names.length === 0) return answers;
    const output = await gitText(['-C', this.path, 'cat-file', '--batch-check=%(objectname) %(objecttype)'], {
      input: `${names.join('\n')}\n`,
    });
    const lines = output.split('\n');
    names.forEach((name, i) => {
      const match = /^([0-9a-f]{40}) (commit|tree|blob|tag)$/.exec(lines[i] ?? ''); // else `<name> missing`
      answers.set(name, match ? { oid: match[1]!, type: match[2]! } : null);
    });
    return answers;
  }

  /**
   * Fetches the commits (by id, one `git fetch` for all of them) and pins them. `blobs: false` leaves
   * their blobs on the remote (`--filter=blob:none`); `shallow: false` is the fallback for a server
   * that refuses shallow or filtered fetches. Returns the objects and bytes the fetch added.
   */
  async fetchCommits(
    shas: readonly string[],
    options: Readonly<{ blobs: boolean; shallow: boolean; timeoutMs: number }>,
  ): Promise<{ objects: number; bytes: number }> {
    const before = await this.objectStats();
    await this.remote(
      [
        ...this.asPromisor,
        ...quietFetch(this.path),
        ...(options.shallow ? ['--depth=1'] : []),
        options.blobs || !options.shallow ? '--no-filter' : '--filter=blob:none',
        'origin',
        ...shas.map((sha) => `+${sha}:refs/pins/${sha}`),
      ],
      { timeoutMs: options.timeoutMs },
    );
    const after = await this.objectStats();
    return { objects: after.objects - before.objects, bytes: after.bytes - before.bytes };
  }

  /** Fetches objects by id (the blobs of plugin trees), in one request, as git's own lazy fetch does. */
  async fetchObjects(oids: readonly string[], timeoutMs: number): Promise<void> {
    if (oids.length === 0) return;
    await this.remote(
      [
        ...this.asPromisor,
        '-c',
        'fetch.negotiationAlgorithm=noop',
        ...quietFetch(this.path),
        '--filter=blob:none',
        '--stdin',
        'origin',
      ],
      { timeoutMs, input: `${oids.join('\n')}\n` },
    );
  }

  /**
   * Every object a tree reaches (`oids`), and those not fetched yet (`missing`). Null when there are
   * more than `maxObjects` (the listing is cut there).
   */
  async objectsOf(tree: string, maxObjects: number): Promise<{ oids: string[]; missing: string[] } | null> {
    let output: string;
    try {
      output = await gitText(['-C', this.path, 'rev-list', '--objects', '--no-object-names', '--missing=print', tree], {
        maxOutputBytes: (maxObjects + 1) * 42,
      });
    } catch (error) {
      if (error instanceof GitError && /more than \d+ bytes/.test(error.message)) return null;
      throw error;
    }
    const lines = output.split('\n').filter(Boolean);
    if (lines.length > maxObjects) return null;
    return {
      oids: lines.map((line) => (line.startsWith('?') ? line.slice(1) : line)),
      missing: lines.filter((line) => line.startsWith('?')).map((line) => line.slice(1)),
    };
  }

  /** The bytes each object takes in this repository (compressed); null for one not here. */
  async diskSizes(oids: readonly string[]): Promise<Map<string, number | null>> {
    const sizes = new Map<string, number | null>();
    if (oids.length === 0) return sizes;
    const output = await gitText(['-C', this.path, 'cat-file', '--batch-check=%(objectname) %(objectsize:disk)'], {
      input: `${oids.join('\n')}\n`,
      maxOutputBytes: (oids.length + 1) * 80,
    });
    const lines = output.split('\n');
    oids.forEach((oid, i) => {
      const match = /^[0-9a-f]{40} (\d+)$/.exec(lines[i] ?? ''); // else `<oid> missing`
      sizes.set(oid, match ? Number(match[1]) : null);
    });
    return sizes;
  }

  private async objectStats(): Promise<{ objects: number; bytes: number }> {
    const text = await gitText(['-C', this.path, 'count-objects', '-v']);
    const value = (key: string) => Number(new RegExp(`^${key}: (\\d+)$`, 'm').exec(text)?.[1] ?? 0);
    return { objects: value('count') + value('in-pack'), bytes: (value('size') + value('size-pack')) * 1024 };
  }
}

/** Where the cache of `url` lives under the git store root. */
export const externalCachePath = (root: string, url: string): string =>
  join(root, 'external-cache', `${createHash('sha256').update(url).digest('hex')}.git`);

/** A file in each cache whose modification time is when the gateway last used the cache. */
const usedStamp = 'gateway-last-used';

async function markUsed(path: string): Promise<void> {
  const stamp = join(path, usedStamp);
  const now = new Date();
  await utimes(stamp, now, now).catch(() => writeFile(stamp, ''));
}

/** One external repository's cache under the git store root, and when it was last used. */
export type ExternalCacheEntry = Readonly<{ path: string; lastUsed: Date }>;

/** The caches under `root` (`external-cache/<sha256 of url>.git`); a cache without its stamp counts from its creation. */
export async function externalCaches(root: string): Promise<ExternalCacheEntry[]> {
  const directory = join(root, 'external-cache');
  const names = await readdir(directory).catch((): string[] => []);
  const entries: ExternalCacheEntry[] = [];
  for (const name of names.filter((n) => /^[0-9a-f]{64}\.git$/.test(n)).sort()) {
    const path = join(directory, name);
    const stamp = await stat(join(path, usedStamp)).catch(() => stat(path).catch(() => null));
    if (stamp !== null) entries.push({ path, lastUsed: stamp.mtime });
  }
  return entries;
}

/**
 * Removes the cache at `path` after any use of it in this process, unless it was used again in the
 * meantime (its stamp is newer than `lastUsed`); answers whether it removed it.
 */
export function removeExternalCache(entry: ExternalCacheEntry): Promise<boolean> {
  return exclusive(entry.path, async () => {
    const stamp = await stat(join(entry.path, usedStamp)).catch(() => null);
    if (stamp !== null && stamp.mtime.getTime() > entry.lastUsed.getTime()) return false;
    await rm(entry.path, { recursive: true, force: true });
    return true;
  });
}

/**
 * The commit a ref names in an `ls-remote` listing, as `git fetch <url> <ref>` would pick it: the first
 * of `<ref>`, `refs/<ref>`, `refs/tags/<ref>`, `refs/heads/<ref>`, … that exists, peeled when a tag.
 */
export function resolveRemoteRef(listing: ReadonlyMap<string, string>, ref: string | null): string | null {
  const candidates =
    ref === null
      ? ['HEAD']
      : [
          ref,
          `refs/${ref}`,
          `refs/tags/${ref}`,
          `refs/heads/${ref}`,
          `refs/remotes/${ref}`,
          `refs/remotes/${ref}/HEAD`,
        ];
  const name = candidates.find((candidate) => listing.has(candidate));
  return name === undefined ? null : (listing.get(`${name}^{}`) ?? listing.get(name)!);
}

// One holder per cache at a time (a shallow fetch locks `shallow`; two would collide); several ingests
// may name the same repository.
const queues = new Map<string, Promise<unknown>>();

function exclusive<T>(key: string, work: () => Promise<T>): Promise<T> {
  const previous = queues.get(key) ?? Promise.resolve();
  const run = previous.then(work, work);
  const settled = run.then(
    () => {},
    () => {},
  );
  queues.set(key, settled);
  void settled.then(() => {
    if (queues.get(key) === settled) queues.delete(key);
  });
  return run;
}
