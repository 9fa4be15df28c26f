import { marketplaceDecider } from '../../../domain/marketplace/marketplace.decider.ts';
import { streams } from '../../../domain/shared/streams.ts';
import { marketplaceById } from '../../../projections/marketplaces/marketplaces.queries.ts';
import { snapshotById, withdrawnShas } from '../../../projections/snapshots/snapshots.queries.ts';
import { metaFor, requireApproverOf } from '../../auth/authorize.ts';
import { execute } from '../../execute.ts';
import type { HttpApp, HttpDeps } from '../../http-deps.ts';
import { reject } from '../../problems.ts';
import { IdParams, problemResponses } from '../../schemas/common.schema.ts';
import { SnapshotView, snapshotView } from '../../schemas/marketplace.schema.ts';

const tags = ['snapshots'];
// Approval publishes: answer once the published repository serves it.
const readModels = ['snapshots', 'marketplaces', 'ledger', 'publication'];

/** The addressed snapshot and its marketplace; the approver role is resolved from them server-side. */
async function addressed(deps: HttpDeps, id: number) {
  const snapshot = await snapshotById(deps.pool, id);
  const marketplace = snapshot ? await marketplaceById(deps.pool, snapshot.marketplaceId) : null;
  if (!snapshot || !marketplace) throw reject('snapshot-not-found', `no snapshot ${id}`);
  return { snapshot, marketplace };
}

export function decisionRoutes(app: HttpApp, deps: HttpDeps): void {
  app.post('/api/v1/snapshots/:id/approve', {
    schema: { tags, summary: 'Approve a held or revoked snapshot: the facade serves it', params: IdParams, response: { 200: SnapshotView, ...problemResponses(403, 404, 409) } },
  }, async (request) => {
    const { snapshot, marketplace } = await addressed(deps, request.params.id);
    const caller = await requireApproverOf(deps, request, marketplace);
    await execute(deps, marketplaceDecider, streams.marketplace(marketplace.id), {
      type: 'approve-snapshot',
      data: {
        snapshotId: snapshot.id,
        inputs: { minimumReleaseAgeMs: deps.marketplaces.minimumReleaseAgeMs, withdrawnShas: await withdrawnShas(deps.pool, marketplace.name) },
      },
      meta: metaFor(deps, request, caller),
    }, readModels);
    return snapshotView((await snapshotById(deps.pool, snapshot.id))!);
  });

  app.post('/api/v1/snapshots/:id/reject', {
    schema: { tags, summary: 'Reject a held or revoked snapshot', params: IdParams, response: { 200: SnapshotView, ...problemResponses(403, 404, 409) } },
  }, async (request) => {
    const { snapshot, marketplace } = await addressed(deps, request.params.id);
    const caller = await requireApproverOf(deps, request, marketplace);
    await execute(deps, marketplaceDecider, streams.marketplace(marketplace.id), {
      type: 'reject-snapshot', data: { snapshotId: snapshot.id }, meta: metaFor(deps, request, caller),
    }, readModels);
    return snapshotView((await snapshotById(deps.pool, snapshot.id))!);
  });
}
