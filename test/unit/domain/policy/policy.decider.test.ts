import t from 'tap';
import {
  isRuleName,
  policyRulesDecider,
  type CreateRule,
  type DeleteRule,
  type PolicyRuleEvent,
  type UpdateRule,
} from '../../../../src/domain/policy/policy.decider.ts';
import { at, command, policyRuleCreated, policyRuleDeleted } from '../../../support/builders.ts';
import { spec } from '../../../support/decider-spec.ts';

const body = { description: 'no plugin hooks', expression: 'size(hooks) > 0', enabled: true, compileError: null };
const create = (name = 'no-hooks', data: Partial<CreateRule['data']> = {}) =>
  command<CreateRule>('create-policy-rule', { ...body, ruleId: 4, name, ...data }, { principal: 'root' });
const update = (name = 'no-hooks', data: Partial<UpdateRule['data']> = {}) =>
  command<UpdateRule>(
    'update-policy-rule',
    { ...body, name, description: 'none at all', enabled: false, ...data },
    { principal: 'erin' },
  );
const remove = (name = 'no-hooks') => command<DeleteRule>('delete-policy-rule', { name }, { principal: 'root' });
const given = (events: readonly PolicyRuleEvent[] = []) => spec(policyRulesDecider).given(events);

t.test('spec, Policy rule: a created rule records who created it and when', async (t) => {
  t.strictSame(given().when(create()), {
    outcome: 'accepted',
    events: [
      {
        type: 'policy-rule-created',
        data: {
          ruleId: 4,
          name: 'no-hooks',
          description: 'no plugin hooks',
          expression: 'size(hooks) > 0',
          enabled: true,
          createdBy: 'root',
          createdAt: at,
        },
      },
    ],
  });
  t.match(
    given().when(create('off', { enabled: false })),
    { outcome: 'accepted', events: [{ data: { name: 'off', enabled: false } }] },
    'a disabled rule is stored',
  );
});

t.test('spec, Policy: POST "422 malformed name" (invalid-name)', async (t) => {
  for (const name of ['', 'No-Hooks', '-hooks', '_hooks', 'no hooks', 'no.hooks', 'a'.repeat(64), 'ünïcode']) {
    t.match(
      given().when(create(name)),
      {
        outcome: 'refused',
        rejection: { code: 'invalid-name', detail: /\^\[a-z0-9\]\[a-z0-9_-\]\{0,62\}\$/ },
        events: [],
      },
      JSON.stringify(name),
    );
  }
  t.ok(isRuleName('a'.repeat(63)), '63 characters is the limit');
  t.ok(isRuleName('0_rule-1'));
  t.match(
    given([policyRuleCreated({ name: 'No-Hooks' })]).when(create('No-Hooks')),
    { rejection: { code: 'invalid-name' } },
    'the name check comes first',
  );
});

t.test('spec, Policy: POST "409 name exists" (policy-rule-exists); a deleted name is free again', async (t) => {
  t.match(given([policyRuleCreated()]).when(create('no-hooks', { ruleId: 5 })), {
    outcome: 'refused',
    rejection: { code: 'policy-rule-exists', detail: /'no-hooks'/ },
    events: [],
  });
  t.match(
    given([policyRuleCreated()]).when(create('no-hooks', { ruleId: 5, compileError: 'boom' })),
    { rejection: { code: 'policy-rule-exists' } },
    'a taken name is reported before the expression',
  );
  t.match(given([policyRuleCreated(), policyRuleDeleted()]).when(create('no-hooks', { ruleId: 5 })), {
    outcome: 'accepted',
    events: [{ data: { ruleId: 5 } }],
  });
  t.match(given([policyRuleCreated()]).when(create('other', { ruleId: 5 })), { outcome: 'accepted' }, 'another name');
});

t.test(
  'spec, Policy rule: "expression (CEL, must compile to a boolean …)": 422 invalid-expression on create and update',
  async (t) => {
    const error = 'expression type is int, not bool';
    t.match(given().when(create('no-hooks', { compileError: error })), {
      outcome: 'refused',
      rejection: {
        code: 'invalid-expression',
        detail: `the expression of rule 'no-hooks' does not compile to a boolean: ${error}`,
      },
      events: [],
    });
    t.match(
      given([policyRuleCreated()]).when(update('no-hooks', { compileError: error })),
      { outcome: 'refused', rejection: { code: 'invalid-expression' }, events: [] },
      'spec: "on 422 stored rule unchanged"',
    );
  },
);

t.test(
  'spec, Policy: PUT replaces description, expression and enabled, recording who and when; 404 for an unknown rule',
  async (t) => {
    t.strictSame(given([policyRuleCreated()]).when(update('no-hooks', { expression: 'false' })), {
      outcome: 'accepted',
      events: [
        {
          type: 'policy-rule-updated',
          data: {
            ruleId: 4,
            name: 'no-hooks',
            description: 'none at all',
            expression: 'false',
            enabled: false,
            updatedBy: 'erin',
            updatedAt: at,
          },
        },
      ],
    });
    t.match(given().when(update('ghost')), {
      outcome: 'refused',
      rejection: { code: 'policy-rule-not-found', detail: /'ghost'/ },
      events: [],
    });
    t.match(
      given().when(update('ghost', { compileError: 'boom' })),
      { rejection: { code: 'policy-rule-not-found' } },
      'an unknown rule is reported before the expression',
    );
    t.match(
      given([policyRuleCreated(), policyRuleDeleted()]).when(update()),
      { rejection: { code: 'policy-rule-not-found' } },
      'a deleted rule',
    );
  },
);

t.test('spec, Policy: DELETE removes the rule; 404 for an unknown or deleted one', async (t) => {
  t.strictSame(given([policyRuleCreated(), policyRuleCreated({ ruleId: 9, name: 'other' })]).when(remove('other')), {
    outcome: 'accepted',
    events: [{ type: 'policy-rule-deleted', data: { ruleId: 9, name: 'other' } }],
  });
  t.match(given().when(remove('ghost')), {
    outcome: 'refused',
    rejection: { code: 'policy-rule-not-found' },
    events: [],
  });
  t.match(
    given([policyRuleCreated(), policyRuleDeleted()]).when(remove()),
    { outcome: 'refused', rejection: { code: 'policy-rule-not-found' } },
    'deleted twice',
  );
});
