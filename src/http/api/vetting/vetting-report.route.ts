import { vettingReport } from '../../../application/vetting/report.use-case.ts';
import type { HttpApp, HttpDeps } from '../../http-deps.ts';
import { IdParams, problemResponses } from '../../schemas/common.schema.ts';
import { VettingReport } from '../../schemas/vetting.schema.ts';
import { reportView, tags } from './vetting.shared.ts';

export function vettingReportRoute(app: HttpApp, deps: HttpDeps): void {
  app.get(
    '/api/v1/snapshots/:id/vetting',
    {
      schema: {
        tags,
        summary: 'Vetting report: the latest run and the outcome in force now',
        params: IdParams,
        description:
          'The effective `outcome` is recomputed on every request from the latest run and the waivers ' +
          'active at that instant; `recordedOutcome` is what the connectors concluded and is never rewritten. ' +
          'A snapshot never vetted reports BLOCKED with run null.',
        response: { 200: VettingReport, ...problemResponses(404) },
      },
    },
    async (request) => reportView(await vettingReport(deps, request.params.id, deps.clock.instant())),
  );
}
