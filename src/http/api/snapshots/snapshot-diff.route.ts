import { Type } from 'typebox';
import { snapshotDiff } from '../../../application/snapshots/snapshot-preview.use-case.ts';
import type { HttpApp, HttpDeps } from '../../http-deps.ts';
import { IdParams, problemResponses } from '../../schemas/common.schema.ts';
import { NullableString, previewed, previewLimits, tags } from './snapshots.shared.ts';

const Diff = Type.Object({
  snapshotId: Type.Integer(),
  sha: Type.String(),
  baselineSha: NullableString,
  truncated: Type.Boolean(),
  entries: Type.Array(
    Type.Object({
      path: Type.String(),
      type: Type.Union([Type.Literal('added'), Type.Literal('modified'), Type.Literal('removed')]),
      binary: Type.Boolean(),
      truncated: Type.Boolean(),
      diff: Type.String(),
    }),
  ),
});

export function snapshotDiffRoute(app: HttpApp, deps: HttpDeps): void {
  app.get(
    '/api/v1/snapshots/:id/diff',
    {
      schema: {
        tags,
        params: IdParams,
        response: { 200: Diff, ...problemResponses(403, 404, 409) },
        summary:
          'Preview: what approving would change, against the commit served now ' +
          '(approver of the marketplace, or admin)',
        description:
          `At most ${previewLimits.diffEntries} entries and ${previewLimits.diffBytes / 1024} KiB of unified ` +
          'diff each (`truncated`). With nothing served, `baselineSha` is null and every file is added.',
      },
    },
    async (request) => snapshotDiff(deps, await previewed(deps, request, request.params.id)),
  );
}
