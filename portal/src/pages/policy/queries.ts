// The Policy section's reads: the rules (auditor or admin) and the snapshots a playground can use.
import { api, ApiError, data, type Body } from '../../api/client';

export { marketplacesQuery, type Marketplace } from '../../api/marketplaces';

export type Rule = Body<'/api/v1/policy/rules', 'get'>[number];
export type Verdict = Body<'/api/v1/policy/playground', 'post'>;

export const rulesQuery = { queryKey: ['policy', 'rules'], queryFn: () => data(api.GET('/api/v1/policy/rules')) };

export const playground = (snapshotId: number, expression: string): Promise<Verdict> =>
  data(api.POST('/api/v1/policy/playground', { body: { snapshotId, expression } }));

/** The compile error of a 422 invalid-expression problem (an expression that does not compile to a boolean). */
export function compileErrorOf(error: unknown): string | null {
  if (!(error instanceof ApiError) || error.problem.status !== 422) return null;
  return /invalid-expression$/.test(error.problem.type ?? '') ? (error.problem.detail ?? null) : null;
}
