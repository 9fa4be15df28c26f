import { Type } from 'typebox';
import { nameCollisions } from '../../../application/snapshots/snapshot-reads.use-case.ts';
import type { HttpApp, HttpDeps } from '../../http-deps.ts';
import { IdParams, problemResponses } from '../../schemas/common.schema.ts';
import { tags } from './snapshots.shared.ts';

const Collisions = Type.Object({
  snapshotId: Type.Integer(),
  marketplace: Type.String(),
  collisions: Type.Array(Type.Object({ name: Type.String(), marketplaces: Type.Array(Type.String()) })),
});

export function snapshotNameCollisionsRoute(app: HttpApp, deps: HttpDeps): void {
  app.get(
    '/api/v1/snapshots/:id/name-collisions',
    {
      schema: {
        tags,
        params: IdParams,
        response: { 200: Collisions, ...problemResponses(404, 409) },
        summary: "This snapshot's plugin names that another served marketplace also claims, or that it claims twice",
        description:
          'Such a name would be published for no claimant in the virtual catalog. ' +
          '`marketplaces` is in name order.',
      },
    },
    async (request) => nameCollisions(deps, request.params.id),
  );
}
