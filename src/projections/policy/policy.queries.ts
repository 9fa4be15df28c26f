import { z } from 'zod';
import { sql, type CommonQueryMethods } from '../../adapters/postgres/pool.ts';
import { maybeRecord } from '../rows.ts';

const RuleRow = z.object({
  id: z.bigint(),
  name: z.string(),
  description: z.string(),
  expression: z.string(),
  enabled: z.boolean(),
  created_by: z.string(),
  created_at: z.string(),
  updated_by: z.string().nullable(),
  updated_at: z.string().nullable(),
});

export type PolicyRuleRecord = Readonly<{
  id: number;
  name: string;
  description: string;
  expression: string;
  enabled: boolean;
  createdBy: string;
  createdAt: string;
  updatedBy: string | null;
  updatedAt: string | null;
}>;

const toRule = (r: z.infer<typeof RuleRow>): PolicyRuleRecord => ({
  id: Number(r.id),
  name: r.name,
  description: r.description,
  expression: r.expression,
  enabled: r.enabled,
  createdBy: r.created_by,
  createdAt: r.created_at,
  updatedBy: r.updated_by,
  updatedAt: r.updated_at,
});

const columns = sql.fragment`id, name, description, expression, enabled, created_by, created_at, updated_by, updated_at`;

export async function policyRules(db: CommonQueryMethods, onlyEnabled = false): Promise<PolicyRuleRecord[]> {
  const filter = onlyEnabled ? sql.fragment`enabled` : sql.fragment`true`;
  return (await db.any(sql.type(RuleRow)`select ${columns} from policy_rules where ${filter} order by name`)).map(
    toRule,
  );
}

export async function policyRuleByName(db: CommonQueryMethods, name: string): Promise<PolicyRuleRecord | null> {
  return maybeRecord(db, sql.type(RuleRow)`select ${columns} from policy_rules where name = ${name}`, toRule);
}
