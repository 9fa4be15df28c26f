import { Type } from 'typebox';
import {
  createAuditSink,
  deleteAuditSink,
  listAuditSinks,
  setAuditSinkCursor,
  updateAuditSink,
} from '../../../application/outbound/audit-sinks.use-case.ts';
import { callerOf, metaFor } from '../../auth/authorize.ts';
import type { HttpApp, HttpDeps } from '../../http-deps.ts';
import { IdParams, problemResponses, Timestamp } from '../../schemas/common.schema.ts';

const tags = ['audit'];
const Position = Type.Integer({ minimum: 0, maximum: 9_007_199_254_740_991 });

const SinkView = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  url: Type.String(),
  enabled: Type.Boolean({ description: 'Whether the sink is offered batches' }),
  batchSize: Type.Union([Type.Integer(), Type.Null()], {
    description: 'Entries per batch for this sink; null: gateway.audit-export.batch-size',
  }),
  cursorPosition: Type.Integer({
    description: 'The id of the last ledger entry delivered; the next batch starts after it',
  }),
  ledgerHead: Type.Integer({ description: 'The id of the newest ledger entry (0 when the ledger is empty)' }),
  behind: Type.Integer({ description: 'Ledger entries after the cursor' }),
  createdAt: Timestamp,
  createdBy: Type.String(),
});
const CreatedView = Type.Object({
  ...SinkView.properties,
  secret: Type.String({ description: 'whsec_<base64 key>: shown once, never again' }),
});

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
  app.post(
    '/api/v1/audit/sinks',
    {
      schema: {
        tags,
        summary: 'Register a push sink (admin); the signing secret is answered once',
        description,
        body: Type.Object(
          { name: Type.String({ maxLength: 100 }), url: Type.String({ maxLength: 2048 }), ...Switches },
          { additionalProperties: false },
        ),
        response: { 201: CreatedView, ...problemResponses(400, 403, 409, 422) },
      },
    },
    async (request, reply) => {
      const caller = callerOf(request);
      const created = await createAuditSink(deps, caller, request.body, metaFor(deps, request, caller));
      return reply.code(201).send(created);
    },
  );

  app.get(
    '/api/v1/audit/sinks',
    {
      schema: {
        tags,
        summary: 'Every sink with cursorPosition, ledgerHead and behind (auditor or admin); never a secret',
        response: { 200: Type.Array(SinkView), ...problemResponses(403) },
      },
    },
    async (request) => listAuditSinks(deps, callerOf(request)),
  );

  sinkChangeRoutes(app, deps);
}

/** PUT cursor, PATCH switches, DELETE: the admin's changes of one sink. */
function sinkChangeRoutes(app: HttpApp, deps: HttpDeps): void {
  app.put(
    '/api/v1/audit/sinks/:id/cursor',
    {
      schema: {
        tags,
        summary: 'Set a sink cursor (admin): the next batch starts after position (a replay)',
        params: IdParams,
        body: Type.Object({ position: Position }, { additionalProperties: false }),
        response: { 200: SinkView, ...problemResponses(403, 404) },
      },
    },
    async (request) => {
      const caller = callerOf(request);
      const meta = metaFor(deps, request, caller);
      return setAuditSinkCursor(deps, caller, request.params.id, request.body.position, meta);
    },
  );

  app.patch(
    '/api/v1/audit/sinks/:id',
    {
      schema: {
        tags,
        summary: 'Switch a sink on or off, or set its batch size (admin); what is not given stays',
        params: IdParams,
        body: Type.Object(Switches, { additionalProperties: false }),
        response: { 200: SinkView, ...problemResponses(403, 404) },
      },
    },
    async (request) => {
      const caller = callerOf(request);
      const meta = metaFor(deps, request, caller);
      return updateAuditSink(deps, caller, request.params.id, request.body, meta);
    },
  );

  app.delete(
    '/api/v1/audit/sinks/:id',
    {
      schema: {
        tags,
        summary: 'Delete a sink and its delivery channel (admin)',
        params: IdParams,
        response: { 204: Type.Null(), ...problemResponses(403, 404) },
      },
    },
    async (request, reply) => {
      const caller = callerOf(request);
      await deleteAuditSink(deps, caller, request.params.id, metaFor(deps, request, caller));
      return reply.code(204).send(null);
    },
  );
}
