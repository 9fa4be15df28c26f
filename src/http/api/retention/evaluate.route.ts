import { Type } from 'typebox';
import { evaluateRetention } from '../../../application/retention/retention.duty.ts';
import type { HttpApp, HttpDeps } from '../../http-deps.ts';
import { actAs } from '../../auth/acting.ts';
import { problemResponses } from '../../schemas/common.schema.ts';
import { RetentionQuery, tags } from './candidates.route.ts';

const PassView = Type.Object({
  selected: Type.Integer({ minimum: 0, description: 'candidates the criteria selected after the min-idle veto' }),
  acted: Type.Integer({ minimum: 0, description: 'of those, soft-deleted by this pass' }),
});

export function retentionEvaluateRoute(app: HttpApp, deps: HttpDeps): void {
  app.post(
    '/api/v1/retention/evaluate',
    {
      schema: {
        tags,
        summary: 'One retention evaluation pass now, whether or not the scheduler is enabled (admin only)',
        description:
          'Soft-deletes each candidate (actor retention-policy, reason its criterion) and records one ' +
          'retention-evaluated. Optional ?marketplace= (404 when no marketplace was ever registered under the name).',
        querystring: RetentionQuery,
        response: { 200: PassView, ...problemResponses(403, 404) },
      },
    },
    async (request) => {
      const marketplace = request.query.marketplace ?? null;
      return actAs(deps, request, (actor, meta) => evaluateRetention(deps, { actor, meta }, marketplace));
    },
  );
}
