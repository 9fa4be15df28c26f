import type { ExternalPlugin } from '../../domain/plugin/manifest-policy.ts';
import { pruneUnreachable } from './bare-repo.ts';
import { ExternalCache } from './external-cache.ts';
import { copyTrees, pinnedTrees } from './external-copy.ts';
import { git, GitError } from './git-process.ts';
import { denyNetworksKey } from '../../domain/outbound/networks.ts';
import type { OutboundBoundary } from '../outbound/outbound-boundary.ts';
import type { RemoteGit } from './remote-git.ts';
import { defaultIngestLimits, rootCauseOf, type IngestLimits } from './upstream-access.ts';

/** What resolution needs of the git store (git-store.ts, which calls this module: no import back). */
export type QuarantineStore = Readonly<{
  root: string;
  ensureQuarantine(marketplaceId: number): Promise<string>;
  /** git for remote commands, through the outbound boundary, which also checks each repository first. */
  remote: RemoteGit;
  outbound: OutboundBoundary;
}>;

/** One external plugin source after resolution: its plugin tree, or why it could not be read. */
export type ExternalResolution =
  | Readonly<{ name: string; ok: true; commit: string; tree: string }>
  | Readonly<{ name: string; ok: false; reason: string; rootCause: string; nextStep: string }>;

export type ResolveOptions = Readonly<{
  limits?: IngestLimits;
  /** At most this many repositories resolved at once (default 8). */
  concurrency?: number;
  /** Told how many sources have an outcome (of all given) each time a repository's sources get theirs. */
  onProgress?: (done: number, total: number) => void;
}>;

export const defaultExternalConcurrency = 8;

/**
 * Resolves every external plugin source of a marketplace into quarantine, one outcome per source in
 * the order given; a source that cannot be read yields an `ok: false` outcome and never fails the rest.
 *
 * Sources are grouped by repository URL, and `concurrency` repositories are resolved at once. Per
 * repository: one `ls-remote` when a source names a ref (none when every source pins a sha), at most
 * one fetch of the commits not cached yet (shallow, blob-less) and one fetch of the blobs of the plugin
 * directories not in quarantine yet (external-cache.ts); then the plugin trees alone are copied into
 * quarantine and pinned there (external-copy.ts). An unchanged sha pin thus costs no network at all,
 * an unchanged ref one `ls-remote`.
 */
export async function resolveExternalSources(
  store: QuarantineStore,
  marketplaceId: number,
  externals: readonly ExternalPlugin[],
  options: ResolveOptions = {},
): Promise<ExternalResolution[]> {
  if (externals.length === 0) return [];
  const limits = options.limits ?? defaultIngestLimits;
  const quarantine = await store.ensureQuarantine(marketplaceId);
  if (!knownTreesOf.has(store)) knownTreesOf.set(store, new Map());
  const context: Context = {
    quarantine,
    limits,
    pinned: await pinnedTrees(quarantine),
    known: knownTreesOf.get(store)!,
  };
  const groups = new Map<string, Source[]>();
  externals.forEach((external, index) => {
    const group = groups.get(external.url) ?? [];
    group.push({ index, external });
    groups.set(external.url, group);
  });
  const outcomes = new Map<number, ExternalResolution>();
  const concurrency = Math.max(1, Math.floor(options.concurrency ?? defaultExternalConcurrency));
  await eachLimited([...groups], concurrency, async ([url, sources]) => {
    const job = new RepositoryJob(context, sources, outcomes);
    // Checked before anything, cached or not: a source whose host is denied is withheld every time.
    const denied = await store.outbound.refusalFor(url);
    if (denied !== null) job.failPending((s) => outsideBoundary(s.external, denied));
    else
      try {
        await ExternalCache.with(store.root, url, store.remote, (cache) => job.run(cache));
      } catch (error) {
        if (!(error instanceof GitError)) throw error;
        job.failPending((s) => unreadable(s.external, rootCauseOf(error)));
      }
    options.onProgress?.(outcomes.size, externals.length);
  });
  return externals.map((_, index) => outcomes.get(index)!);
}

type Source = Readonly<{ index: number; external: ExternalPlugin }>;
type Failure = Readonly<{ reason: string; rootCause: string; nextStep: string }>;
type Context = Readonly<{ quarantine: string; limits: IngestLimits; pinned: Set<string>; known: Map<string, string> }>;
type Lookup = Map<string, { oid: string; type: string } | null>;

// The plugin tree of a source at a commit never changes: once known (per git store, in memory), and
// pinned in quarantine, the source resolves without reading the cache (an unchanged sha pin then costs
// no git command at all).
const knownTreesOf = new WeakMap<QuarantineStore, Map<string, string>>();
const maxKnownTrees = 20_000;
const memoKey = (s: Source, commit: string) => `${s.external.url}\n${commit}\n${s.external.path}`;
function remember(known: Map<string, string>, key: string, tree: string): void {
  known.delete(key);
  known.set(key, tree);
  if (known.size > maxKnownTrees) known.delete(known.keys().next().value!);
}

/** How `cat-file` names a source's plugin tree at a commit. */
const treeName = (s: Source, commit: string) =>
  s.external.path === '' ? `${commit}^{tree}` : `${commit}:${s.external.path}`;

const unreadable = (e: ExternalPlugin, rootCause: string): Failure => ({
  reason: `external plugin source of '${e.name}' unreadable`,
  rootCause,
  nextStep: `check that ${e.url} is reachable from the gateway and has ${e.sha ?? e.ref ?? 'a default branch'}`,
});

const outsideBoundary = (e: ExternalPlugin, rootCause: string): Failure => ({
  reason: `external plugin source of '${e.name}' outside the outbound boundary`,
  rootCause,
  nextStep: `point the plugin at a repository the gateway may reach, or ask the operator to change ${denyNetworksKey}`,
});

const tooLarge = (e: ExternalPlugin, rootCause: string): Failure => ({
  reason: `external plugin source of '${e.name}' too large`,
  rootCause,
  nextStep: 'ask the upstream owner to point the plugin at a smaller repository or a git-subdir path',
});

const noDirectory = (e: ExternalPlugin, commit: string): Failure => ({
  reason: `external plugin source of '${e.name}' has no directory '${e.path}'`,
  rootCause: `${e.url} at ${commit}`,
  nextStep: 'fix the path of the git-subdir source in the marketplace manifest',
});

/** The sources of one repository, resolved step by step; each step settles the sources it fails. */
class RepositoryJob {
  private readonly pending: Map<number, Source>;
  private cache!: ExternalCache;

  private readonly context: Context;
  private readonly outcomes: Map<number, ExternalResolution>;
  constructor(context: Context, sources: readonly Source[], outcomes: Map<number, ExternalResolution>) {
    this.context = context;
    this.outcomes = outcomes;
    this.pending = new Map(sources.map((s) => [s.index, s]));
  }

  async run(cache: ExternalCache): Promise<void> {
    this.cache = cache;
    const commits = await this.wantedCommits();
    for (const s of this.sources) {
      const tree = this.context.known.get(memoKey(s, commits.get(s.index)!));
      if (tree !== undefined && this.context.pinned.has(tree)) this.succeed(s, commits.get(s.index)!, tree);
    }
    if (this.pending.size === 0) return;
    const found = await this.fetchMissing(commits);
    await this.intoQuarantine(commits, this.pluginTrees(commits, found));
  }

  failPending(failure: (source: Source) => Failure): void {
    for (const source of [...this.pending.values()]) this.fail(source, failure(source));
  }

  private fail(source: Source, failure: Failure): void {
    if (!this.pending.delete(source.index)) return;
    this.outcomes.set(source.index, { name: source.external.name, ok: false, ...failure });
  }

  private succeed(source: Source, commit: string, tree: string): void {
    if (!this.pending.delete(source.index)) return;
    this.outcomes.set(source.index, { name: source.external.name, ok: true, commit, tree });
  }

  private get sources(): Source[] {
    return [...this.pending.values()];
  }

  /** The commit each source wants: its sha pin, or its ref's tip read with one `ls-remote`. */
  private async wantedCommits(): Promise<Map<number, string>> {
    const commits = new Map<number, string>();
    for (const s of this.sources) if (s.external.sha !== null) commits.set(s.index, s.external.sha);
    const byRef = this.sources.filter((s) => s.external.sha === null);
    if (byRef.length === 0) return commits;
    let tips: Map<string | null, string | null>;
    try {
      tips = await this.cache.remoteTips(
        byRef.map((s) => s.external.ref),
        this.context.limits.timeoutMs,
      );
    } catch (error) {
      for (const s of byRef) this.fail(s, unreadable(s.external, rootCauseOf(error)));
      return commits;
    }
    for (const s of byRef) {
      const tip = tips.get(s.external.ref) ?? null;
      if (tip !== null) commits.set(s.index, tip);
      else
        this.fail(
          s,
          unreadable(
            s.external,
            s.external.ref === null
              ? 'the repository advertises no default branch (HEAD)'
              : `the repository has no branch or tag '${s.external.ref}'`,
          ),
        );
    }
    return commits;
  }

  /**
   * One fetch of every wanted commit the cache lacks; a commit the remote does not have fails its
   * sources. Returns the answers of `lookupAll` once every commit is here (one lookup when none was missing).
   */
  private async fetchMissing(commits: ReadonlyMap<number, string>): Promise<Lookup> {
    const wanting = (sha: string) => this.sources.filter((s) => commits.get(s.index) === sha);
    const before = await this.lookupAll(commits);
    let wanted = [...new Set(commits.values())].filter((sha) => before.get(sha) === null);
    if (wanted.length === 0) return before;
    let shallow = true;
    while (wanted.length > 0) {
      // A whole repository needs its blobs anyway: fetched at once, without a second request.
      const blobs = wanted.every((sha) => wanting(sha).every((s) => s.external.path === ''));
      try {
        const added = await this.cache.fetchCommits(wanted, {
          blobs,
          shallow,
          timeoutMs: this.context.limits.timeoutMs,
        });
        await this.refuseOverLimit(wanted, added, wanting);
        break;
      } catch (error) {
        const stderr = error instanceof GitError ? error.stderr : '';
        const absent = /not our ref ([0-9a-f]{40})/.exec(stderr)?.[1];
        if (absent !== undefined && wanted.includes(absent)) {
          for (const s of wanting(absent))
            this.fail(s, unreadable(s.external, `the repository has no commit ${absent}`));
          wanted = wanted.filter((sha) => sha !== absent);
        } else if (shallow && /shallow|filter/i.test(stderr)) {
          shallow = false; // a server that refuses partial fetches: a full fetch of the repository
        } else {
          for (const sha of wanted)
            for (const s of wanting(sha)) this.fail(s, unreadable(s.external, rootCauseOf(error)));
          break;
        }
      }
    }
    return this.lookupAll(commits);
  }

  /** Each pending source's commit and plugin tree as the cache has them, in one `cat-file`. */
  private lookupAll(commits: ReadonlyMap<number, string>): Promise<Lookup> {
    const names = this.sources.flatMap((s) => [commits.get(s.index)!, treeName(s, commits.get(s.index)!)]);
    return this.cache.lookup([...new Set(names.filter((name) => !/[\0-\x1f]/.test(name)))]);
  }

  private async refuseOverLimit(
    wanted: readonly string[],
    added: { objects: number; bytes: number },
    wanting: (sha: string) => Source[],
  ): Promise<void> {
    const { maxObjects, maxPackBytes } = this.context.limits;
    if (added.objects <= maxObjects && added.bytes <= maxPackBytes) return;
    const rootCause =
      added.objects > maxObjects ? `fetching added ${added.objects} objects` : `fetching added ${added.bytes} bytes`;
    for (const sha of wanted) for (const s of wanting(sha)) this.fail(s, tooLarge(s.external, rootCause));
    await git(['-C', this.cache.path, 'update-ref', '--stdin'], {
      input: wanted.map((sha) => `delete refs/pins/${sha}\n`).join(''),
    });
    await pruneUnreachable(this.cache.path);
  }

  /** The plugin tree of each source (the commit's root tree, or its git-subdir directory), from `found`. */
  private pluginTrees(commits: ReadonlyMap<number, string>, found: Lookup): Map<number, string> {
    const trees = new Map<number, string>();
    for (const s of this.sources) {
      const commit = commits.get(s.index)!;
      const entry = found.get(treeName(s, commit));
      if (found.get(commit)?.type !== 'commit')
        this.fail(s, unreadable(s.external, `the repository has no commit ${commit}`));
      else if (entry?.type === 'tree') {
        trees.set(s.index, entry.oid);
        remember(this.context.known, memoKey(s, commit), entry.oid);
      } else this.fail(s, noDirectory(s.external, commit));
    }
    return trees;
  }

  /**
   * Trees already pinned in quarantine are done. The others, within the limits: their missing blobs
   * fetched in one request, then copied into quarantine in one pack and pinned there.
   */
  private async intoQuarantine(commits: ReadonlyMap<number, string>, trees: ReadonlyMap<number, string>) {
    const { limits, pinned } = this.context;
    const byTree = new Map<string, Source[]>();
    for (const s of this.sources) byTree.set(trees.get(s.index)!, [...(byTree.get(trees.get(s.index)!) ?? []), s]);
    const settle = (tree: string, failure: ((e: ExternalPlugin) => Failure) | null) => {
      for (const s of byTree.get(tree)!)
        if (failure) this.fail(s, failure(s.external));
        else this.succeed(s, commits.get(s.index)!, tree);
    };
    const listings = new Map<string, { oids: string[]; missing: string[] }>();
    for (const tree of byTree.keys()) {
      if (pinned.has(tree)) settle(tree, null);
      else {
        const listing = await this.cache.objectsOf(tree, limits.maxObjects);
        if (listing !== null) listings.set(tree, listing);
        else settle(tree, (e) => tooLarge(e, `the plugin directory has more than ${limits.maxObjects} objects`));
      }
    }
    try {
      await this.cache.fetchObjects([...new Set([...listings.values()].flatMap((l) => l.missing))], limits.timeoutMs);
    } catch (error) {
      for (const [tree, listing] of listings)
        if (listing.missing.length > 0) {
          settle(tree, (e) => unreadable(e, rootCauseOf(error)));
          listings.delete(tree);
        }
    }
    const sizes = await this.cache.diskSizes([...new Set([...listings.values()].flatMap((l) => l.oids))]);
    const accepted: string[] = [];
    for (const [tree, { oids }] of listings) {
      const bytes = oids.reduce((sum, oid) => sum + (sizes.get(oid) ?? Number.NaN), 0);
      if (Number.isNaN(bytes))
        settle(tree, (e) => unreadable(e, 'the repository did not send every file of the plugin directory'));
      else if (bytes > limits.maxPackBytes)
        settle(tree, (e) => tooLarge(e, `the plugin directory takes ${bytes} bytes`));
      else accepted.push(tree);
    }
    await copyTrees(this.cache.path, this.context.quarantine, accepted, limits.timeoutMs);
    for (const tree of accepted) {
      pinned.add(tree);
      settle(tree, null);
    }
  }
}

/** Runs `work` on every item, at most `limit` at once. */
async function eachLimited<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await work(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}
