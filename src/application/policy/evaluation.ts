import { readScanInput } from '../../adapters/git/tree-reader.ts';
import { evaluateInWorker } from '../../adapters/policy/policy-engine.ts';
import type { TreeFacts } from '../../adapters/vetting/tree-facts.ts';
import { readTreeFacts } from '../../adapters/vetting/tree-facts-reading.ts';
import { policyVariables, type PolicyVariables } from '../../domain/policy/variables.ts';
import type { RoleAssignment } from '../../domain/role/permissions.ts';
import type { PolicyDenial } from '../../domain/snapshot/approve-gate.ts';
import type { ScanInput } from '../../domain/kernel/findings.ts';
import { evaluate } from '../../domain/vetting/outcome.ts';
import type { MarketplaceRecord } from '../../projections/marketplaces/marketplaces.queries.ts';
import type { PolicyRuleRecord } from '../../projections/policy/policy.queries.ts';
import type { SnapshotRecord } from '../../projections/snapshots/snapshots.queries.ts';
import { latestRun, waiversOf, type RunRecord, type WaiverRecord } from '../../projections/vetting/vetting.queries.ts';
import type { Actor, Ports } from '../kernel/ports.ts';
import { rolesOf } from '../access/standing.ts';

/** The pinned tree of a snapshot as connectors, inventory and license report read it. */
export const snapshotTree = (deps: Pick<Ports, 'gitStore' | 'vetting'>, snapshot: SnapshotRecord): Promise<ScanInput> =>
  readScanInput(deps.gitStore.quarantinePath(snapshot.marketplaceId), snapshot.sha, {
    maxFileBytes: deps.vetting.maxFileBytes,
    license: deps.vetting.license,
  });

/**
 * What the policy variables read from a snapshot's pinned tree (file count, inventory, licenses), read
 * from git off the event loop when the tree is large.
 */
export const snapshotTreeFacts = (
  deps: Pick<Ports, 'gitStore' | 'vetting'>,
  snapshot: SnapshotRecord,
): Promise<TreeFacts> =>
  readTreeFacts(deps.gitStore.quarantinePath(snapshot.marketplaceId), snapshot.sha, {
    maxFileBytes: deps.vetting.maxFileBytes,
    license: deps.vetting.license,
  });

/** What the policy variables are made of, each read once by whoever evaluates them. */
export type PolicyFacts = Readonly<{
  snapshot: SnapshotRecord;
  marketplace: MarketplaceRecord;
  tree: TreeFacts;
  run: RunRecord | null;
  waivers: readonly WaiverRecord[];
  approver: Readonly<{ principal: string; roles: readonly RoleAssignment[] }>;
  minimumReleaseAgeMs: number;
}>;

/** Everything a rule sees about approving a snapshot at `at` (docs/policy-variables.md). */
export function policyVariablesOf(facts: PolicyFacts, at: string): PolicyVariables {
  const { snapshot, marketplace, tree, run, waivers, approver } = facts;
  const suppressed = evaluate(run?.verdicts ?? null, snapshot.sha, waivers, at).suppressed;
  const waived = new Set(suppressed.map((s) => `${s.connector}\u0000${s.ruleId}\u0000${s.location}`));
  return policyVariables({
    at,
    snapshot: {
      id: snapshot.id,
      sha: snapshot.sha,
      upstreamSha: snapshot.upstreamSha,
      state: snapshot.state,
      capturedAt: snapshot.createdAt,
      ingestedBy: snapshot.ingestedBy,
      fileCount: tree.fileCount,
    },
    marketplace: { name: marketplace.name, origin: marketplace.origin, url: marketplace.url },
    plugins: tree.plugins,
    findings: (run?.verdicts ?? []).flatMap((v) =>
      v.findings.map((f) => ({
        ...f,
        connector: v.connector,
        waived: waived.has(`${v.connector}\u0000${f.id}\u0000${f.location}`),
      })),
    ),
    licenses: tree.licenses,
    minimumReleaseAgeMs: facts.minimumReleaseAgeMs,
    approver: {
      principal: approver.principal,
      roles: approver.roles.map((r) => ({ role: r.role, marketplace: r.marketplace })),
    },
  });
}

/** The playground's variables: what approving `snapshot` as `actor` at `at` would show the rules. */
export async function readPolicyVariables(
  deps: Pick<Ports, 'pool' | 'gitStore' | 'vetting' | 'access' | 'marketplaces'>,
  snapshot: SnapshotRecord,
  marketplace: MarketplaceRecord,
  actor: Actor,
  at: string,
): Promise<PolicyVariables> {
  const [tree, run, waivers, roles] = await Promise.all([
    snapshotTreeFacts(deps, snapshot),
    latestRun(deps.pool, snapshot.id),
    waiversOf(deps.pool, marketplace.id),
    rolesOf(deps, actor),
  ]);
  return policyVariablesOf(
    {
      snapshot,
      marketplace,
      tree,
      run,
      waivers,
      approver: { principal: actor.principal, roles },
      minimumReleaseAgeMs: deps.marketplaces.minimumReleaseAgeMs,
    },
    at,
  );
}

/**
 * At approve every enabled rule is evaluated (in a policy worker, within gateway.policy.evaluation-timeout);
 * any match or evaluation error is a denial.
 */
export async function policyDenials(
  deps: Pick<Ports, 'policy'>,
  rules: readonly PolicyRuleRecord[],
  variables: PolicyVariables,
): Promise<PolicyDenial[]> {
  const results = await Promise.all(
    rules.map((rule) => evaluateInWorker(rule.expression, variables, deps.policy.evaluationTimeoutMs)),
  );
  return rules.flatMap((rule, k): PolicyDenial[] => {
    const result = results[k]!;
    if ('error' in result) return [{ rule: rule.name, ruleId: rule.id, outcome: 'error', error: result.error }];
    return result.matched ? [{ rule: rule.name, ruleId: rule.id, outcome: 'matched', error: null }] : [];
  });
}
