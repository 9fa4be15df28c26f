import { Type } from 'typebox';
import {
  createAuditSink,
  deleteAuditSink,
  listAuditSinks,
  setAuditSinkCursor,
  updateAuditSink,
} from '../../../application/outbound/audit-sinks.use-case.ts';
import type { HttpApp, HttpDeps } from '../../http-deps.ts';
import { actAs } from '../../auth/acting.ts';
import { IdParams, problemResponses } from '../../schemas/common.schema.ts';
import {
  EndpointUrl,
  endpointCollectionRoutes,
  endpointDeleteRoute,
  endpointView,
} from '../webhooks/signed-endpoint.ts';

const where = { path: '/api/v1/audit/sinks', tags: ['audit'] };
const Position = Type.Integer({ minimum: 0, maximum: 9_007_199_254_740_991 });

const SinkView = endpointView(
  { name: Type.String() },
  {
    enabled: Type.Boolean({ description: 'Whether the sink is offered batches' }),
    batchSize: Type.Union([Type.Integer(), Type.Null()], {
      description: 'Entries per batch for this sink; null: gateway.audit-export.batch-size',
    }),
    cursorPosition: Type.Integer({
      description: 'The id of the last ledger entry delivered; the next batch starts after it',
    }),
    ledgerHead: Type.Integer({ description: 'The id of the newest ledger entry (0 when the ledger is empty)' }),
    behind: Type.Integer({ description: 'Ledger entries after the cursor' }),
  },
);

const Switches = {
  enabled: Type.Optional(Type.Boolean({ description: 'false: offered nothing until switched on (default true)' })),
  batchSize: Type.Optional(
    Type.Union([Type.Integer({ minimum: 1, maximum: 1_000_000 }), Type.Null()], {
      description: 'Entries per batch, clamped to gateway.audit-export.max-page-size; null: the setting',
    }),
  ),
};

const description =
  'Each enabled sink is offered the next batch after its cursor every gateway.audit-export.poll-interval, as a ' +
  'webhook delivery of kind audit.batch (Standard Webhooks headers and signature) whose data is ' +
  '{sink, from, to, entries[]} with entries in the export form; the cursor moves when the batch is delivered.';

/** Audit sinks: register, list, replay from a position, delete (docs/webhooks.md). */
export function auditSinkRoutes(app: HttpApp, deps: HttpDeps): void {
  endpointCollectionRoutes(
    app,
    deps,
    { ...where, view: SinkView, description },
    {
      summary: 'Register a push sink (admin); the signing secret is answered once',
      body: Type.Object(
        { name: Type.String({ maxLength: 100 }), url: EndpointUrl, ...Switches },
        { additionalProperties: false },
      ),
      refusals: [400, 403, 409, 422],
      run: createAuditSink,
    },
    {
      summary: 'Every sink with cursorPosition, ledgerHead and behind (auditor or admin); never a secret',
      run: listAuditSinks,
    },
  );
  sinkChangeRoutes(app, deps);
  endpointDeleteRoute(app, deps, where, 'Delete a sink and its delivery channel (admin)', deleteAuditSink);
}

/** PUT cursor, PATCH switches: the admin's changes of one sink. */
function sinkChangeRoutes(app: HttpApp, deps: HttpDeps): void {
  app.put(
    `${where.path}/:id/cursor`,
    {
      schema: {
        tags: where.tags,
        summary: 'Set a sink cursor (admin): the next batch starts after position (a replay)',
        params: IdParams,
        body: Type.Object({ position: Position }, { additionalProperties: false }),
        response: { 200: SinkView, ...problemResponses(403, 404) },
      },
    },
    async (request) =>
      actAs(deps, request, (caller, meta) =>
        setAuditSinkCursor(deps, caller, request.params.id, request.body.position, meta),
      ),
  );

  app.patch(
    `${where.path}/:id`,
    {
      schema: {
        tags: where.tags,
        summary: 'Switch a sink on or off, or set its batch size (admin); what is not given stays',
        params: IdParams,
        body: Type.Object(Switches, { additionalProperties: false }),
        response: { 200: SinkView, ...problemResponses(403, 404) },
      },
    },
    async (request) =>
      actAs(deps, request, (caller, meta) => updateAuditSink(deps, caller, request.params.id, request.body, meta)),
  );
}
