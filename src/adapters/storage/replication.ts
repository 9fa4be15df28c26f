/**
 * How the git store shares its repositories between replicas (object-store backend; none on the
 * filesystem backend). Keys name repositories: `quarantine/<id>`, `published/<id>`, `catalog/<name>`.
 */
export type StoreReplication = Readonly<{
  /** After a change of the local repository: writes it to the shared store (failures are retried later). */
  changed(key: string): Promise<void>;
  /** Before reading a repository another replica may have changed: brings the local copy up to date (best effort). */
  refresh(key: string): Promise<void>;
}>;

export const repoKeys = {
  quarantine: (marketplaceId: number) => `quarantine/${marketplaceId}`,
  published: (marketplaceId: number) => `published/${marketplaceId}`,
  catalog: (name: string) => `catalog/${name}`,
};
