import { Type } from 'typebox';
import { approveSnapshot } from '../../../application/snapshots/approve.use-case.ts';
import { rejectSnapshot } from '../../../application/snapshots/reject.use-case.ts';
import type { FastifyRequest } from 'fastify';
import type { HttpApp, HttpDeps } from '../../http-deps.ts';
import { actAs } from '../../auth/acting.ts';
import { IdParams, problemResponses } from '../../schemas/common.schema.ts';
import { SnapshotView, snapshotView } from '../../schemas/marketplace.schema.ts';

const tags = ['snapshots'];
const ApproveQuery = Type.Object(
  {
    overrideReason: Type.Optional(
      Type.String({
        maxLength: 2000,
        description: 'Admin only: approve although vetting is BLOCKED, for this reason (recorded)',
      }),
    ),
  },
  { additionalProperties: false },
);

const RejectQuery = Type.Object(
  {
    reason: Type.Optional(
      Type.String({
        maxLength: 2000,
        description: 'Why, in the reviewer’s words: recorded on the rejection and shown with the snapshot',
      }),
    ),
  },
  { additionalProperties: false },
);

/** Approve or reject the snapshot as the caller, for the reviewer's reason (trimmed; none when blank). */
async function decide(
  deps: HttpDeps,
  request: FastifyRequest,
  snapshotId: number,
  decision: typeof approveSnapshot | typeof rejectSnapshot,
  reason: string | undefined,
) {
  const decided = await actAs(deps, request, (caller, meta) =>
    decision(deps, snapshotId, caller, reason?.trim() || null, meta),
  );
  return snapshotView(decided.snapshot);
}

export function decisionRoutes(app: HttpApp, deps: HttpDeps): void {
  app.post(
    '/api/v1/snapshots/:id/approve',
    {
      schema: {
        tags,
        summary: 'Approve a held or revoked snapshot: the facade serves it',
        params: IdParams,
        querystring: ApproveQuery,
        description:
          'Sent with no body. The gate, in order: not already decided, not rejected, not withdrawn administratively; the vetting ' +
          'outcome (BLOCKED refuses with 409 `vetting-blocked` unless an admin sends `overrideReason`, recorded on the approval); every ' +
          'enabled policy rule (any match or evaluation error refuses with 409 `policy-denied` and `denials[]`, one policy-denied ledger ' +
          'entry per deciding rule); the minimum release age (409 `release-age-not-elapsed`).',
        response: { 200: SnapshotView, ...problemResponses(403, 404, 409) },
      },
    },
    async (request) => decide(deps, request, request.params.id, approveSnapshot, request.query.overrideReason),
  );

  app.post(
    '/api/v1/snapshots/:id/reject',
    {
      schema: {
        tags,
        summary: 'Reject a held or revoked snapshot',
        params: IdParams,
        querystring: RejectQuery,
        description:
          'Sent with no body; the optional `reason` is recorded (snapshot-rejected) and answered as decisionReason.',
        response: { 200: SnapshotView, ...problemResponses(403, 404, 409) },
      },
    },
    async (request) => decide(deps, request, request.params.id, rejectSnapshot, request.query.reason),
  );
}
