import { accept, refuse, type Command, type Decider } from '../kernel/decider.ts';
import type { PolicyRuleCreated, PolicyRuleDeleted, PolicyRuleUpdated } from './policy.events.ts';

// Every policy rule lives in one stream (streams.policyRules()), so a name is taken at most once.

/** Rule names: the pattern of sink and other names, at most 63 characters. */
export const isRuleName = (name: string): boolean => /^[a-z0-9][a-z0-9_-]{0,62}$/.test(name);

type RuleBody = {
  description: string;
  expression: string;
  enabled: boolean;
  /** From the CEL adapter, null when it compiled to a boolean. */ compileError: string | null;
};
export type CreateRule = Command<'create-policy-rule', RuleBody & { ruleId: number; name: string }>;
export type UpdateRule = Command<'update-policy-rule', RuleBody & { name: string }>;
export type DeleteRule = Command<'delete-policy-rule', { name: string }>;
export type PolicyRuleCommand = CreateRule | UpdateRule | DeleteRule;
export type PolicyRuleEvent = PolicyRuleCreated | PolicyRuleUpdated | PolicyRuleDeleted;

export type PolicyRulesState = Readonly<{ rules: ReadonlyMap<string, number> }>;

const notCompiling = (name: string, error: string) =>
  refuse<PolicyRuleEvent>({
    code: 'invalid-expression',
    detail: `the expression of rule '${name}' does not compile to a boolean: ${error}`,
  });

export const policyRulesDecider: Decider<PolicyRulesState, PolicyRuleCommand, PolicyRuleEvent> = {
  initialState: () => ({ rules: new Map() }),
  evolve(state, event) {
    const rules = new Map(state.rules);
    if (event.type === 'policy-rule-created') rules.set(event.data.name, event.data.ruleId);
    if (event.type === 'policy-rule-deleted') rules.delete(event.data.name);
    return { rules };
  },
  decide(command, state) {
    const { meta } = command;
    switch (command.type) {
      case 'create-policy-rule': {
        const { data } = command;
        if (!isRuleName(data.name)) {
          return refuse({
            code: 'invalid-name',
            detail: `'${data.name}' is not a valid rule name: it must match ^[a-z0-9][a-z0-9_-]{0,62}$`,
          });
        }
        if (state.rules.has(data.name))
          return refuse({ code: 'policy-rule-exists', detail: `a policy rule named '${data.name}' exists` });
        if (data.compileError !== null) return notCompiling(data.name, data.compileError);
        return accept({
          type: 'policy-rule-created',
          data: {
            ruleId: data.ruleId,
            name: data.name,
            description: data.description,
            expression: data.expression,
            enabled: data.enabled,
            createdBy: meta.principal,
            createdAt: meta.at,
          },
        });
      }
      case 'update-policy-rule': {
        const { data } = command;
        const ruleId = state.rules.get(data.name);
        if (ruleId === undefined)
          return refuse({ code: 'policy-rule-not-found', detail: `no policy rule named '${data.name}'` });
        if (data.compileError !== null) return notCompiling(data.name, data.compileError);
        return accept({
          type: 'policy-rule-updated',
          data: {
            ruleId,
            name: data.name,
            description: data.description,
            expression: data.expression,
            enabled: data.enabled,
            updatedBy: meta.principal,
            updatedAt: meta.at,
          },
        });
      }
      case 'delete-policy-rule': {
        const ruleId = state.rules.get(command.data.name);
        if (ruleId === undefined)
          return refuse({ code: 'policy-rule-not-found', detail: `no policy rule named '${command.data.name}'` });
        return accept({ type: 'policy-rule-deleted', data: { ruleId, name: command.data.name } });
      }
    }
  },
};
