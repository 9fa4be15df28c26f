import { Type } from 'typebox';
import { snapshotProvenance } from '../../../application/snapshots/snapshot-reads.use-case.ts';
import type { HttpApp, HttpDeps } from '../../http-deps.ts';
import { IdParams, NullableTimestamp, problemResponses, Timestamp } from '../../schemas/common.schema.ts';
import { NullableString, tags } from './snapshots.shared.ts';

const Provenance = Type.Object({
  snapshotId: Type.Integer(),
  marketplace: Type.String(),
  origin: Type.String(),
  url: NullableString,
  sha: Type.String(),
  upstreamSha: Type.String(),
  composite: Type.Boolean(),
  capturedAt: Timestamp,
  ingestedBy: NullableString,
  committedAt: NullableTimestamp,
  state: Type.String(),
  decidedBy: NullableString,
  decidedAt: NullableTimestamp,
});

export function snapshotProvenanceRoute(app: HttpApp, deps: HttpDeps): void {
  app.get(
    '/api/v1/snapshots/:id/provenance',
    {
      schema: {
        tags,
        params: IdParams,
        response: { 200: Provenance, ...problemResponses(404) },
        summary:
          'Where the snapshot came from: origin, upstream, the commit captured and the commit served, ' +
          'who ingested it',
        description:
          '`composite` is true when the gateway serves a commit of its own (external plugin sources ' +
          'resolved, plugins left out or withheld, or `gateway.facade.history: vetted`): its tree is the ' +
          'vetted one, its parent the commit served before (never `upstreamSha`), and its message names ' +
          '`upstreamSha` in an `Upstream-Commit` trailer.',
      },
    },
    async (request) => snapshotProvenance(deps, request.params.id),
  );
}
