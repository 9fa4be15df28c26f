import { rerunVetting } from '../../../application/vetting/rerun.use-case.ts';
import type { HttpApp, HttpDeps } from '../../http-deps.ts';
import { actAs } from '../../auth/acting.ts';
import { IdParams, problemResponses } from '../../schemas/common.schema.ts';
import { VettingReport } from '../../schemas/vetting.schema.ts';
import { reportView, tags } from './vetting.shared.ts';

export function rerunVettingRoute(app: HttpApp, deps: HttpDeps): void {
  app.post(
    '/api/v1/snapshots/:id/vetting/rerun',
    {
      schema: {
        tags,
        params: IdParams,
        summary:
          'Vet a snapshot that is not approved again, e.g. once an external scanner that answered PENDING is done',
        description:
          'Sent with no body. Approver of the marketplace, or admin. Runs the chain in force as the ingestion ' +
          'did (trigger `ingestion`: every verdict recorded, no re-vet classification, nothing revoked) and answers ' +
          'the vetting report after the run. An approved snapshot answers 409 `conflict`: re-vet it with ' +
          '`POST /api/v1/snapshots/{id}/revet`.',
        response: { 200: VettingReport, ...problemResponses(403, 404, 409) },
      },
    },
    async (request) =>
      reportView(await actAs(deps, request, (caller, meta) => rerunVetting(deps, request.params.id, caller, meta))),
  );
}
