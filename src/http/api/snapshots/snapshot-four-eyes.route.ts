import { Type } from 'typebox';
import { addressedSnapshot } from '../../../application/snapshots/addressed-snapshot.ts';
import type { HttpApp, HttpDeps } from '../../http-deps.ts';
import { IdParams, problemResponses } from '../../schemas/common.schema.ts';
import { NullableString, tags } from './snapshots.shared.ts';

const FourEyes = Type.Object({
  snapshotId: Type.Integer(),
  state: Type.String(),
  ingestedBy: NullableString,
  approvedBy: NullableString,
  satisfied: Type.Union([Type.Boolean(), Type.Null()]),
});

export function snapshotFourEyesRoute(app: HttpApp, deps: HttpDeps): void {
  app.get(
    '/api/v1/snapshots/:id/four-eyes',
    {
      schema: {
        tags,
        params: IdParams,
        response: { 200: FourEyes, ...problemResponses(404) },
        summary: 'Whether the person who approved is not the one who brought the commit in',
        description:
          '`satisfied` is null while the snapshot is undecided, true when it was approved by someone other ' +
          'than the ingesting principal.',
      },
    },
    async (request) => {
      const { snapshot } = await addressedSnapshot(deps, request.params.id, { readsContent: false });
      const approvedBy = snapshot.approvedAt !== null ? snapshot.decidedBy : null;
      return {
        snapshotId: snapshot.id,
        state: snapshot.state,
        ingestedBy: snapshot.ingestedBy,
        approvedBy,
        satisfied: approvedBy === null ? null : approvedBy !== snapshot.ingestedBy,
      };
    },
  );
}
