import { Type } from 'typebox';
import { compactNow } from '../../../application/retention/compaction.duty.ts';
import type { HttpApp, HttpDeps } from '../../http-deps.ts';
import { actAs } from '../../auth/acting.ts';
import { problemResponses } from '../../schemas/common.schema.ts';

const CompactionView = Type.Object({
  selected: Type.Integer({ description: 'soft-deleted snapshots past their purgeAfter' }),
  acted: Type.Integer({ description: 'of those, purged by this pass' }),
  swept: Type.Object({
    stagingRefs: Type.Integer({ description: 'abandoned staging refs removed from quarantine' }),
    deliveries: Type.Integer({ description: 'delivered or failed webhook deliveries older than 30 days removed' }),
    externalCaches: Type.Integer({
      description:
        'caches of external plugin repositories removed: named by no live snapshot, unused for gateway.housekeeping.external-cache-max-age',
    }),
  }),
});

export function compactRoute(app: HttpApp, deps: HttpDeps): void {
  app.post(
    '/api/v1/retention/compact',
    {
      schema: {
        tags: ['retention'],
        summary: 'Run one compaction pass now (admin)',
        description:
          'Purges the soft-deleted snapshots past purgeAfter (their quarantine refs are removed, then the objects ' +
          'no other ref reaches; the ledger keeps every record; a withdrawn row stays), sweeps abandoned staging ' +
          'refs older than gateway.retention.staging-ref-max-age and webhook deliveries delivered or failed more ' +
          'than 30 days ago (never pending ones), and removes the caches of external plugin repositories no live ' +
          'snapshot names, unused for gateway.housekeeping.external-cache-max-age. Runs whatever the schedule ' +
          '(gateway.housekeeping.enabled). No machine scope reaches it.',
        response: { 200: CompactionView, ...problemResponses(403) },
      },
    },
    async (request) => actAs(deps, request, (caller, meta) => compactNow(deps, caller, meta)),
  );
}
