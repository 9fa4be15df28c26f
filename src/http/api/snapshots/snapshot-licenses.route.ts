import { Type } from 'typebox';
import { snapshotLicenses } from '../../../application/snapshots/snapshot-preview.use-case.ts';
import { addressedSnapshot } from '../../../application/snapshots/addressed-snapshot.ts';
import { licenseEvaluations } from '../../../domain/vetting/license.ts';
import type { HttpApp, HttpDeps } from '../../http-deps.ts';
import { IdParams, literalUnion, problemResponses } from '../../schemas/common.schema.ts';
import { NullableString, tags } from './snapshots.shared.ts';

const Licenses = Type.Object({
  snapshotId: Type.Integer(),
  sha: Type.String(),
  licenses: Type.Array(
    Type.Object({
      spdxId: NullableString,
      source: literalUnion(['file', 'manifest'] as const),
      location: Type.String(),
      declared: NullableString,
      evaluation: literalUnion(licenseEvaluations),
    }),
  ),
  allowed: Type.Array(Type.String()),
  banned: Type.Array(Type.String()),
});

export function snapshotLicensesRoute(app: HttpApp, deps: HttpDeps): void {
  app.get(
    '/api/v1/snapshots/:id/licenses',
    {
      schema: {
        tags,
        params: IdParams,
        response: { 200: Licenses, ...problemResponses(404, 409) },
        summary:
          'License report: SPDX identification from LICENSE files and manifests, evaluated under the allow ' +
          'and ban lists in force',
        description:
          '`spdxId` null is the unknown-license state; an empty `licenses` means no license information at ' +
          'all. Recomputed on every read under gateway.vetting.license.allow and .ban.',
      },
    },
    async (request) => snapshotLicenses(deps, await addressedSnapshot(deps, request.params.id)),
  );
}
