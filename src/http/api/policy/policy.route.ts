import { Type } from 'typebox';
import {
  createPolicyRule,
  deletePolicyRule,
  tryPolicyExpression,
  updatePolicyRule,
} from '../../../application/policy/rules.use-case.ts';
import {
  listPolicyRules,
  policyVariablesDoc,
  type PolicyRuleRecord,
} from '../../../application/policy/policy-reads.use-case.ts';
import { callerOf, requireAuditorOrAdmin } from '../../auth/authorize.ts';
import type { HttpApp, HttpDeps } from '../../http-deps.ts';
import { actAs } from '../../auth/acting.ts';
import { dryRunRoute } from './dry-run.route.ts';
import { tags } from './policy.shared.ts';
import { NullableTimestamp, problemResponses, Timestamp, NameParams } from '../../schemas/common.schema.ts';

const Expression = Type.String({
  maxLength: 4096,
  description: 'CEL over the policy variables; must be a bool. A match refuses approval.',
});
const RuleView = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  description: Type.String(),
  expression: Type.String(),
  enabled: Type.Boolean(),
  createdBy: Type.String(),
  createdAt: Timestamp,
  updatedBy: Type.Union([Type.String(), Type.Null()]),
  updatedAt: NullableTimestamp,
});
const ruleView = (r: PolicyRuleRecord) => ({ ...r });

const description = `Policy rules are CEL expressions evaluated at approve, after the vetting gate and before any state change: every enabled rule that matches, or fails to evaluate, refuses the approval (409 \`policy-denied\` with \`denials[]\`), with one policy-denied ledger entry per deciding rule. Disabling a rule is the off-switch.\n\n${policyVariablesDoc}`;

/** Every policy route: the rules (create, list, replace, delete), the playground and the dry run. */
export function policyRoutes(app: HttpApp, deps: HttpDeps): void {
  createRuleRoute(app, deps);
  listRulesRoute(app, deps);
  replaceRuleRoute(app, deps);
  deleteRuleRoute(app, deps);
  playgroundRoute(app, deps);
  dryRunRoute(app, deps);
}

function createRuleRoute(app: HttpApp, deps: HttpDeps): void {
  app.post(
    '/api/v1/policy/rules',
    {
      schema: {
        tags,
        summary: 'Create a policy rule (admin)',
        description,
        body: Type.Object(
          {
            name: Type.String({ maxLength: 200 }),
            description: Type.String({ maxLength: 2000 }),
            expression: Expression,
            enabled: Type.Optional(Type.Boolean()),
          },
          { additionalProperties: false },
        ),
        response: { 200: RuleView, ...problemResponses(403, 409, 422) },
      },
    },
    async (request) => {
      const { name, description: text, expression, enabled = true } = request.body;
      const body = { description: text, expression, enabled };
      return ruleView(await actAs(deps, request, (caller, meta) => createPolicyRule(deps, caller, name, body, meta)));
    },
  );
}

function listRulesRoute(app: HttpApp, deps: HttpDeps): void {
  app.get(
    '/api/v1/policy/rules',
    {
      schema: {
        tags,
        summary: 'Every policy rule, enabled or not (auditor or admin)',
        description,
        response: { 200: Type.Array(RuleView), ...problemResponses(403) },
      },
    },
    async (request) => {
      await requireAuditorOrAdmin(deps, request);
      return (await listPolicyRules(deps)).map(ruleView);
    },
  );
}

function replaceRuleRoute(app: HttpApp, deps: HttpDeps): void {
  app.put(
    '/api/v1/policy/rules/:name',
    {
      schema: {
        tags,
        summary: 'Replace a rule’s description, expression and enabled flag (admin); the expression is compiled first',
        params: NameParams,
        body: Type.Object(
          { description: Type.String({ maxLength: 2000 }), expression: Expression, enabled: Type.Boolean() },
          { additionalProperties: false },
        ),
        response: { 200: RuleView, ...problemResponses(403, 404, 422) },
      },
    },
    async (request) =>
      ruleView(
        await actAs(deps, request, (caller, meta) =>
          updatePolicyRule(deps, caller, request.params.name, request.body, meta),
        ),
      ),
  );
}

function deleteRuleRoute(app: HttpApp, deps: HttpDeps): void {
  app.delete(
    '/api/v1/policy/rules/:name',
    {
      schema: {
        tags,
        summary: 'Delete a rule (admin); answers the deleted rule',
        params: NameParams,
        response: { 200: RuleView, ...problemResponses(403, 404) },
      },
    },
    async (request) =>
      ruleView(await actAs(deps, request, (caller, meta) => deletePolicyRule(deps, caller, request.params.name, meta))),
  );
}

function playgroundRoute(app: HttpApp, deps: HttpDeps): void {
  app.post(
    '/api/v1/policy/playground',
    {
      schema: {
        tags,
        summary: 'Evaluate an expression against a snapshot as if approving it now; nothing is stored or recorded',
        description,
        body: Type.Object(
          {
            snapshotId: Type.Integer({ minimum: 1, maximum: 9_007_199_254_740_991 }),
            expression: Type.String({ maxLength: 65_536 }),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({ matched: Type.Optional(Type.Boolean()), error: Type.Optional(Type.String()) }),
          ...problemResponses(403, 404),
        },
      },
    },
    async (request) => {
      const { snapshotId, expression } = request.body;
      return tryPolicyExpression(deps, callerOf(request), snapshotId, expression, deps.clock.instant());
    },
  );
}
