import { marketplaceDecider } from '../../../domain/marketplace/marketplace.decider.ts';
import { streams } from '../../../domain/shared/streams.ts';
import { snapshotById, withdrawnShas } from '../../../projections/snapshots/snapshots.queries.ts';
import { Type } from 'typebox';
import { isAdmin } from '../../../domain/role/permissions.ts';
import { evaluate } from '../../../domain/vetting/outcome.ts';
import { latestRun, waiversOf } from '../../../projections/vetting/vetting.queries.ts';
import { metaFor, requireApproverOf, rolesOf } from '../../auth/authorize.ts';
import { policyDenials } from '../policy/policy-evaluation.ts';
import { execute } from '../../execute.ts';
import { addressedSnapshot } from './addressed.ts';
import type { HttpApp, HttpDeps } from '../../http-deps.ts';
import { reject } from '../../problems.ts';
import { IdParams, problemResponses } from '../../schemas/common.schema.ts';
import { SnapshotView, snapshotView } from '../../schemas/marketplace.schema.ts';

const tags = ['snapshots'];
const ApproveQuery = Type.Object({
  overrideReason: Type.Optional(Type.String({ maxLength: 2000, description: 'Admin only: approve although vetting is BLOCKED, for this reason (recorded)' })),
}, { additionalProperties: false });
// Approval publishes: answer once the published repository serves it.
const readModels = ['snapshots', 'marketplaces', 'ledger', 'publication'];

export function decisionRoutes(app: HttpApp, deps: HttpDeps): void {
  app.post('/api/v1/snapshots/:id/approve', {
    schema: {
      tags, summary: 'Approve a held or revoked snapshot: the facade serves it', params: IdParams,
      querystring: ApproveQuery,
      description: 'Sent with no body. The gate, in order: not already decided, not rejected, not withdrawn administratively; the vetting '
        + 'outcome (BLOCKED refuses with 409 `vetting-blocked` unless an admin sends `overrideReason`, recorded on the approval); every '
        + 'enabled policy rule (any match or evaluation error refuses with 409 `policy-denied` and `denials[]`, one policy-denied ledger '
        + 'entry per deciding rule); the minimum release age (409 `release-age-not-elapsed`).',
      response: { 200: SnapshotView, ...problemResponses(403, 404, 409) },
    },
  }, async (request) => {
    const { snapshot, marketplace } = await addressedSnapshot(deps, request.params.id);
    const caller = await requireApproverOf(deps, request, marketplace);
    const overrideReason = request.query.overrideReason?.trim() || null;
    if (overrideReason !== null && !isAdmin(await rolesOf(deps, caller))) throw reject('forbidden', 'overriding a BLOCKED vetting outcome needs the admin role');
    const meta = metaFor(deps, request, caller);
    const [run, waivers, withdrawn, policyDenialsFound] = await Promise.all([
      latestRun(deps.pool, snapshot.id), waiversOf(deps.pool, marketplace.id), withdrawnShas(deps.pool, marketplace.name),
      policyDenials(deps, snapshot, marketplace, caller, meta.at),
    ]);
    const vetting = evaluate(run?.verdicts ?? null, snapshot.sha, waivers, meta.at);
    await execute(deps, marketplaceDecider, streams.marketplace(marketplace.id), {
      type: 'approve-snapshot',
      data: {
        snapshotId: snapshot.id,
        inputs: {
          minimumReleaseAgeMs: deps.marketplaces.minimumReleaseAgeMs, withdrawnShas: withdrawn, overrideReason, policyDenials: policyDenialsFound,
          vetting: { outcome: vetting.outcome, uncovered: vetting.uncovered, unanswered: vetting.unanswered },
        },
      },
      meta,
    }, readModels);
    return snapshotView((await snapshotById(deps.pool, snapshot.id))!);
  });

  app.post('/api/v1/snapshots/:id/reject', {
    schema: { tags, summary: 'Reject a held or revoked snapshot', params: IdParams, response: { 200: SnapshotView, ...problemResponses(403, 404, 409) } },
  }, async (request) => {
    const { snapshot, marketplace } = await addressedSnapshot(deps, request.params.id);
    const caller = await requireApproverOf(deps, request, marketplace);
    await execute(deps, marketplaceDecider, streams.marketplace(marketplace.id), {
      type: 'reject-snapshot', data: { snapshotId: snapshot.id }, meta: metaFor(deps, request, caller),
    }, readModels);
    return snapshotView((await snapshotById(deps.pool, snapshot.id))!);
  });
}
