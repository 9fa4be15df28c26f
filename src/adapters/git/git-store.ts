import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { DesiredRefs } from '../../domain/publication/desired-refs.ts';
import { repoKeys, type StoreReplication } from '../storage/replication.ts';
import type { ExternalPlugin } from '../../domain/plugin/manifest-policy.ts';
import { initBare, initServed, pruneUnreachable } from './bare-repo.ts';
import { resolveExternalSources } from './external-sources.ts';
import { git, GitError, gitText } from './git-process.ts';
import { readRefs, restamp, ServedViews, type ServedView } from './served-view.ts';
import { OutboundBoundary } from '../outbound/outbound-boundary.ts';
import { remoteGit, remoteText, type RemoteGit } from './remote-git.ts';
import { writeServedCommit, type ServedCommitInput } from './served-commit.ts';
import { readUpstreamFile } from './upstream-probe.ts';
import {
  defaultIngestLimits,
  quietFetch,
  rootCauseOf,
  upstreamConfig,
  UpstreamError,
  type IngestLimits,
} from './upstream-access.ts';

export { defaultIngestLimits, UpstreamError, type IngestLimits } from './upstream-access.ts';

/**
 * The gateway's git storage under `<data-dir>/git`: per marketplace, a quarantine bare repository
 * (every captured commit pinned by `refs/quarantine/<sha>`) and a published one (exactly what the
 * facade serves). On the object-store backend `root` is the replica's cache and `replication` shares each
 * change through the bucket (adapters/storage/).
 */
export class GitStore {
  private readonly views = new ServedViews();
  /** git for the commands that reach an upstream or an external source: through the outbound boundary. */
  readonly remote: RemoteGit;

  readonly root: string;
  readonly replication: StoreReplication | null;
  readonly outbound: OutboundBoundary;
  constructor(
    root: string,
    /** How changes reach the other replicas (object-store backend); null on the filesystem backend. */
    replication: StoreReplication | null = null,
    /** The outbound boundary every remote command goes through (decision 341); by default none. */
    outbound: OutboundBoundary = OutboundBoundary.of([]),
  ) {
    this.root = root;
    this.replication = replication;
    this.outbound = outbound;
    this.remote = remoteGit(outbound);
  }

  /** After the quarantine changed (a capture, a push, a compaction): shares it with the other replicas. */
  async quarantineChanged(marketplaceId: number): Promise<void> {
    await this.replication?.changed(repoKeys.quarantine(marketplaceId));
  }

  quarantinePath(marketplaceId: number): string {
    return join(this.root, 'quarantine', `${marketplaceId}.git`);
  }

  publishedPath(marketplaceId: number): string {
    return join(this.root, 'published', `${marketplaceId}.git`);
  }

  ensureQuarantine(marketplaceId: number): Promise<string> {
    return initBare(this.quarantinePath(marketplaceId));
  }

  ensurePublished(marketplaceId: number): Promise<string> {
    return initServed(this.publishedPath(marketplaceId));
  }

  /** What the facade answers for a published repository without building a pack (served-view.ts). */
  servedView(marketplaceId: number): Promise<ServedView> {
    return this.views.of(this.publishedPath(marketplaceId));
  }

  /** The upstream's default branch and its tip, read without fetching content. */
  async remoteDefaultBranch(url: string, timeoutMs = 30_000): Promise<{ branch: string; sha: string }> {
    let output: string;
    try {
      output = await remoteText(this.remote, [...upstreamConfig, 'ls-remote', '--symref', url, 'HEAD'], {
        timeoutMs,
        maxOutputBytes: 1024 * 1024,
      });
    } catch (error) {
      throw new UpstreamError(
        'upstream unreadable',
        rootCauseOf(error),
        'check that the URL is a git repository reachable from the gateway and readable without credentials',
      );
    }
    const branch = /^ref: refs\/heads\/(\S+)\tHEAD$/m.exec(output)?.[1];
    const sha = /^([0-9a-f]{40})\tHEAD$/m.exec(output)?.[1];
    if (!branch || !sha) {
      throw new UpstreamError(
        'upstream has no default branch',
        'the repository advertises no HEAD branch (empty, or HEAD detached)',
        'push a default branch (main) to the upstream repository',
      );
    }
    return { branch, sha };
  }

  /**
   * One file of the tip of an upstream branch, read in a throwaway repository under `<root>/probes`
   * (upstream-probe.ts) within `timeoutMs`; null when the tip has no such file.
   */
  probeUpstreamFile(
    url: string,
    branch: string,
    path: string,
    limits: Readonly<{ timeoutMs: number; maxBytes: number }>,
  ): Promise<Buffer | null> {
    return readUpstreamFile(this.remote, { scratch: join(this.root, 'probes'), url, branch, path, ...limits });
  }

  /** Fetches the upstream default branch into quarantine and pins its tip; returns the commit. */
  async fetchUpstream(
    marketplaceId: number,
    url: string,
    limits: IngestLimits = defaultIngestLimits,
  ): Promise<{ sha: string; branch: string }> {
    const { branch } = await this.remoteDefaultBranch(url);
    return this.fetchStaged(
      marketplaceId,
      { url, source: `refs/heads/${branch}`, limits },
      {
        unreadable: (error) =>
          new UpstreamError(
            'upstream fetch failed',
            rootCauseOf(error),
            error instanceof GitError && error.timedOut
              ? 'the repository is too slow or too large to fetch; ingest again later or contact its owner'
              : 'check that the upstream is reachable and the default branch exists, then ingest again',
          ),
        tooLarge: ({ objects, bytes }) =>
          new UpstreamError(
            'upstream too large',
            `fetching added ${objects} objects and ${bytes} bytes`,
            `the gateway accepts at most ${limits.maxObjects} objects and ${limits.maxPackBytes} bytes per ingest; ask the upstream owner to slim the repository`,
          ),
      },
      async (repo, sha) => {
        // Pinned before the capture event is appended; content-addressed, so a retry is harmless.
        await git(['-C', repo, 'update-ref', `refs/quarantine/${sha}`, sha]);
        return { sha, branch };
      },
    );
  }

  /**
   * Resolves one external plugin source into quarantine (external-sources.ts, which resolves many at
   * once); returns its commit and plugin tree, or throws why it could not.
   */
  async fetchExternal(
    marketplaceId: number,
    external: ExternalPlugin,
    limits: IngestLimits = defaultIngestLimits,
  ): Promise<{ commit: string; tree: string }> {
    const [outcome] = await resolveExternalSources(this, marketplaceId, [external], { limits });
    if (!outcome!.ok) throw new UpstreamError(outcome!.reason, outcome!.rootCause, outcome!.nextStep);
    return { commit: outcome!.commit, tree: outcome!.tree };
  }

  /**
   * Fetches `source` of `url` into a staging ref of the quarantine (`refs/staging/<time>-<pid>`),
   * refused when it added more objects or bytes than `limits` allow (left unreachable), and hands the
   * fetched commit to `pin`; the staging ref is dropped whatever happens.
   */
  private async fetchStaged<T>(
    marketplaceId: number,
    fetch: Readonly<{ url: string; source: string; limits: IngestLimits }>,
    errors: Readonly<{
      unreadable(error: unknown): UpstreamError;
      tooLarge(added: { objects: number; bytes: number }): UpstreamError;
    }>,
    pin: (repo: string, commit: string) => Promise<T>,
  ): Promise<T> {
    const { url, source, limits } = fetch;
    const repo = await this.ensureQuarantine(marketplaceId);
    const staging = `refs/staging/${Date.now().toString(36)}-${process.pid}`;
    const before = await this.objectStats(repo);
    try {
      try {
        await this.remote([...upstreamConfig, ...quietFetch(repo), url, `+${source}:${staging}`], {
          timeoutMs: limits.timeoutMs,
        });
      } catch (error) {
        throw errors.unreadable(error);
      }
      const after = await this.objectStats(repo);
      const added = { objects: after.objects - before.objects, bytes: after.bytes - before.bytes };
      // Refused: the staging ref goes (finally below) and what the fetch brought is unreachable. It is not
      // pruned here: another ingest of the marketplace may be writing objects no ref reaches yet. The
      // caller prunes under the quarantine's exclusive lock (application/marketplaces/ingest.use-case.ts), or compaction does.
      if (added.bytes > limits.maxPackBytes || added.objects > limits.maxObjects) throw errors.tooLarge(added);
      return await pin(repo, await gitText(['-C', repo, 'rev-parse', '--verify', `${staging}^{commit}`]));
    } finally {
      await git(['-C', repo, 'update-ref', '-d', staging]).catch(() => {});
    }
  }

  /** The commit the gateway serves instead of the upstream one (application/facade/served-commit.ts), pinned in quarantine. */
  servedCommit(marketplaceId: number, input: ServedCommitInput): Promise<string> {
    return writeServedCommit(this.quarantinePath(marketplaceId), input);
  }

  private async objectStats(repo: string): Promise<{ objects: number; bytes: number }> {
    const text = await gitText(['-C', repo, 'count-objects', '-v']);
    const value = (key: string) => Number(new RegExp(`^${key}: (\\d+)$`, 'm').exec(text)?.[1] ?? 0);
    return { objects: value('count') + value('in-pack'), bytes: (value('size') + value('size-pack')) * 1024 };
  }

  async readFile(repo: string, sha: string, path: string, maxBytes = 16 * 1024 * 1024): Promise<Buffer | null> {
    try {
      return await git(['-C', repo, 'cat-file', 'blob', `${sha}:${path}`], { maxOutputBytes: maxBytes });
    } catch {
      return null;
    }
  }

  async commitTime(repo: string, sha: string): Promise<string | null> {
    try {
      const seconds = Number(await gitText(['-C', repo, 'show', '-s', '--format=%ct', sha]));
      return Number.isFinite(seconds) ? new Date(seconds * 1000).toISOString() : null;
    } catch {
      return null;
    }
  }

  /** Every ref of a repository (name → sha), HEAD excluded. */
  refs(repo: string): Promise<Map<string, string>> {
    return readRefs(repo);
  }

  /** The commit `refs/heads/main` of the published repository resolves to, or null. */
  async servedSha(marketplaceId: number): Promise<string | null> {
    const repo = this.publishedPath(marketplaceId);
    if (!existsSync(join(repo, 'HEAD'))) return null;
    try {
      return await gitText(['-C', repo, 'rev-parse', '--verify', '--quiet', 'refs/heads/main^{commit}']);
    } catch {
      return null;
    }
  }

  /**
   * Makes the published repository hold exactly `desired`: objects copied from quarantine, refs set,
   * every other ref deleted, and after a deletion the objects nothing served reaches pruned, so a
   * withdrawn commit cannot be fetched by id. Idempotent.
   */
  async converge(marketplaceId: number, desired: DesiredRefs): Promise<{ changed: boolean }> {
    // What another replica captured is brought in first: the commits to publish come from it.
    await this.replication?.refresh(repoKeys.quarantine(marketplaceId));
    const published = await this.ensurePublished(marketplaceId);
    const quarantine = this.quarantinePath(marketplaceId);
    const current = await this.refs(published);
    // HEAD, main and the snapshot's own ref name one commit: it is looked for (and brought in) once.
    const checked = new Set<string>();
    for (const [ref, sha] of desired.refs) {
      if (current.get(ref) === sha || checked.has(sha)) continue;
      checked.add(sha);
      const present = await git(['-C', published, 'cat-file', '-e', `${sha}^{commit}`]).then(
        () => true,
        () => false,
      );
      if (!present)
        await git(['-C', quarantine, 'push', '--quiet', '--no-verify', published, `${sha}:refs/snapshots/${sha}`]);
    }
    const commands: string[] = [];
    for (const [ref, sha] of desired.refs) if (current.get(ref) !== sha) commands.push(`update ${ref} ${sha}`);
    const removed = [...current.keys()].filter((ref) => !desired.refs.has(ref));
    for (const ref of removed) commands.push(`delete ${ref}`);
    if (commands.length > 0) {
      // Restamped on both sides of the change: no cached view (served-view.ts) outlives it.
      restamp(published);
      try {
        await git(['-C', published, 'update-ref', '--stdin'], { input: `${commands.join('\n')}\n` });
      } finally {
        restamp(published);
      }
    }
    if (removed.length > 0) await pruneUnreachable(published);
    if (commands.length > 0) await this.replication?.changed(repoKeys.published(marketplaceId));
    return { changed: commands.length > 0 };
  }
}
