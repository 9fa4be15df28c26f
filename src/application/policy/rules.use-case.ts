import { compilePolicy } from '../../adapters/policy/cel.ts';
import { evaluateInWorker } from '../../adapters/policy/policy-engine.ts';
import { policyRulesDecider, type PolicyRuleCommand } from '../../domain/policy/policy.decider.ts';
import type { CommandMeta } from '../../domain/kernel/decider.ts';
import { streams } from '../../domain/kernel/streams.ts';
import { policyRuleByName, type PolicyRuleRecord } from '../../projections/policy/policy.queries.ts';
import { addressedSnapshot } from '../snapshots/addressed-snapshot.ts';
import { execute } from '../kernel/execute.ts';
import { readPolicyVariables } from './evaluation.ts';
import type { Actor, Ports } from '../kernel/ports.ts';
import { reject } from '../kernel/rejected.ts';
import { requireAdminRole, requireApprover } from '../access/standing.ts';

const readModels = ['policy', 'ledger'];

export type PolicyRulePorts = Pick<Ports, 'store' | 'waiter' | 'pool' | 'ids' | 'access'>;
export type RuleBody = Readonly<{ description: string; expression: string; enabled: boolean }>;

// The decider refuses with 422 on a compile error, so a rule that does not compile is never stored.
const compileError = (expression: string): string | null => {
  const compiled = compilePolicy(expression);
  return compiled.ok ? null : compiled.error;
};

export async function policyRuleOr404(deps: Pick<Ports, 'pool'>, name: string): Promise<PolicyRuleRecord> {
  const rule = await policyRuleByName(deps.pool, name);
  if (!rule) throw reject('policy-rule-not-found', `no policy rule named '${name}'`);
  return rule;
}

type SaveRule = (
  deps: PolicyRulePorts,
  actor: Actor,
  name: string,
  body: RuleBody,
  meta: CommandMeta,
) => Promise<PolicyRuleRecord>;

/** Runs one command on the rules' stream (admin) and answers the rule named `name` as it is after it. */
async function changeRule(
  deps: PolicyRulePorts,
  actor: Actor,
  name: string,
  command: (nextRuleId: () => Promise<number>) => Promise<PolicyRuleCommand>,
): Promise<PolicyRuleRecord> {
  await requireAdminRole(deps, actor);
  await execute(
    deps,
    policyRulesDecider,
    streams.policyRules(),
    await command(() => deps.ids('policy-rule')),
    readModels,
  );
  return policyRuleOr404(deps, name);
}

/** Creates a rule (admin); 409 when the name is taken, 422 when the expression does not compile to a bool. */
export const createPolicyRule: SaveRule = (deps, actor, name, body, meta) =>
  changeRule(deps, actor, name, async (nextRuleId) => ({
    type: 'create-policy-rule',
    data: { ruleId: await nextRuleId(), name, ...body, compileError: compileError(body.expression) },
    meta,
  }));

/** Replaces a rule's description, expression and enabled flag (admin); on a 422 the stored rule is unchanged. */
export const updatePolicyRule: SaveRule = (deps, actor, name, body, meta) =>
  changeRule(deps, actor, name, async () => ({
    type: 'update-policy-rule',
    data: { name, ...body, compileError: compileError(body.expression) },
    meta,
  }));

/** Deletes a rule (admin); answers the rule as it was. */
export async function deletePolicyRule(deps: PolicyRulePorts, actor: Actor, name: string, meta: CommandMeta) {
  await requireAdminRole(deps, actor);
  const rule = await policyRuleOr404(deps, name);
  const command = { type: 'delete-policy-rule', data: { name: rule.name }, meta } as const;
  await execute(deps, policyRulesDecider, streams.policyRules(), command, readModels);
  return rule;
}

export type PlaygroundPorts = Pick<Ports, 'pool' | 'gitStore' | 'vetting' | 'access' | 'marketplaces' | 'policy'>;

/**
 * The playground: evaluates an expression against a snapshot as if `actor` approved it at `at`; a broken
 * expression answers its error. Nothing is stored or recorded. 403 when the actor may not approve it.
 */
export async function tryPolicyExpression(
  deps: PlaygroundPorts,
  actor: Actor,
  snapshotId: number,
  expression: string,
  at: string,
) {
  const { snapshot, marketplace } = await addressedSnapshot(deps, snapshotId);
  await requireApprover(deps, actor, marketplace);
  const compiled = compilePolicy(expression);
  if (!compiled.ok) return { error: compiled.error };
  const variables = await readPolicyVariables(deps, snapshot, marketplace, actor, at);
  return evaluateInWorker(expression, variables, deps.policy.evaluationTimeoutMs);
}
