import { Type } from 'typebox';
import { gitText } from '../../../adapters/git/git-process.ts';
import { listTree } from '../../../adapters/git/tree-reader.ts';
import { addressedSnapshot } from '../../../application/addressed-snapshot.ts';
import { snapshotTree } from '../../../application/policy-evaluation.ts';
import { contentDiff, skillStatuses, type DiffSide } from '../../../domain/plugin/content-diff.ts';
import { layoutOf } from '../../../domain/plugin/layout.ts';
import { snapshotsOf, type SnapshotRecord } from '../../../projections/snapshots/snapshots.queries.ts';
import type { HttpApp, HttpDeps } from '../../http-deps.ts';
import { IdParams, literalUnion, problemResponses } from '../../schemas/common.schema.ts';
import { NullableString, tags } from './snapshots.shared.ts';

const ContentDiff = Type.Object({
  snapshotId: Type.Integer(),
  sha: Type.String(),
  state: Type.String(),
  baselineSnapshotId: Type.Union([Type.Integer(), Type.Null()]),
  baselineSha: NullableString,
  plugins: Type.Array(
    Type.Object({
      name: Type.String(),
      description: NullableString,
      source: Type.String(),
      status: literalUnion(['added', 'removed', 'changed', 'unchanged'] as const),
      skills: Type.Array(
        Type.Object({
          name: Type.String(),
          path: Type.String(),
          status: literalUnion(skillStatuses),
          movedFromPlugin: NullableString,
        }),
      ),
    }),
  ),
  summary: Type.Object(
    Object.fromEntries(skillStatuses.map((s) => [s, Type.Integer()])) as Record<
      (typeof skillStatuses)[number],
      ReturnType<typeof Type.Integer>
    >,
  ),
});

/** The git tree id of every directory of a commit ('' is the root tree). */
async function treeIds(repo: string, sha: string): Promise<(dir: string) => string | null> {
  const [entries, root] = await Promise.all([
    listTree(repo, sha, { trees: true }),
    gitText(['-C', repo, 'rev-parse', `${sha}^{tree}`]),
  ]);
  const trees = new Map(entries.filter((e) => e.type === 'tree').map((e) => [e.path, e.oid]));
  return (dir) => (dir === '' ? root : (trees.get(dir) ?? null));
}

/** The live approved snapshot a change is judged against: the newest approval other than this one. */
function baselineOf(snapshot: SnapshotRecord, siblings: readonly SnapshotRecord[]): SnapshotRecord | null {
  const approved = siblings.filter((s) => s.state === 'approved' && s.id !== snapshot.id && s.deletedAt === null);
  approved.sort((a, b) => (b.approvedAt ?? '').localeCompare(a.approvedAt ?? '') || b.id - a.id);
  return approved[0] ?? null;
}

export function snapshotContentDiffRoute(app: HttpApp, deps: HttpDeps): void {
  app.get(
    '/api/v1/snapshots/:id/content-diff',
    {
      schema: {
        tags,
        params: IdParams,
        response: { 200: ContentDiff, ...problemResponses(404, 409) },
        summary: 'Plugins and skills against the live approved baseline: added, removed, changed, moved, unchanged',
        description:
          'The baseline is the newest live approved snapshot of the marketplace other than this one (null ' +
          'when there is none: everything is added). A skill is changed when anything under its directory differs ' +
          '(git tree comparison). A skill moved between plugins is reported once, on its new plugin, as moved ' +
          '(changed, with movedFromPlugin still set, if its content changed too). No file text is returned.',
      },
    },
    async (request) => {
      const { snapshot, marketplace, repo } = await addressedSnapshot(deps, request.params.id);
      const baseline = baselineOf(snapshot, await snapshotsOf(deps.pool, [marketplace.id]));
      const side = async (s: SnapshotRecord): Promise<DiffSide> => {
        const [tree, treeOf] = await Promise.all([snapshotTree(deps, s), treeIds(repo, s.sha)]);
        return { layout: layoutOf(tree), treeOf };
      };
      const diff = contentDiff(await side(snapshot), baseline ? await side(baseline) : null);
      return {
        snapshotId: snapshot.id,
        sha: snapshot.sha,
        state: snapshot.state,
        baselineSnapshotId: baseline?.id ?? null,
        baselineSha: baseline?.sha ?? null,
        ...diff,
      };
    },
  );
}
