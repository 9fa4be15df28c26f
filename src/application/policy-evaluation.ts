import { readScanInput } from '../adapters/git/tree-reader.ts';
import { compilePolicy, evaluatePolicy, type CompiledPolicy } from '../adapters/policy/cel.ts';
import { licenseReport } from '../adapters/vetting/license.connector.ts';
import { inventoryOf } from '../domain/plugin/inventory.ts';
import { readLayout } from '../domain/plugin/layout.ts';
import { policyVariables, type PolicyVariables } from '../domain/policy/variables.ts';
import type { RoleAssignment } from '../domain/role/permissions.ts';
import type { PolicyDenial } from '../domain/snapshot/approve-gate.ts';
import type { ScanInput } from '../domain/vetting/findings.ts';
import { evaluate } from '../domain/vetting/outcome.ts';
import type { MarketplaceRecord } from '../projections/marketplaces/marketplaces.queries.ts';
import type { PolicyRuleRecord } from '../projections/policy/policy.queries.ts';
import type { SnapshotRecord } from '../projections/snapshots/snapshots.queries.ts';
import { latestRun, waiversOf, type RunRecord, type WaiverRecord } from '../projections/vetting/vetting.queries.ts';
import type { Actor, Ports } from './ports.ts';
import { rolesOf } from './roles.ts';

/** The pinned tree of a snapshot as connectors, inventory and license report read it. */
export const snapshotTree = (deps: Pick<Ports, 'gitStore' | 'vetting'>, snapshot: SnapshotRecord): Promise<ScanInput> =>
  readScanInput(deps.gitStore.quarantinePath(snapshot.marketplaceId), snapshot.sha, {
    maxFileBytes: deps.vetting.maxFileBytes,
    license: deps.vetting.license,
  });

/** What the policy variables are made of, each read once by whoever evaluates them. */
export type PolicyFacts = Readonly<{
  snapshot: SnapshotRecord;
  marketplace: MarketplaceRecord;
  tree: ScanInput;
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
      fileCount: tree.files.length,
    },
    marketplace: { name: marketplace.name, origin: marketplace.origin, url: marketplace.url },
    plugins: inventoryOf(readLayout(tree.byPath)).plugins,
    findings: (run?.verdicts ?? []).flatMap((v) =>
      v.findings.map((f) => ({
        ...f,
        connector: v.connector,
        waived: waived.has(`${v.connector}\u0000${f.id}\u0000${f.location}`),
      })),
    ),
    licenses: licenseReport(tree).licenses,
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
    snapshotTree(deps, snapshot),
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

// Stored expressions compiled once per process (they compiled when stored; the cache is bounded).
const compiled = new Map<string, CompiledPolicy | string>();
function compiledRule(expression: string): CompiledPolicy | string {
  let entry = compiled.get(expression);
  if (entry === undefined) {
    const result = compilePolicy(expression);
    entry = result.ok ? result.program : result.error;
    if (compiled.size >= 1000) compiled.clear();
    compiled.set(expression, entry);
  }
  return entry;
}

/** spec, Policy: at approve every enabled rule is evaluated; any match or evaluation error is a denial. */
export function policyDenials(rules: readonly PolicyRuleRecord[], variables: PolicyVariables): PolicyDenial[] {
  const denials: PolicyDenial[] = [];
  for (const rule of rules) {
    const program = compiledRule(rule.expression);
    const result = typeof program === 'string' ? { error: program } : evaluatePolicy(program, variables);
    if ('error' in result) denials.push({ rule: rule.name, ruleId: rule.id, outcome: 'error', error: result.error });
    else if (result.matched) denials.push({ rule: rule.name, ruleId: rule.id, outcome: 'matched', error: null });
  }
  return denials;
}
