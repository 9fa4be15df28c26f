// Which commit a snapshot serves (decision 333). In history mode `upstream` a plain snapshot serves the
// upstream commit itself; anything the gateway changes (external sources resolved, plugins left out or
// withheld) and every snapshot in mode `vetted` is served from a commit of the gateway's own, whose
// parent is the commit the marketplace serves now, never the upstream commit: nothing the served tree
// leaves out reaches a client as history.
import { commitShapes, servedTree, type ServedCommitInput } from '../../adapters/git/served-commit.ts';
import { git, gitText } from '../../adapters/git/git-process.ts';
import { snapshotsOf } from '../../projections/snapshots/snapshots.queries.ts';
import type { Ports } from '../kernel/ports.ts';

export type HistoryMode = 'upstream' | 'vetted';

type ServedCommitPorts = Pick<Ports, 'gitStore' | 'pool' | 'marketplaces'>;

export type ServedContent = Omit<ServedCommitInput, 'parent'>;

const plain = (content: ServedContent) =>
  content.manifest === null && content.externals.length === 0 && content.leaveOut.length === 0;

/**
 * The commit to serve for `content` of an upstream commit: the upstream commit when nothing changes it
 * in mode `upstream`; else a commit of the gateway's own. A commit made for the same upstream commit and
 * tree before is given back when it is the one served now or descends from the same parent, so ingesting
 * an unchanged upstream creates no second snapshot.
 */
export async function servedCommitFor(
  deps: ServedCommitPorts,
  marketplaceId: number,
  content: ServedContent,
): Promise<string> {
  const mode = deps.marketplaces.history;
  if (mode === 'upstream' && plain(content)) return content.upstream;
  const repo = deps.gitStore.quarantinePath(marketplaceId);
  const own = (await snapshotsOf(deps.pool, [marketplaceId])).filter((s) => s.sha !== s.upstreamSha);
  const served = await servedParent(deps, marketplaceId, mode, new Set(own.map((s) => s.sha)));
  const candidates = [...new Set(own.filter((s) => s.upstreamSha === content.upstream).map((s) => s.sha))];
  if (candidates.length > 0) {
    const tree = await treeOf(deps, marketplaceId, content);
    const shapes = await commitShapes(repo, candidates);
    for (const [sha, shape] of [...shapes].reverse()) {
      if (shape.tree !== tree) continue;
      const sameParent = shape.parents.join(' ') === (served ?? '');
      if (sha === served || sameParent) return sha;
    }
  }
  return deps.gitStore.servedCommit(marketplaceId, { ...content, parent: served });
}

/** The tree a served commit of `content` has (written, unreferenced until a commit names it). */
const treeOf = (deps: ServedCommitPorts, marketplaceId: number, content: ServedContent): Promise<string> =>
  servedTree(deps.gitStore.quarantinePath(marketplaceId), content);

/**
 * The parent of a new served commit: the commit the marketplace serves now (its objects have reached
 * clients already), or null. In mode `vetted` only when its whole history is commits of the gateway's
 * own for this marketplace (`own`): a served upstream commit, or a commit made before this rule whose
 * parent is one, would bring upstream history back in.
 */
async function servedParent(
  deps: ServedCommitPorts,
  marketplaceId: number,
  mode: HistoryMode,
  own: ReadonlySet<string>,
): Promise<string | null> {
  const served = await deps.gitStore.servedSha(marketplaceId);
  if (served === null) return null;
  const quarantine = deps.gitStore.quarantinePath(marketplaceId);
  if (!(await present(quarantine, served))) {
    // Captured on another replica: the published repository has it.
    const published = deps.gitStore.publishedPath(marketplaceId);
    await git(['-C', quarantine, 'fetch', '--quiet', '--no-tags', '--no-write-fetch-head', published, served]).catch(
      () => {},
    );
    if (!(await present(quarantine, served))) return null;
  }
  if (mode === 'upstream') return served;
  const history = (await gitText(['-C', quarantine, 'rev-list', served])).split('\n').filter((l) => l !== '');
  return history.every((sha) => own.has(sha)) ? served : null;
}

const present = (repo: string, sha: string) =>
  git(['-C', repo, 'cat-file', '-e', `${sha}^{commit}`]).then(
    () => true,
    () => false,
  );
