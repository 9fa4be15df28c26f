import type { Event, Instant } from '../kernel/decider.ts';

export type PolicyRuleCreated = Event<
  'policy-rule-created',
  {
    ruleId: number;
    name: string;
    description: string;
    expression: string;
    enabled: boolean;
    createdBy: string;
    createdAt: Instant;
  }
>;
export type PolicyRuleUpdated = Event<
  'policy-rule-updated',
  {
    ruleId: number;
    name: string;
    description: string;
    expression: string;
    enabled: boolean;
    updatedBy: string;
    updatedAt: Instant;
  }
>;
export type PolicyRuleDeleted = Event<'policy-rule-deleted', { ruleId: number; name: string }>;

/** A rule that decided an approval's refusal (one policy-denied entry per deciding rule). */
export type PolicyDenied = Event<
  'policy-denied',
  {
    marketplaceId: number;
    marketplace: string;
    snapshotId: number;
    sha: string;
    rule: string;
    ruleId: number;
    outcome: 'matched' | 'error';
    error: string | null;
  }
>;

export type PolicyEvent = PolicyRuleCreated | PolicyRuleUpdated | PolicyRuleDeleted | PolicyDenied;
