import { Type } from 'typebox';
import { snapshotFetchers } from '../../../application/snapshots/snapshot-reads.use-case.ts';
import type { HttpApp, HttpDeps } from '../../http-deps.ts';
import { IdParams, problemResponses } from '../../schemas/common.schema.ts';
import { AffectedView } from '../../schemas/vetting.schema.ts';
import { previewed, tags } from './snapshots.shared.ts';

const Fetchers = Type.Object({ snapshotId: Type.Integer(), sha: Type.String(), fetchers: Type.Array(AffectedView) });

export function snapshotFetchersRoute(app: HttpApp, deps: HttpDeps): void {
  app.get(
    '/api/v1/snapshots/:id/fetchers',
    {
      schema: {
        tags,
        params: IdParams,
        response: { 200: Fetchers, ...problemResponses(403, 404) },
        summary:
          'Who received this snapshot through the facade, with fetch count and last fetch ' +
          '(approver of the marketplace, or admin)',
      },
    },
    async (request) => {
      const { snapshot, marketplace } = await previewed(deps, request, request.params.id, { readsContent: false });
      const fetchers = await snapshotFetchers(deps, marketplace.id, snapshot.sha);
      return { snapshotId: snapshot.id, sha: snapshot.sha, fetchers };
    },
  );
}
