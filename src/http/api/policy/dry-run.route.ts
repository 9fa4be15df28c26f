import { Type } from 'typebox';
import {
  dryRunDefaultSnapshots,
  dryRunMaxSnapshots,
  policyDryRun,
} from '../../../application/policy/dry-run.use-case.ts';
import { callerOf } from '../../auth/authorize.ts';
import type { HttpApp, HttpDeps } from '../../http-deps.ts';
import { literalUnion, problemResponses, Timestamp } from '../../schemas/common.schema.ts';
import { tags } from './policy.shared.ts';

const Verdict = Type.Object({
  id: Type.Integer(),
  marketplace: Type.String(),
  sha: Type.String(),
  state: literalUnion(['approved', 'held'] as const),
  decision: literalUnion(['deny', 'allow', 'not-evaluated'] as const),
  outcome: Type.Union([literalUnion(['matched', 'error'] as const), Type.Null()]),
  error: Type.Union([Type.String(), Type.Null()]),
});

const description = `Evaluates a CEL expression, as a rule would be at approve, against every served (approved) and every held snapshot of the live marketplaces, with the caller as the approver and now as the instant; nothing is stored or recorded (no event, no ledger entry). A match or an evaluation error counts as a denial, as enforcement does. Served snapshots come first, then held ones, newest first; at most \`limit\` (default ${dryRunDefaultSnapshots}, at most ${dryRunMaxSnapshots}) are evaluated and \`truncated\` says when some were left out. Each evaluation runs in a policy worker and is stopped after gateway.policy.evaluation-timeout (an evaluation error, so a denial); the whole dry run evaluates for at most gateway.policy.dry-run-timeout, and the snapshots it has not reached by then are listed with decision \`not-evaluated\` and counted in \`notEvaluated\`. Only the policy is answered: the vetting gate and the minimum release age are not. Auditor or admin; sessions only (no machine scope names it).`;

/** POST /api/v1/policy/dry-run: which snapshots a rule would deny before it is enabled. */
export function dryRunRoute(app: HttpApp, deps: HttpDeps): void {
  app.post(
    '/api/v1/policy/dry-run',
    {
      schema: {
        tags,
        summary: 'Which served and held snapshots an expression would deny, and why; nothing is recorded',
        description,
        body: Type.Object(
          {
            expression: Type.String({ maxLength: 4096 }),
            limit: Type.Optional(Type.Integer({ minimum: 1, maximum: dryRunMaxSnapshots })),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({
            expression: Type.String(),
            at: Timestamp,
            total: Type.Integer({ description: 'served and held snapshots of the live marketplaces' }),
            evaluated: Type.Integer(),
            truncated: Type.Boolean(),
            notEvaluated: Type.Integer({
              description: 'chosen snapshots the time limit (gateway.policy.dry-run-timeout) ran out before',
            }),
            denied: Type.Integer(),
            allowed: Type.Integer(),
            snapshots: Type.Array(Verdict),
          }),
          ...problemResponses(403, 422),
        },
      },
    },
    async (request) => {
      const { expression, limit } = request.body;
      return policyDryRun(deps, callerOf(request), expression, deps.clock.instant(), limit);
    },
  );
}
