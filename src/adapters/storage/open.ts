import { join, resolve } from 'node:path';
import type { Logger } from 'pino';
import type { GatewayConfig } from '../config/schema.ts';
import { CatalogStore } from '../git/catalog-store.ts';
import { GitStore } from '../git/git-store.ts';
import { OutboundBoundary } from '../outbound/outbound-boundary.ts';
import type { Listener } from '../postgres/listener.ts';
import type { QuarantineLocks } from '../postgres/quarantine-locks.ts';
import type { DatabasePool } from '../postgres/pool.ts';
import { ObjectStoreReplication } from './object-store.ts';

export type GitStorage = Readonly<{
  gitStore: GitStore;
  catalogStore: CatalogStore;
  /** The object-store backend's replication; null on the filesystem backend. */
  replication: ObjectStoreReplication | null;
  close(): Promise<void>;
}>;

/**
 * The git store of `gateway.storage.backend`: on filesystem, bare repositories under <data-dir>/git; on
 * object-store, the same layout under the replica's cache directory, kept in step with the bucket (brought
 * up to date before this returns, so a replica starting with an empty cache serves what the bucket holds).
 * Its remote commands go through the outbound boundary of gateway.outbound.deny-networks (decision 341),
 * `gitStore.outbound`, which the other outbound clients share; closing the storage closes the boundary.
 */
export async function openGitStorage(
  config: GatewayConfig,
  deps: Readonly<{ pool: DatabasePool; listener: Listener; logger: Logger; quarantineLocks: QuarantineLocks }>,
): Promise<GitStorage> {
  const { storage } = config;
  const outbound = OutboundBoundary.of(config.outbound.denyNetworks);
  if (storage.backend !== 'object-store') {
    const gitStore = new GitStore(join(config.dataDir, 'git'), null, outbound);
    return {
      gitStore,
      catalogStore: new CatalogStore(join(gitStore.root, 'catalog')),
      replication: null,
      close: () => outbound.close(),
    };
  }
  const { bucket, region, endpoint, cacheDir, pollIntervalMs } = storage.objectStore;
  const root = cacheDir === null ? join(config.dataDir, 'git-cache') : resolve(cacheDir);
  // The S3 client (a few hundred milliseconds of loading) is loaded only by a gateway that uses a bucket.
  const { Bucket } = await import('./bucket.ts');
  const replication = new ObjectStoreReplication({
    bucket: new Bucket({ bucket: bucket!, region: region!, endpoint }),
    root,
    pool: deps.pool,
    listener: deps.listener,
    logger: deps.logger.child({ component: 'object-store' }),
    pollIntervalMs,
    quarantineLocks: deps.quarantineLocks,
  });
  await replication.start();
  return {
    gitStore: new GitStore(root, replication, outbound),
    catalogStore: new CatalogStore(join(root, 'catalog'), replication),
    replication,
    close: async () => {
      await replication.close();
      await outbound.close();
    },
  };
}
