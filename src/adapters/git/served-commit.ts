import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { externalRoot, manifestPath } from '../../domain/plugin/manifest-policy.ts';
import { git, gitText } from './git-process.ts';
import { UpstreamError } from './upstream-access.ts';

/**
 * What a commit of the gateway's own is made of (decision 333): the upstream commit's tree, changed by
 * the resolved external plugins, the rewritten manifest and the directories a selection leaves out; and
 * the parent it descends from: the commit the marketplace served when it was made, or none. Never the
 * upstream commit, so nothing the served tree leaves out reaches a client as history.
 */
export type ServedCommitInput = Readonly<{
  /** The upstream commit: its tree is the base, its committer date the commit's dates. */
  upstream: string;
  /** The previously served commit, or null for a root commit. */
  parent: string | null;
  externals: ReadonlyArray<{ name: string; tree: string }>;
  /** The manifest to serve, or null to keep the upstream's (nothing resolved, nothing left out). */
  manifest: string | null;
  /** Directories of the upstream tree dropped from it (local plugins a selection left out). */
  leaveOut: readonly string[];
}>;

const identity = (date: string) => ({
  GIT_AUTHOR_NAME: 'Skill Marketplace Gateway',
  GIT_AUTHOR_EMAIL: 'gateway@localhost',
  GIT_COMMITTER_NAME: 'Skill Marketplace Gateway',
  GIT_COMMITTER_EMAIL: 'gateway@localhost',
  GIT_AUTHOR_DATE: date,
  GIT_COMMITTER_DATE: date,
});

/** The trailer naming the upstream commit a commit of the gateway's own was made from (provenance). */
export const upstreamTrailer = 'Upstream-Commit';

/**
 * Writes the served tree into `repo` with git plumbing (no blob passes through the gateway but the
 * manifest): the upstream tree, with each external plugin's tree under `.gateway-external/<name>`.
 */
export async function servedTree(repo: string, input: Omit<ServedCommitInput, 'parent'>): Promise<string> {
  const { upstream, externals, manifest, leaveOut } = input;
  if (manifest === null && externals.length === 0 && leaveOut.length === 0)
    return gitText(['-C', repo, 'rev-parse', '--verify', `${upstream}^{tree}`]);
  const scratch = mkdtempSync(join(tmpdir(), 'gateway-index-'));
  const env = { GIT_INDEX_FILE: join(scratch, 'index') };
  try {
    await git(['-C', repo, 'read-tree', upstream], { env });
    const existing = await gitText(['-C', repo, 'ls-tree', '--name-only', upstream, '--', externalRoot]);
    if (existing !== '')
      throw new UpstreamError(
        'manifest cannot be composed',
        `the repository already has ${externalRoot}/`,
        `rename ${externalRoot}/ upstream`,
      );
    // Index commands want a work tree even when they never touch one; the scratch directory stands in.
    if (leaveOut.length > 0)
      await git(
        ['-C', repo, `--work-tree=${scratch}`, 'rm', '--cached', '-r', '-q', '--ignore-unmatch', '--', ...leaveOut],
        { env },
      );
    // One tree of every plugin tree (mktree sorts the entries), read in once: a read-tree per plugin
    // rewrites the whole index each time (300 sources: 300 git processes, seconds on every ingest).
    if (externals.length > 0) {
      const input = externals.map(({ name, tree }) => `040000 tree ${tree}\t${name}\n`).join('');
      const all = await gitText(['-C', repo, 'mktree'], { input });
      await git(['-C', repo, `--work-tree=${scratch}`, 'read-tree', `--prefix=${externalRoot}/`, all], { env });
    }
    if (manifest !== null) {
      const blob = await gitText(['-C', repo, 'hash-object', '-w', '--stdin'], { input: manifest });
      const entry = `100644,${blob},${manifestPath}`;
      await git(['-C', repo, `--work-tree=${scratch}`, 'update-index', '--add', '--cacheinfo', entry], { env });
    }
    return await gitText(['-C', repo, 'write-tree'], { env });
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** The commit message: what was resolved and left out, then the upstream commit as a trailer. */
function messageOf(input: ServedCommitInput): string {
  const { externals, leaveOut, upstream } = input;
  const title = externals.length > 0 ? 'Resolve external plugin sources' : 'Serve the vetted snapshot';
  const body = [
    externals.length > 0 ? `${externals.map((e) => `${e.name}: ${e.tree}`).join('\n')}\n` : '',
    leaveOut.length > 0 ? `Left out by the selection:\n${leaveOut.join('\n')}\n` : '',
  ].filter((part) => part !== '');
  return [title, ...body, `${upstreamTrailer}: ${upstream}\n`].join('\n\n').replace(/\n{3,}/g, '\n\n');
}

/**
 * Writes the commit the gateway serves instead of the upstream one and pins it in quarantine
 * (`refs/quarantine/<sha>`). Its dates are the upstream commit's, so the same inputs (tree, parent,
 * upstream commit) always give the same commit.
 */
export async function writeServedCommit(repo: string, input: ServedCommitInput): Promise<string> {
  const tree = await servedTree(repo, input);
  const date = await gitText(['-C', repo, 'show', '-s', '--format=%cI', input.upstream]);
  const parents = input.parent === null ? [] : ['-p', input.parent];
  const commit = await gitText(['-C', repo, 'commit-tree', tree, ...parents], {
    env: identity(date),
    input: messageOf(input),
  });
  await git(['-C', repo, 'update-ref', `refs/quarantine/${commit}`, commit]);
  return commit;
}

/** The tree and parents of each commit present in `repo` (absent ones, and other objects, are left out). */
export async function commitShapes(
  repo: string,
  commits: readonly string[],
): Promise<Map<string, { tree: string; parents: string[] }>> {
  const shapes = new Map<string, { tree: string; parents: string[] }>();
  if (commits.length === 0) return shapes;
  const out = await git(['-C', repo, 'cat-file', '--batch'], { input: `${commits.join('\n')}\n` });
  let at = 0;
  while (at < out.length) {
    const eol = out.indexOf(10, at);
    const [sha, type, size] = out.subarray(at, eol).toString('latin1').split(' ');
    if (size === undefined) {
      at = eol + 1; // `<sha> missing`
      continue;
    }
    const body = out.subarray(eol + 1, eol + 1 + Number(size)).toString('utf8');
    at = eol + 1 + Number(size) + 1;
    if (type !== 'commit') continue;
    const header = body.slice(0, body.indexOf('\n\n'));
    const tree = /^tree ([0-9a-f]+)$/m.exec(header)?.[1];
    const parents = [...header.matchAll(/^parent ([0-9a-f]+)$/gm)].map((m) => m[1]!);
    if (sha && tree) shapes.set(sha, { tree, parents });
  }
  return shapes;
}

/** Whether `ancestor` is `commit` or one of its ancestors. */
export async function isAncestor(repo: string, ancestor: string, commit: string): Promise<boolean> {
  return git(['-C', repo, 'merge-base', '--is-ancestor', ancestor, commit]).then(
    () => true,
    () => false,
  );
}
