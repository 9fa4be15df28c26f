import { readScanInput } from '../../../adapters/git/tree-reader.ts';
import { compilePolicy, evaluatePolicy, type CompiledPolicy } from '../../../adapters/policy/cel.ts';
import { licenseReport } from '../../../adapters/vetting/license.connector.ts';
import { inventoryOf } from '../../../domain/plugin/inventory.ts';
import { readLayout } from '../../../domain/plugin/layout.ts';
import { policyVariables, type PolicyVariables } from '../../../domain/policy/variables.ts';
import type { PolicyDenial } from '../../../domain/snapshot/approve-gate.ts';
import type { ScanInput } from '../../../domain/vetting/findings.ts';
import { evaluate } from '../../../domain/vetting/outcome.ts';
import type { MarketplaceRecord } from '../../../projections/marketplaces/marketplaces.queries.ts';
import { policyRules } from '../../../projections/policy/policy.queries.ts';
import type { SnapshotRecord } from '../../../projections/snapshots/snapshots.queries.ts';
import { latestRun, waiversOf } from '../../../projections/vetting/vetting.queries.ts';
import type { Caller } from '../../auth/caller.ts';
import { rolesOf } from '../../auth/authorize.ts';
import type { HttpDeps } from '../../http-deps.ts';

/** The pinned tree of a snapshot as connectors, inventory and license report read it. */
export const snapshotTree = (deps: HttpDeps, snapshot: SnapshotRecord): Promise<ScanInput> =>
  readScanInput(deps.gitStore.quarantinePath(snapshot.marketplaceId), snapshot.sha, { maxFileBytes: deps.vetting.maxFileBytes, license: deps.vetting.license });

/** Everything a rule sees about approving `snapshot` as `caller` at `at` (docs/policy-variables.md). */
export async function policyVariablesFor(deps: HttpDeps, snapshot: SnapshotRecord, marketplace: MarketplaceRecord, caller: Caller, at: string): Promise<PolicyVariables> {
  const [tree, run, waivers, roles] = await Promise.all([
    snapshotTree(deps, snapshot), latestRun(deps.pool, snapshot.id), waiversOf(deps.pool, marketplace.id), rolesOf(deps, caller),
  ]);
  const suppressed = evaluate(run?.verdicts ?? null, snapshot.sha, waivers, at).suppressed;
  const waived = new Set(suppressed.map((s) => `${s.connector}\u0000${s.ruleId}\u0000${s.location}`));
  return policyVariables({
    at,
    snapshot: {
      id: snapshot.id, sha: snapshot.sha, upstreamSha: snapshot.upstreamSha, state: snapshot.state, capturedAt: snapshot.createdAt,
      ingestedBy: snapshot.ingestedBy, fileCount: tree.files.length,
    },
    marketplace: { name: marketplace.name, origin: marketplace.origin, url: marketplace.url },
    plugins: inventoryOf(readLayout(tree.byPath)).plugins,
    findings: (run?.verdicts ?? []).flatMap((v) => v.findings.map((f) => ({
      ...f, connector: v.connector, waived: waived.has(`${v.connector}\u0000${f.id}\u0000${f.location}`),
    }))),
    licenses: licenseReport(tree).licenses,
    minimumReleaseAgeMs: deps.marketplaces.minimumReleaseAgeMs,
    approver: { principal: caller.principal, roles: roles.map((r) => ({ role: r.role, marketplace: r.marketplace })) },
  });
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

/**
 * spec, Policy: at approve every enabled rule is evaluated; any match or evaluation error is a denial.
 * The variables are loaded only when a rule is enabled.
 */
export async function policyDenials(deps: HttpDeps, snapshot: SnapshotRecord, marketplace: MarketplaceRecord, caller: Caller, at: string): Promise<PolicyDenial[]> {
  const rules = await policyRules(deps.pool, true);
  if (rules.length === 0) return [];
  const variables = await policyVariablesFor(deps, snapshot, marketplace, caller, at);
  const denials: PolicyDenial[] = [];
  for (const rule of rules) {
    const program = compiledRule(rule.expression);
    const result = typeof program === 'string' ? { error: program } : evaluatePolicy(program, variables);
    if ('error' in result) denials.push({ rule: rule.name, ruleId: rule.id, outcome: 'error', error: result.error });
    else if (result.matched) denials.push({ rule: rule.name, ruleId: rule.id, outcome: 'matched', error: null });
  }
  return denials;
}
