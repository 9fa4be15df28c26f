import type { PolicyEvent, PolicyRuleCreated } from '../../../domain/policy/policy.events.ts';
import type { LedgerTable } from './ledger-table.ts';

type Rule = Pick<PolicyRuleCreated['data'], 'name' | 'ruleId' | 'enabled' | 'expression'>;

const ruleSaved = (d: Rule) => [{ detail: `rule '${d.name}' (${d.ruleId}) enabled=${d.enabled}: ${d.expression}` }];

/** Approval policy: its rules, and each rule that decided an approval's refusal. */
export const policyLedger: LedgerTable<PolicyEvent> = {
  'policy-rule-created': ({ data }) => ruleSaved(data),
  'policy-rule-updated': ({ data }) => ruleSaved(data),
  'policy-rule-deleted': ({ data: d }) => [{ detail: `rule '${d.name}' (${d.ruleId})` }],
  'policy-denied': ({ data: d }) => [
    {
      marketplace: d.marketplace,
      marketplaceId: d.marketplaceId,
      sha: d.sha,
      detail: `snapshot ${d.snapshotId}: rule '${d.rule}' ${d.outcome}${d.error === null ? '' : `: ${d.error}`}`,
    },
  ],
};
