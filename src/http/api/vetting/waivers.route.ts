import { Type } from 'typebox';
import { createWaiver, revokeWaiver } from '../../../application/vetting/waivers.use-case.ts';
import { listWaivers } from '../../../application/vetting/vetting-reads.use-case.ts';
import type { HttpApp, HttpDeps } from '../../http-deps.ts';
import { actAs } from '../../auth/acting.ts';
import { IdParams, problemResponses, NameParams } from '../../schemas/common.schema.ts';
import { WaiverView, waiverView } from '../../schemas/vetting.schema.ts';
import { tags } from './vetting.shared.ts';

// Fields are optional in the schema so that a missing one gets the documented 400 with a
// sentence naming it, not a schema error.
const WaiverBody = Type.Object(
  {
    ruleId: Type.Optional(Type.String({ maxLength: 200 })),
    scope: Type.Optional(Type.String({ maxLength: 20, description: '`SNAPSHOT` or `PATH`' })),
    path: Type.Optional(Type.Union([Type.String({ maxLength: 4096 }), Type.Null()])),
    justification: Type.Optional(Type.String({ maxLength: 4000 })),
    expiresAt: Type.Optional(Type.Union([Type.String({ maxLength: 64 }), Type.Null()])),
  },
  { additionalProperties: false },
);

export function waiverRoutes(app: HttpApp, deps: HttpDeps): void {
  app.post(
    '/api/v1/snapshots/:id/waivers',
    {
      schema: {
        tags,
        params: IdParams,
        body: WaiverBody,
        response: { 201: WaiverView, ...problemResponses(400, 403, 404, 409) },
        summary:
          'Waive a finding for this commit (SNAPSHOT) or under a path (PATH) of the marketplace, until expiresAt; ' +
          'refused (409) on a rejected snapshot or a commit withdrawn administratively',
      },
    },
    async (request, reply) => {
      const waiver = await actAs(deps, request, (caller, meta) =>
        createWaiver(deps, request.params.id, caller, request.body, meta),
      );
      return reply.code(201).send(waiverView(waiver, deps.clock.instant()));
    },
  );

  app.get(
    '/api/v1/marketplaces/:name/waivers',
    {
      schema: {
        tags,
        summary: "The marketplace's waivers, newest first, active and lapsed",
        params: NameParams,
        response: { 200: Type.Array(WaiverView), ...problemResponses(404) },
      },
    },
    async (request) => {
      const waivers = await listWaivers(deps, request.params.name);
      const now = deps.clock.instant();
      return waivers.map((w) => waiverView(w, now));
    },
  );

  app.delete(
    '/api/v1/waivers/:id',
    {
      schema: {
        tags,
        summary: 'Revoke a waiver (the row stays, active false)',
        params: IdParams,
        response: { 200: WaiverView, ...problemResponses(403, 404) },
      },
    },
    async (request) => {
      const waiver = await actAs(deps, request, (caller, meta) => revokeWaiver(deps, request.params.id, caller, meta));
      return waiverView(waiver, deps.clock.instant());
    },
  );
}
