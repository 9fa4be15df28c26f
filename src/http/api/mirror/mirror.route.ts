import { Type } from 'typebox';
import { mirrorDrift, reconcileMirror, type MirroredCatalog } from '../../../application/mirror/reconcile.use-case.ts';
import type { MirrorDriftReport } from '../../../domain/mirror/mirror-drift.ts';
import { callerOf } from '../../auth/authorize.ts';
import type { HttpApp, HttpDeps } from '../../http-deps.ts';
import { actAs } from '../../auth/acting.ts';
import { literalUnion, NullableTimestamp, problemResponses } from '../../schemas/common.schema.ts';

const nullable = <T extends ReturnType<typeof Type.String>>(schema: T) => Type.Union([schema, Type.Null()]);

// The mirror drift report (docs/mirror.md): one per mirrored name (each served marketplace, and the catalog).
const DriftView = Type.Object({
  enabled: Type.Boolean(),
  marketplace: nullable(
    Type.String({ description: 'the marketplace or catalog name; null when no mirror is configured' }),
  ),
  url: nullable(Type.String({ description: 'the mirror repository; never carries a credential' })),
  reachable: Type.Boolean(),
  inSync: Type.Boolean({ description: 'false whenever reachable is false' }),
  servedTip: nullable(Type.String()),
  mirrorTip: nullable(Type.String()),
  missingOnMirror: Type.Array(Type.String(), {
    description: 'served refs the mirror lacks or holds at another commit',
  }),
  staleOnMirror: Type.Array(Type.String(), {
    description: 'mirror refs under refs/heads/main and refs/snapshots/* no longer served',
  }),
  pendingUpdates: Type.Integer({ minimum: 0 }),
  lastAttemptAt: NullableTimestamp,
  lastAttemptOutcome: literalUnion(['ok', 'failed', 'none'] as const),
  error: nullable(Type.String({ description: 'refused: … when the gateway declined to act on its own storage' })),
});

const DriftAnswer = Type.Array(DriftView, {
  description:
    'One report per mirrored name, in name order (an empty list when nothing is served or followed); a single ' +
    'report with enabled false when gateway.mirror.url is unset.',
});

const viewOf = (report: MirrorDriftReport) => ({
  ...report,
  missingOnMirror: [...report.missingOnMirror],
  staleOnMirror: [...report.staleOnMirror],
});

const catalogOf = (deps: HttpDeps): MirroredCatalog | null =>
  deps.catalog.enabled && deps.catalogBuilder
    ? {
        name: deps.catalogBuilder.name,
        servedRepo: deps.catalogBuilder.servedRepo,
        servesAnything: () => deps.catalogBuilder!.servesAnything(),
        idle: () => deps.catalogBuilder!.idle(),
      }
    : null;

const description =
  'Compares only refs/heads/main and refs/snapshots/* of each served marketplace and of the catalog with the ' +
  'mirror (gateway.mirror.url). Administrators only; no machine scope reaches it.';

export function mirrorRoutes(app: HttpApp, deps: HttpDeps): void {
  app.get(
    '/api/v1/mirror/drift',
    {
      schema: {
        tags: ['mirror'],
        summary: 'Drift between what is served and the forge mirror (admin)',
        description,
        response: { 200: DriftAnswer, ...problemResponses(403) },
      },
    },
    async (request) => (await mirrorDrift(deps, catalogOf(deps), callerOf(request))).map(viewOf),
  );
  app.post(
    '/api/v1/mirror/reconcile',
    {
      schema: {
        tags: ['mirror'],
        summary: 'Reconcile the mirror now and answer the drift report (admin)',
        description:
          `${description} Waits (bounded) for the leader's pass; a wait that runs out answers with pendingUpdates ` +
          'above zero. When published storage answers incompletely nothing is pushed or deleted for that name: ' +
          'lastAttemptOutcome failed, error refused: …, and mirror-reconciliation-refused on the ledger.',
        response: { 200: DriftAnswer, ...problemResponses(403) },
      },
    },
    async (request) =>
      (await actAs(deps, request, (caller, meta) => reconcileMirror(deps, catalogOf(deps), caller, meta))).map(viewOf),
  );
}
