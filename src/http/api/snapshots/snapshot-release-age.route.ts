import { Type } from 'typebox';
import { addressedSnapshot } from '../../../application/snapshots/addressed-snapshot.ts';
import type { HttpApp, HttpDeps } from '../../http-deps.ts';
import { IdParams, problemResponses, Timestamp } from '../../schemas/common.schema.ts';
import { tags } from './snapshots.shared.ts';

const ReleaseAge = Type.Object({
  snapshotId: Type.Integer(),
  sha: Type.String(),
  capturedAt: Timestamp,
  ageMs: Type.Integer(),
  minimumReleaseAgeMs: Type.Integer(),
  approvableAt: Timestamp,
  elapsed: Type.Boolean(),
});

export function snapshotReleaseAgeRoute(app: HttpApp, deps: HttpDeps): void {
  app.get(
    '/api/v1/snapshots/:id/release-age',
    {
      schema: {
        tags,
        params: IdParams,
        response: { 200: ReleaseAge, ...problemResponses(404) },
        summary: 'How long since the commit was captured, against gateway.vetting.minimum-release-age',
      },
    },
    async (request) => {
      const { snapshot } = await addressedSnapshot(deps, request.params.id, { readsContent: false });
      const now = deps.clock.now().getTime();
      const captured = Date.parse(snapshot.createdAt);
      const minimum = deps.marketplaces.minimumReleaseAgeMs;
      return {
        snapshotId: snapshot.id,
        sha: snapshot.sha,
        capturedAt: snapshot.createdAt,
        ageMs: Math.max(0, now - captured),
        minimumReleaseAgeMs: minimum,
        approvableAt: new Date(captured + minimum).toISOString(),
        elapsed: now - captured >= minimum,
      };
    },
  );
}
