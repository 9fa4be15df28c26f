import { Type } from 'typebox';
import { revetMarketplace, revetSnapshot } from '../../../application/vetting/revet.use-case.ts';
import type { HttpApp, HttpDeps } from '../../http-deps.ts';
import { actAs } from '../../auth/acting.ts';
import { IdParams, problemResponses, NameParams } from '../../schemas/common.schema.ts';
import { RevetView } from '../../schemas/vetting.schema.ts';
import { tags } from './vetting.shared.ts';

export function revetRoutes(app: HttpApp, deps: HttpDeps): void {
  app.post(
    '/api/v1/snapshots/:id/revet',
    {
      schema: {
        tags,
        summary: 'Re-run the vetting chain on an approved snapshot (trigger revet-manual)',
        params: IdParams,
        description:
          'Classification CLEAR, VIOLATION or INCONCLUSIVE (the chain blocks only because a connector ' +
          'errored, timed out or has not answered). In ENFORCE mode (gateway.vetting.revet.mode) a VIOLATION revokes ' +
          'the snapshot; `affected` lists who fetched it. A snapshot that is not approved answers 409 ' +
          '`snapshot-not-approved` and nothing runs: vet a held one again with ' +
          '`POST /api/v1/snapshots/{id}/vetting/rerun`.',
        response: { 200: RevetView, ...problemResponses(403, 404, 409) },
      },
    },
    async (request) => actAs(deps, request, (caller, meta) => revetSnapshot(deps, request.params.id, caller, meta)),
  );

  app.post(
    '/api/v1/marketplaces/:name/revet',
    {
      schema: {
        tags,
        summary: 'Re-vet every approved snapshot of the marketplace (trigger revet-manual)',
        params: NameParams,
        response: {
          200: Type.Object({ marketplace: Type.String(), results: Type.Array(RevetView) }),
          ...problemResponses(403, 404),
        },
      },
    },
    async (request) =>
      actAs(deps, request, (caller, meta) => revetMarketplace(deps, request.params.name, caller, meta)),
  );
}
