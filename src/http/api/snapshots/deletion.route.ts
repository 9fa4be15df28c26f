import { restoreSnapshot, softDeleteSnapshot } from '../../../application/snapshots/deletion.use-case.ts';
import type { HttpApp, HttpDeps } from '../../http-deps.ts';
import { actAs } from '../../auth/acting.ts';
import { IdParams, problemResponses } from '../../schemas/common.schema.ts';
import { SnapshotView, snapshotView } from '../../schemas/marketplace.schema.ts';

const tags = ['snapshots'];

// No machine scope reaches snapshot delete and restore (docs/access.md): admin sessions only.
export function deletionRoutes(app: HttpApp, deps: HttpDeps): void {
  app.delete(
    '/api/v1/snapshots/:id',
    {
      schema: {
        tags,
        summary: 'Soft-delete a held, rejected or revoked snapshot by hand (reason manual); admin only',
        description:
          'Deletion is orthogonal to state: the snapshot keeps its state and gains the deletion marks deleted_at, ' +
          'deleted_reason and purgeAfter (now + gateway.retention.restore-window). Its content stays readable and it can be ' +
          'restored until purgeAfter; a compaction pass purges it after. Answers the snapshot with its marks. 409 ' +
          '`snapshot-not-deletable` for an approved snapshot, `snapshot-deleted` for one already deleted.',
        params: IdParams,
        response: { 200: SnapshotView, ...problemResponses(403, 404, 409) },
      },
    },
    async (request) =>
      snapshotView(
        await actAs(deps, request, (caller, meta) =>
          softDeleteSnapshot(deps, caller, request.params.id, 'manual', meta),
        ),
      ),
  );

  app.post(
    '/api/v1/snapshots/:id/restore',
    {
      schema: {
        tags,
        summary: 'Clear the deletion marks of a soft-deleted snapshot before its purgeAfter; admin only',
        description:
          'Sent with no body. 409 `snapshot-not-deleted` when it carries no marks, `restore-window-elapsed` once purgeAfter ' +
          'has passed or the snapshot was purged.',
        params: IdParams,
        response: { 200: SnapshotView, ...problemResponses(403, 404, 409) },
      },
    },
    async (request) =>
      snapshotView(
        await actAs(deps, request, (caller, meta) => restoreSnapshot(deps, caller, request.params.id, meta)),
      ),
  );
}
