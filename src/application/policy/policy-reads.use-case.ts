// What the policy surfaces read: the rules, and the reference of the variables a rule may use.
import { policyRules, type PolicyRuleRecord } from '../../projections/policy/policy.queries.ts';
import type { Ports } from '../kernel/ports.ts';

export type { PolicyRuleRecord } from '../../projections/policy/policy.queries.ts';
/** The variables a CEL rule may read, as documentation (Markdown). */
export { policyVariablesDoc } from '../../adapters/policy/cel.ts';

/** Every policy rule, enabled or not, in name order. */
export const listPolicyRules = (deps: Pick<Ports, 'pool'>): Promise<PolicyRuleRecord[]> => policyRules(deps.pool);
