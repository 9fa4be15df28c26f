import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { catalogNamePattern } from '../config/key-values.ts';
import { pruneUnreachable } from '../git/bare-repo.ts';
import type { Listener } from '../postgres/listener.ts';
import type { QuarantineLocks } from '../postgres/quarantine-locks.ts';
import { sql, type DatabasePool } from '../postgres/pool.ts';
import type { Bucket } from './bucket.ts';
import type { StoreReplication } from './replication.ts';
import {
  agreed,
  applyManifest,
  manifestKey,
  packKey,
  readState,
  writeChanges,
  type LocalRepo,
  type Manifest,
} from './repo-sync.ts';

/** The notification channel a writer announces a repository's new manifest on (payload: its key). */
export const gitStoreChannel = 'gateway_git_store';
// Advisory locks of repository writers: (namespace, hashtext(key)), beside the quarantine locks' 730612043.
const writerLockNamespace = 730_612_044;
const noManifest: Manifest = { version: 1, generation: 0, refs: {}, packs: [] };

export type ObjectStoreDeps = Readonly<{
  bucket: Bucket;
  /** The local cache: repositories laid out as the filesystem backend lays them out under <data-dir>/git. */
  root: string;
  pool: DatabasePool;
  listener: Listener;
  logger: Logger;
  pollIntervalMs: number;
  /** Held exclusively to prune a local quarantine (an ingest on any replica holds it shared). */
  quarantineLocks: QuarantineLocks;
}>;

/** Per repository: how many times it was brought up to date, how many attempts failed, and the last failure. */
export type PullRecord = { pulled: number; failed: number; lastError: string | null };

/**
 * The object-store backend's replication: the bucket holds, per repository, packs and a manifest
 * (repo-sync.ts); each replica serves from bare repositories under its cache directory. A writer
 * (serialised per repository by an advisory lock across replicas) uploads its new pack, then the
 * manifest, then notifies through PostgreSQL; every replica listens, and lists the manifests every
 * `pollIntervalMs` in case a notification was missed. A pull that fails leaves the repository as it was.
 */
export class ObjectStoreReplication implements StoreReplication {
  private readonly queues = new Map<string, Promise<unknown>>();
  private readonly seen = new Map<string, string>();
  private readonly dirty = new Set<string>();
  /** Quarantines whose refs were removed or packs rewritten by a pull and not pruned yet. */
  private readonly unpruned = new Set<string>();
  readonly pulls = new Map<string, PullRecord>();
  private timer: NodeJS.Timeout | null = null;
  private unlisten: (() => void) | null = null;
  private polling: Promise<void> | null = null;

  private readonly deps: ObjectStoreDeps;
  constructor(deps: ObjectStoreDeps) {
    this.deps = deps;
  }

  /** The local repository a key names, or null for a key this gateway never writes. */
  localRepo(key: string): LocalRepo | null {
    const [kind, name = ''] = key.split(/\/(.*)/s);
    const { root } = this.deps;
    if (kind === 'quarantine' && /^\d+$/.test(name))
      return { path: join(root, 'quarantine', `${name}.git`), served: false, quarantine: true };
    if (kind === 'published' && /^\d+$/.test(name))
      return { path: join(root, 'published', `${name}.git`), served: true, quarantine: false };
    if (kind === 'catalog' && new RegExp(catalogNamePattern).test(name))
      return { path: join(root, 'catalog', 'served', `${name}.git`), served: true, quarantine: false };
    return null;
  }

  /** Brings every repository of the bucket into the cache, then follows notifications and polls. */
  async start(): Promise<void> {
    await this.poll();
    this.unlisten = await this.deps.listener.on(gitStoreChannel, (key) => {
      if (key === '') void this.poll();
      else void this.refresh(key);
    });
    this.timer = setInterval(() => void this.poll(), this.deps.pollIntervalMs);
    this.timer.unref();
  }

  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.unlisten?.();
    await this.polling;
    await Promise.allSettled([...this.queues.values()]);
    this.deps.bucket.close();
  }

  async changed(key: string): Promise<void> {
    try {
      await this.push(key);
      this.dirty.delete(key);
    } catch (error) {
      this.dirty.add(key);
      this.deps.logger.warn({ err: error, key }, 'a repository could not be written to the object store; retried');
    }
  }

  async refresh(key: string): Promise<void> {
    await this.pull(key).catch(() => {});
    await this.pruneQuarantines();
  }

  /**
   * Prunes the local quarantines a pull left with objects nothing reaches (what a compaction elsewhere
   * purged), each under its exclusive lock taken without waiting: one an ingest uses is left for the next
   * poll. Purged content thus leaves every replica's cache, not only the one that ran the compaction.
   */
  async pruneQuarantines(): Promise<void> {
    for (const key of [...this.unpruned]) {
      const local = this.localRepo(key);
      const marketplaceId = Number(key.split('/')[1]);
      if (!local?.quarantine) continue;
      try {
        const locked = await this.deps.quarantineLocks.tryExclusive(marketplaceId, () =>
          this.serial(key, () => pruneUnreachable(local.path)),
        );
        if (!locked.acquired) continue;
        this.unpruned.delete(key);
        this.deps.logger.info({ key }, 'quarantine cache pruned after a compaction elsewhere');
      } catch (error) {
        this.deps.logger.warn({ err: error, key }, 'a quarantine cache could not be pruned; retried on the next poll');
      }
    }
  }

  /** Lists the manifests and pulls each one changed since last seen; retries writes that failed. */
  poll(): Promise<void> {
    this.polling ??= (async () => {
      try {
        for (const key of [...this.dirty]) await this.changed(key);
        const listed = await this.deps.bucket.list('manifests/');
        for (const { key: object, etag } of listed) {
          const key = /^manifests\/(.+)\.json$/.exec(object)?.[1];
          if (key !== undefined && this.seen.get(key) !== etag) await this.pull(key, etag).catch(() => {});
        }
        await this.pruneQuarantines();
      } catch (error) {
        this.deps.logger.warn({ err: error }, 'the object store could not be listed');
      } finally {
        this.polling = null;
      }
    })();
    return this.polling;
  }

  private record(key: string): PullRecord {
    let record = this.pulls.get(key);
    if (!record) this.pulls.set(key, (record = { pulled: 0, failed: 0, lastError: null }));
    return record;
  }

  private serial<T>(key: string, work: () => Promise<T>): Promise<T> {
    const previous = this.queues.get(key) ?? Promise.resolve();
    const next = previous.then(work, work);
    const settled = next.catch(() => {});
    this.queues.set(key, settled);
    void settled.then(() => {
      if (this.queues.get(key) === settled) this.queues.delete(key);
    });
    return next;
  }

  private async manifest(key: string): Promise<Manifest> {
    const bytes = await this.deps.bucket.get(manifestKey(key));
    return bytes === null ? noManifest : (JSON.parse(bytes.toString('utf8')) as Manifest);
  }

  private pull(key: string, etag?: string): Promise<void> {
    const local = this.localRepo(key);
    if (!local) return Promise.resolve();
    return this.serial(key, async () => {
      const record = this.record(key);
      try {
        const manifest = await this.manifest(key);
        const known = existsSync(join(local.path, 'HEAD')) ? readState(local.path).generation : 0;
        if (manifest.generation > known) {
          if ((await applyManifest(local, key, manifest, this.deps.bucket)).unpruned) this.unpruned.add(key);
          record.pulled++;
        }
        if (etag !== undefined) this.seen.set(key, etag);
      } catch (error) {
        record.failed++;
        record.lastError = error instanceof Error ? error.message : String(error);
        this.deps.logger.warn(
          { err: error, key },
          'a repository could not be brought up to date; still serving what it had',
        );
        throw error;
      }
    });
  }

  private push(key: string): Promise<void> {
    const local = this.localRepo(key);
    if (!local) return Promise.reject(new Error(`no repository is named ${key}`));
    return this.serial(key, () =>
      this.deps.pool.transaction(async (tx) => {
        await tx.query(sql.unsafe`select pg_advisory_xact_lock(${writerLockNamespace}, hashtext(${key}))`);
        if (!existsSync(join(local.path, 'HEAD'))) return;
        let remote = await this.manifest(key);
        const state = readState(local.path);
        if (remote.generation > state.generation) {
          if ((await applyManifest(local, key, remote, this.deps.bucket)).unpruned) this.unpruned.add(key);
        } else remote = { ...remote, generation: Math.max(remote.generation, state.generation) };
        const written = await writeChanges(local, key, remote, this.deps.bucket);
        if (!written) return;
        await this.deps.bucket.put(manifestKey(key), JSON.stringify(written.manifest));
        agreed(local.path, written.manifest);
        for (const pack of written.obsolete)
          await this.deps.bucket.delete(packKey(key, pack)).catch((error: unknown) => {
            this.deps.logger.warn({ err: error, key, pack }, 'an obsolete pack could not be deleted');
          });
        // Delivered when the transaction commits, after the manifest is in the bucket.
        await tx.query(sql.unsafe`select pg_notify(${gitStoreChannel}, ${key})`);
      }),
    );
  }
}
