import { Type } from 'typebox';
import { snapshotFiles } from '../../../application/snapshots/snapshot-preview.use-case.ts';
import type { HttpApp, HttpDeps } from '../../http-deps.ts';
import { IdParams, problemResponses } from '../../schemas/common.schema.ts';
import { previewed, previewLimits, tags } from './snapshots.shared.ts';

const Files = Type.Object({
  snapshotId: Type.Integer(),
  sha: Type.String(),
  truncated: Type.Boolean(),
  entries: Type.Array(Type.Object({ path: Type.String(), size: Type.Integer() })),
});

export function snapshotFilesRoute(app: HttpApp, deps: HttpDeps): void {
  app.get(
    '/api/v1/snapshots/:id/files',
    {
      schema: {
        tags,
        params: IdParams,
        response: { 200: Files, ...problemResponses(403, 404, 409) },
        summary: 'Preview: the files of the pinned tree with their sizes (approver of the marketplace, or admin)',
        description:
          `At most ${previewLimits.files} entries, in path order; ` + '\`truncated\` is true when the listing was cut.',
      },
    },
    async (request) => snapshotFiles(await previewed(deps, request, request.params.id)),
  );
}
