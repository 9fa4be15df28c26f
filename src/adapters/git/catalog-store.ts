import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { initBare, initServed, pruneUnreachable } from './bare-repo.ts';
import { git, gitText } from './git-process.ts';
import { quietFetch } from './upstream-access.ts';
import { readRefs, restamp, ServedViews, type ServedView } from './served-view.ts';
import { repoKeys, type StoreReplication } from '../storage/replication.ts';

/** A file of the catalog commit written from text, or a directory taken whole from a constituent's tree. */
export type CatalogBlob = Readonly<{ path: string; text: string }>;
export type CatalogTree = Readonly<{ path: string; tree: string }>;

type Leaf = Readonly<{ mode: '100644' | '040000'; type: 'blob' | 'tree'; oid: string }>;
type Dir = Map<string, Dir | Leaf>;

const constituentsPrefix = 'refs/constituents/';
const maxCachedRecords = 32;

/** Nothing a catalog commit depends on but its inputs: a fixed identity and the generation time. */
function identityAt(instant: string): Record<string, string> {
  const date = `@${Math.floor(Date.parse(instant) / 1000)} +0000`;
  return {
    GIT_AUTHOR_NAME: 'Skill Marketplace Gateway',
    GIT_AUTHOR_EMAIL: 'gateway@localhost',
    GIT_AUTHOR_DATE: date,
    GIT_COMMITTER_NAME: 'Skill Marketplace Gateway',
    GIT_COMMITTER_EMAIL: 'gateway@localhost',
    GIT_COMMITTER_DATE: date,
  };
}

/**
 * The git side of the virtual catalog, under `<data-dir>/git/catalog`: a work repository holding every
 * served marketplace's commit (fetched from its quarantine, pinned by `refs/constituents/<marketplace
 * id>`) where catalog commits are composed with git plumbing, and per
 * catalog name a served repository holding exactly `refs/heads/main` (HEAD points at it), which is all
 * the facade advertises. No plugin content passes through the gateway: trees are referenced by id.
 */
export class CatalogStore {
  private readonly views = new ServedViews();
  private readonly records = new Map<string, string>();

  readonly root: string;
  private readonly replication: StoreReplication | null;
  constructor(root: string, replication: StoreReplication | null = null) {
    this.root = root;
    this.replication = replication;
  }

  get workPath(): string {
    return join(this.root, 'work.git');
  }

  servedPath(name: string): string {
    return join(this.root, 'served', `${name}.git`);
  }

  /** What the facade answers for the served catalog without building a pack (served-view.ts). */
  servedView(name: string): Promise<ServedView> {
    return this.views.of(this.servedPath(name));
  }

  /** The commit the served catalog's main resolves to, or null when nothing is served (from the cached view). */
  async servedSha(name: string): Promise<string | null> {
    return (await this.servedView(name)).refs.get('refs/heads/main') ?? null;
  }

  /** A small file of a served catalog commit (cached: a commit never changes), or null. */
  async servedFile(name: string, sha: string, path: string): Promise<string | null> {
    const key = `${sha}:${path}`;
    const cached = this.records.get(key);
    if (cached !== undefined) return cached;
    const text = await git(['-C', this.servedPath(name), 'cat-file', 'blob', key], {
      maxOutputBytes: 16 * 1024 * 1024,
    }).then(
      (out) => out.toString('utf8'),
      () => null,
    );
    if (text === null) return null;
    if (this.records.size >= maxCachedRecords) this.records.delete(this.records.keys().next().value as string);
    this.records.set(key, text);
    return text;
  }

  /**
   * Brings a constituent commit into the work repository from the marketplace's quarantine (where every
   * captured commit is pinned as `refs/quarantine/<sha>`) and pins it as `refs/constituents/<id>`.
   */
  async fetchConstituent(marketplaceId: number, quarantineRepo: string, sha: string): Promise<void> {
    const work = await initBare(this.workPath);
    const ref = `${constituentsPrefix}${marketplaceId}`;
    const pinned = await gitText(['-C', work, 'rev-parse', '--verify', '--quiet', ref]).catch(() => '');
    if (pinned === sha) return;
    const present = await git(['-C', work, 'cat-file', '-e', `${sha}^{commit}`]).then(
      () => true,
      () => false,
    );
    if (!present) {
      await git([...quietFetch(work), quarantineRepo, `+refs/quarantine/${sha}:${ref}`], { timeoutMs: 600_000 });
    }
    await git(['-C', work, 'update-ref', ref, sha]);
  }

  /** Drops the pins of marketplaces that are no longer constituents. */
  async keepConstituents(marketplaceIds: readonly number[]): Promise<void> {
    if (!existsSync(join(this.workPath, 'HEAD'))) return;
    const keep = new Set(marketplaceIds.map((id) => `${constituentsPrefix}${id}`));
    const stale = [...(await readRefs(this.workPath)).keys()].filter(
      (ref) => ref.startsWith(constituentsPrefix) && !keep.has(ref),
    );
    if (stale.length > 0)
      await git(['-C', this.workPath, 'update-ref', '--stdin'], {
        input: stale.map((ref) => `delete ${ref}\n`).join(''),
      });
  }

  /** A file of a constituent commit in the work repository, or null (absent, or over `maxBytes`). */
  async constituentFile(sha: string, path: string, maxBytes = 16 * 1024 * 1024): Promise<string | null> {
    return git(['-C', this.workPath, 'cat-file', 'blob', `${sha}:${path}`], { maxOutputBytes: maxBytes }).then(
      (out) => out.toString('utf8'),
      () => null,
    );
  }

  /** The tree id of `<sha>:<dir>` for each request ('' is the root), in order; null where that is not a directory. */
  async trees(requests: ReadonlyArray<Readonly<{ sha: string; dir: string }>>): Promise<Array<string | null>> {
    if (requests.length === 0) return [];
    // One object name per line: a path with a line break cannot be asked for (and is answered null).
    const askable = requests.map((r) => !/[\n\r]/.test(r.dir));
    const input = requests
      .filter((_, i) => askable[i])
      .map((r) => `${r.sha}:${r.dir}\n`)
      .join('');
    const lines =
      input === '' ? [] : (await gitText(['-C', this.workPath, 'cat-file', '--batch-check'], { input })).split('\n');
    let next = 0;
    return requests.map((_, i) => {
      if (!askable[i]) return null;
      const [oid, type] = (lines[next++] ?? '').split(' ');
      return type === 'tree' && oid ? oid : null;
    });
  }

  /**
   * Writes a root commit (no parent, so nothing withdrawn stays reachable through history) whose tree
   * holds `blobs` and `trees` at their paths, dated `generatedAt`, with a fixed identity: the same inputs
   * give the same commit. Trees are composed by id with `git mktree`, directory by directory.
   */
  async commit(
    input: Readonly<{
      blobs: readonly CatalogBlob[];
      trees: readonly CatalogTree[];
      message: string;
      generatedAt: string;
    }>,
  ): Promise<string> {
    const work = await initBare(this.workPath);
    const root: Dir = new Map();
    const place = (path: string, leaf: Leaf) => {
      const parts = path.split('/');
      let dir = root;
      for (const part of parts.slice(0, -1)) {
        const child = dir.get(part) ?? new Map();
        if (!(child instanceof Map)) throw new Error(`catalog path ${path} runs through a file`);
        dir.set(part, child);
        dir = child;
      }
      const name = parts.at(-1)!;
      if (dir.has(name)) throw new Error(`catalog path ${path} is placed twice`);
      dir.set(name, leaf);
    };
    for (const blob of input.blobs) {
      place(blob.path, {
        mode: '100644',
        type: 'blob',
        oid: await gitText(['-C', work, 'hash-object', '-w', '--stdin'], { input: blob.text }),
      });
    }
    for (const tree of input.trees) place(tree.path, { mode: '040000', type: 'tree', oid: tree.tree });
    const write = async (dir: Dir): Promise<string> => {
      const entries: string[] = [];
      for (const [name, node] of dir) {
        const leaf = node instanceof Map ? { mode: '040000', type: 'tree', oid: await write(node) } : node;
        entries.push(`${leaf.mode} ${leaf.type} ${leaf.oid}\t${name}\0`);
      }
      // mktree sorts the entries and checks that every object exists with the type given.
      return gitText(['-C', work, 'mktree', '-z'], { input: entries.join('') });
    };
    const tree = await write(root);
    return gitText(['-C', work, 'commit-tree', tree], { env: identityAt(input.generatedAt), input: input.message });
  }

  /**
   * Serves `sha` as the catalog's main. The stamp is rewritten on both sides of the change, so no cached
   * view outlives it (served-view.ts).
   */
  async serve(name: string, sha: string): Promise<void> {
    const served = await initServed(this.servedPath(name));
    if ((await this.servedSha(name)) === sha) return;
    restamp(served);
    try {
      await git(['-C', this.workPath, 'push', '--quiet', '--no-verify', served, `+${sha}:refs/heads/main`], {
        timeoutMs: 600_000,
      });
    } finally {
      restamp(served);
    }
    await this.replication?.changed(repoKeys.catalog(name));
  }

  /** Serves nothing under `name` any more (the facade answers 404); false when nothing was served. */
  async withdraw(name: string): Promise<boolean> {
    const served = this.servedPath(name);
    if ((await this.servedSha(name)) === null) return false;
    restamp(served);
    try {
      await git(['-C', served, 'update-ref', '-d', 'refs/heads/main']);
    } finally {
      restamp(served);
    }
    await this.replication?.changed(repoKeys.catalog(name));
    return true;
  }

  /** Drops from the served repository every object its main does not reach (what a previous revision reached may be revoked content). */
  async prune(name: string): Promise<void> {
    const served = this.servedPath(name);
    if (existsSync(join(served, 'HEAD'))) await pruneUnreachable(served);
  }

  /**
   * Lets git pack the work repository when it has grown (it is never served, so nothing in it is urgent).
   * initBare turns automatic gc off; git's default threshold is given back for this pass alone, so the
   * work repository is packed here, under the builder's lock, and never behind a fetch.
   */
  async tidy(): Promise<void> {
    if (!existsSync(join(this.workPath, 'HEAD'))) return;
    await git(['-C', this.workPath, '-c', 'gc.auto=6700', 'gc', '--auto', '--quiet'], { timeoutMs: 600_000 });
  }
}
