import { Type } from 'typebox';
import { snapshotFile } from '../../../application/snapshots/snapshot-preview.use-case.ts';
import type { HttpApp, HttpDeps } from '../../http-deps.ts';
import { IdParams, problemResponses } from '../../schemas/common.schema.ts';
import { previewed, previewLimits, tags } from './snapshots.shared.ts';

const File = Type.Object({
  snapshotId: Type.Integer(),
  path: Type.String(),
  size: Type.Integer(),
  binary: Type.Boolean(),
  truncated: Type.Boolean(),
  text: Type.Optional(Type.String()),
});

export function snapshotFileRoute(app: HttpApp, deps: HttpDeps): void {
  app.get(
    '/api/v1/snapshots/:id/file',
    {
      schema: {
        tags,
        params: IdParams,
        querystring: Type.Object({ path: Type.String({ minLength: 1, maxLength: 4096 }) }),
        summary: 'Preview: one file of the pinned tree as text (approver of the marketplace, or admin)',
        description:
          `Text is cut at ${previewLimits.fileBytes / 1024} KiB (\`truncated\` true, \`size\` still the full ` +
          'size); a binary file has no `text`. The path is matched against the entries of the tree only: anything else ' +
          'is 404.',
        response: { 200: File, ...problemResponses(403, 404, 409) },
      },
    },
    async (request) => snapshotFile(await previewed(deps, request, request.params.id), request.query.path),
  );
}
