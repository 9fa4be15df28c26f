import { Type } from 'typebox';
import { snapshotTreeEntries } from '../../../application/snapshots/snapshot-preview.use-case.ts';
import { addressedSnapshot } from '../../../application/snapshots/addressed-snapshot.ts';
import type { HttpApp, HttpDeps } from '../../http-deps.ts';
import { IdParams, problemResponses } from '../../schemas/common.schema.ts';
import { previewLimits, tags } from './snapshots.shared.ts';

const Tree = Type.Object({
  snapshotId: Type.Integer(),
  sha: Type.String(),
  truncated: Type.Boolean(),
  entries: Type.Array(
    Type.Object({
      path: Type.String(),
      type: Type.String(),
      mode: Type.String(),
      oid: Type.String(),
      size: Type.Union([Type.Integer(), Type.Null()]),
    }),
  ),
});

export function snapshotTreeRoute(app: HttpApp, deps: HttpDeps): void {
  app.get(
    '/api/v1/snapshots/:id/tree',
    {
      schema: {
        tags,
        params: IdParams,
        response: { 200: Tree, ...problemResponses(404, 409) },
        summary: 'The pinned git tree: every directory and file with mode, object id and size',
        description: `At most ${previewLimits.treeEntries} entries in path order (\`truncated\`).`,
      },
    },
    async (request) => snapshotTreeEntries(await addressedSnapshot(deps, request.params.id)),
  );
}
