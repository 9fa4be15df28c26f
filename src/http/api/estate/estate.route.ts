import { Type } from 'typebox';
import { estateReport, reconcileEstateNow } from '../../../application/estate/reconcile.duty.ts';
import { estateActions, estateEntryKinds, type EstateReport } from '../../../domain/estate/estate.ts';
import { callerOf } from '../../auth/authorize.ts';
import type { HttpApp, HttpDeps } from '../../http-deps.ts';
import { actAs } from '../../auth/acting.ts';
import { literalUnion, problemResponses, Timestamp } from '../../schemas/common.schema.ts';

const tags = ['estate'];

// The estate reconciliation report (docs/estate.md).
const EstateReportView = Type.Object({
  ranAt: Timestamp,
  trigger: literalUnion(['startup', 'api'] as const),
  entries: Type.Array(
    Type.Object({
      kind: literalUnion(estateEntryKinds),
      name: Type.String({
        description: 'marketplace or sink name, webhook url, grant as "<principal> as <role>[ of <marketplace>]"',
      }),
      action: literalUnion(estateActions),
      detail: Type.Union([Type.String(), Type.Null()], {
        description: 'why, for a failed or updated line; never a secret',
      }),
    }),
  ),
  created: Type.Integer({ minimum: 0 }),
  updated: Type.Integer({ minimum: 0 }),
  unchanged: Type.Integer({ minimum: 0 }),
  failed: Type.Integer({ minimum: 0 }),
  configured: Type.Boolean({
    description:
      'false when gateway.estate.file is not set: nothing was read or applied, and the report is empty (decision 358)',
  }),
});

const reportView = (report: EstateReport, configured = true) => ({
  ...report,
  entries: [...report.entries],
  configured,
});

export function estateRoutes(app: HttpApp, deps: HttpDeps): void {
  app.get(
    '/api/v1/estate',
    {
      schema: {
        tags,
        summary: 'The last estate reconciliation report (auditor or admin)',
        description:
          '404 until a reconciliation has run (at startup with gateway.estate.file set, or on demand); the 404 ' +
          'problem carries configured, whether gateway.estate.file is set (decision 421).',
        response: { 200: EstateReportView, ...problemResponses(403, 404) },
      },
    },
    async (request) => reportView(await estateReport(deps, callerOf(request))),
  );
  app.post(
    '/api/v1/estate/reconcile',
    {
      schema: {
        tags,
        summary: 'Reconcile the declared estate now (admin)',
        description:
          'No body. Re-reads gateway.estate.file and applies it additively and idempotently as config-reconciler: ' +
          'created, updated, unchanged or failed per declared item (a failed item is a report line, not an error ' +
          'status). It never deletes; there is no prune mode. A file that fails to load applies nothing (422 ' +
          'estate-invalid, every <file>:<line>: <message> in errors). Without gateway.estate.file: 200 with an empty ' +
          'report whose configured is false; nothing is recorded.',
        response: { 200: EstateReportView, ...problemResponses(403, 422) },
      },
    },
    async (request) => {
      const { configured, ...report } = await actAs(deps, request, (caller, meta) =>
        reconcileEstateNow(deps, caller, meta),
      );
      return reportView(report, configured);
    },
  );
}
