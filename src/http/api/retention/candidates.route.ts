import { Type } from 'typebox';
import { retentionCandidates } from '../../../application/retention/retention.duty.ts';
import { retentionCriteria, type RetentionCandidate } from '../../../domain/retention/retention-criteria.ts';
import { callerOf } from '../../auth/authorize.ts';
import type { HttpApp, HttpDeps } from '../../http-deps.ts';
import { literalUnion, NullableTimestamp, problemResponses, Timestamp } from '../../schemas/common.schema.ts';

export const tags = ['retention'];

/** ?marketplace=: a marketplace name, live or removed (a removed one's withdrawn rows are reclaimable). */
export const RetentionQuery = Type.Object({ marketplace: Type.Optional(Type.String({ minLength: 1, maxLength: 63 })) });

// A retention candidate: its selecting criterion and what a reviewer needs beside it (docs/retention.md).
const CandidateView = Type.Object({
  snapshotId: Type.Integer(),
  marketplace: Type.String(),
  sha: Type.String(),
  state: literalUnion(['held', 'rejected', 'revoked'] as const),
  capturedAt: Timestamp,
  withdrawn: Type.Boolean({ description: 'administratively withdrawn (marketplace removal): its row is never purged' }),
  criterion: literalUnion(retentionCriteria),
  lastFetch: Type.Union([NullableTimestamp], {
    description: 'the last fetch of the commit from its marketplace through the facade (before min-idle), or null',
  }),
});

const candidateView = (c: RetentionCandidate) => ({
  snapshotId: c.snapshotId,
  marketplace: c.marketplace,
  sha: c.sha,
  state: c.state,
  capturedAt: c.capturedAt,
  withdrawn: c.withdrawn,
  criterion: c.criterion,
  lastFetch: c.lastFetch,
});

export function retentionCandidatesRoute(app: HttpApp, deps: HttpDeps): void {
  app.get(
    '/api/v1/retention/candidates',
    {
      schema: {
        tags,
        summary: 'Dry run: the snapshots an evaluation pass would soft-delete now, each with its selecting criterion',
        description:
          'Writes nothing. held-too-long, then superseded; the min-idle veto applied; approved and already ' +
          'soft-deleted snapshots never appear. Optional ?marketplace= (404 when no marketplace was ever ' +
          'registered under the name). Auditor or admin.',
        querystring: RetentionQuery,
        response: { 200: Type.Array(CandidateView), ...problemResponses(403, 404) },
      },
    },
    async (request) => {
      const candidates = await retentionCandidates(deps, callerOf(request), request.query.marketplace ?? null);
      return candidates.map(candidateView);
    },
  );
}
